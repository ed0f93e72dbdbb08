package org.marl4j;

import jdk.internal.vm.Continuation;
import jdk.internal.vm.ContinuationScope;

/**
 * The {@link FiberEngine#CONTINUATIONS} engine's fiber stack, and the one class in marl4j that
 * touches {@code jdk.internal.vm}: a Loom continuation that runs a fiber's body on its worker's
 * thread.
 *
 * <p>Loom continuations are asymmetric: {@link #suspend()} always returns control to whoever
 * called {@link #resume()}. marl's fiber switch is symmetric, so the worker's own thread stack acts
 * as the trampoline that resumes whichever fiber the worker picks next (see {@link Worker}).
 *
 * <p>A yield that the JVM cannot perform (the fiber's stack holds a native frame or a class
 * initializer, or on older JDKs a monitor) does not throw: {@link #onPinned} records nothing and
 * {@link #suspend()} returns {@code false}, so the caller can fall back to blocking the thread.
 *
 * <p>It is also its fiber's callback for a {@code CompletableFuture} the fiber awaits
 * ({@link FiberCallback#awaitCompletion}): {@link #accept} wakes the fiber, which then checks the
 * future itself. So an await allocates no callback of its own (16 bytes a suspended fiber). A run
 * that comes after the wait ended (it was cancelled) is a spurious wake, which every wait of a fiber
 * ignores (see {@link Fiber#wake()}).
 */
final class FiberContinuation extends Continuation implements Fiber.Stack {
    private static final ContinuationScope SCOPE = new ContinuationScope("marl4j");

    /** The fiber this continuation runs. */
    final Fiber fiber;

    FiberContinuation(Runnable body, Fiber fiber) {
        super(SCOPE, body);
        this.fiber = fiber;
    }

    /** accept(value, failure) wakes the fiber: a future's whenComplete callback. Any thread. */
    @Override
    public void accept(Object value, Throwable failure) {
        fiber.wake();
    }

    /** resume() runs this continuation on the calling thread until it suspends or finishes. */
    @Override
    public void resume() {
        run();
    }

    /** finished() is true once the body has returned. */
    @Override
    public boolean finished() {
        return isDone();
    }

    /**
     * suspend() yields the continuation running on this thread back to its {@link #resume()} caller.
     * Returns false, without yielding, if the JVM pinned the continuation.
     */
    @Override
    public boolean suspend() {
        return Continuation.yield(SCOPE);
    }

    /**
     * suspendedStackTrace() returns the frames of this suspended continuation, innermost first. Never
     * call it on a mounted continuation (a running fiber, or a pinned one blocking its thread): the
     * JDK's walk marks it mounted and, on failure, unmounts it in a finally block, corrupting the
     * state of the running continuation. Another thread may call it only while nothing can resume
     * the continuation, since a concurrent resume() would fail; fibers guarantee this by their
     * worker's lock, which the worker holds whenever it resumes one.
     */
    @Override
    public StackTraceElement[] suspendedStackTrace() {
        return getStackTrace();
    }

    @Override
    protected void onPinned(Continuation.Pinned reason) {
        // Deliberately not throwing: suspend() returns false and the worker blocks the thread.
    }
}
