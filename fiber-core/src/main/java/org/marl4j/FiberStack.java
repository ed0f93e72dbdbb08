package org.marl4j;

import java.util.function.BiConsumer;

/**
 * The stack a fiber runs on, as its {@link FiberEngine} makes it: the one seam between marl4j's
 * scheduler and the JVM's way of suspending code (marl's {@code OSFiber}). A
 * {@link FiberContinuation} or a {@link VirtualFiber}; a thread's main fiber has none.
 *
 * <p>The switch is asymmetric: {@link #suspend()} returns control to whoever called
 * {@link #resume()}, which is always the worker's trampoline, on the worker's own thread (see
 * {@link Worker}). Both run with the worker's lock held unless the fiber parks without it.
 *
 * <p>It is also the fiber's callback for a future the fiber awaits
 * ({@link FiberCallback#awaitCompletion}): {@link #accept} wakes the fiber.
 */
interface FiberStack extends BiConsumer<Object, Throwable> {
    /** resume() runs the fiber on the calling (its worker's) thread until it suspends or ends. */
    void resume();

    /**
     * suspend() yields the running fiber, which must be this one, back to its {@link #resume()}
     * caller. Returns false, without yielding, if the JVM pinned the fiber (a native frame or a
     * class initializer on its stack).
     */
    boolean suspend();

    /** finished() is true once the fiber's body has returned. */
    boolean finished();

    /**
     * suspendedStackTrace() returns the frames of this suspended fiber, innermost first. Call it only
     * while nothing can resume the fiber: with its worker's lock held.
     */
    StackTraceElement[] suspendedStackTrace();
}
