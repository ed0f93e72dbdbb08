package org.marl4j;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.marl4j.WaitQueue.Waiter;

/**
 * FiberCallback is a one-shot callback that resumes the fiber that made it: the building block of
 * adapters that hand a callback to an asynchronous result and suspend the fiber until it runs, as
 * {@code Futures.await} does with a {@code CompletableFuture}.
 *
 * <pre>{@code
 * FiberCallback callback = FiberCallback.forCurrentFiber();   // null off a fiber
 * future.whenComplete(callback);                              // or run() from any other callback
 * callback.await();                                           // returns once the callback has run
 * }</pre>
 *
 * <p>Why it exists: a suspended fiber keeps alive everything its wait references, and its stack
 * chunk holds every frame and live value down to the suspend. This callback is one object of one
 * field (16 bytes) that notifies the fiber's own waiter node, and {@link #await()} suspends through
 * the leanest wait there is (the one {@link Event}'s untimed fiber wait uses): no predicate object,
 * no outcome stored here (the caller reads it from its future once woken).
 *
 * <p>One callback serves one wait, awaited by the fiber that made it. The fiber may wait on other
 * things between making the callback and awaiting it: a run meanwhile ends none of those waits,
 * only makes {@link #await()} return at once. Only its first run counts:
 * a later one does nothing (so it can never end another wait of the fiber). Running it before
 * {@link #await()} makes await return at once. The fiber is resumed on its own worker, whatever
 * thread runs the callback.
 */
public final class FiberCallback implements BiConsumer<Object, Throwable>, Runnable {
    private static final VarHandle WAITER;

    static {
        try {
            WAITER = MethodHandles.lookup().findVarHandle(FiberCallback.class, "waiter", Waiter.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The fiber's node for this wait (usually the fiber itself: see {@link Waiter}); null once the
     * callback has run, so that only the first run notifies it. Read and cleared with VarHandle
     * atomics: the one field keeps the callback at 16 bytes.
     */
    @SuppressWarnings("unused") // through WAITER
    private volatile Waiter waiter;

    private FiberCallback(Waiter waiter) {
        this.waiter = waiter;
    }

    /**
     * forCurrentFiber() returns a callback that resumes the current fiber, or null when the caller
     * is not on a fiber (it should then block its thread some other way). It checks that the fiber
     * may suspend now, so a refusal is thrown before the callback is handed to anyone.
     *
     * @return a new callback for the current fiber, or null off a fiber
     * @throws IllegalStateException if the fiber may not suspend: it holds a monitor or a
     *     thread-owned lock (with the scheduler's lock check on)
     * @throws FiberCancelledException if a bounded close of its scheduler has cancelled its waits
     */
    public static FiberCallback forCurrentFiber() {
        Fiber fiber = Fiber.current();
        if (fiber == null) {
            return null;
        }
        fiber.checkMaySuspend(null);
        return new FiberCallback(fiber.waiterForCallback());
    }

    /**
     * awaitCompletion(future) suspends the current fiber until {@code future} is done, with no
     * callback object of its own: the fiber's continuation, which it has anyway, is the future's
     * {@code whenComplete} callback and wakes it; the fiber then reads the outcome from the future.
     * A future already done is answered at once. Off a fiber it returns false at once, without
     * waiting (the caller should then block its thread some other way). On a thread's main fiber
     * (a bound thread) it waits through a callback made for the wait, as
     * {@link #forCurrentFiber()}'s.
     *
     * <p>What it leaves on the future: one {@code whenComplete} callback, as for
     * {@code future.whenComplete(callback)}. If the wait is cancelled before the future completes,
     * the later completion wakes the fiber spuriously, which ends none of its waits (every fiber wait
     * looks at its own condition again when woken, see {@link Fiber#wake()}).
     *
     * <pre>{@code
     * if (future.isDone() || FiberCallback.awaitCompletion(future)) {
     *     return future.resultNow();             // or however the outcome is read
     * }
     * return future.join();                       // not on a fiber
     * }</pre>
     *
     * @param future the future to wait for: a {@link CompletableFuture} whose {@code isDone()} and
     *     {@code whenComplete} behave as the JDK's (not one from {@code minimalCompletionStage()})
     * @return true once the future is done; false, at once, off a fiber
     * @throws IllegalStateException if the fiber may not suspend: it holds a monitor or a
     *     thread-owned lock (with the scheduler's lock check on)
     * @throws FiberCancelledException if the fiber's waits are cancelled (a bounded close of its
     *     scheduler, or a {@link FiberCancellation})
     * @throws NullPointerException if future is null
     */
    public static boolean awaitCompletion(CompletableFuture<?> future) {
        Objects.requireNonNull(future, "future must not be null");
        Fiber fiber = Fiber.current();
        if (fiber == null) {
            return false;
        }
        if (future.isDone()) {
            return true;
        }
        fiber.checkMaySuspend(null);
        if (fiber.isMain()) { // a bound thread's own stack: no continuation to be the callback
            FiberCallback callback = new FiberCallback(fiber.waiterForCallback());
            future.whenComplete(callback);
            callback.await();
            return true;
        }
        future.whenComplete(fiber.stack);
        FiberWaits.awaitDone(fiber, future);
        return true;
    }

    /** run() resumes the fiber (or lets its {@link #await()} return at once). Any thread may call it. */
    @Override
    public void run() {
        Waiter w = (Waiter) WAITER.getAndSet(this, null);
        if (w != null) {
            w.notifyWaiter();
        }
    }

    /** accept(value, failure) is {@link #run()}, ignoring its arguments: a stage's whenComplete callback. */
    @Override
    public void accept(Object value, Throwable failure) {
        run();
    }

    /**
     * await() suspends the fiber that made this callback until the callback has run; at once if it
     * already has. Other wakes of the fiber ({@link Fiber#wake()}) do not end it.
     *
     * @throws IllegalStateException if called by another fiber or thread than the one that made it
     * @throws FiberCancelledException if a bounded close of the scheduler cancelled the wait
     */
    public void await() {
        Waiter w = waiter;
        if (w == null) {
            return; // it has run
        }
        // Read before the wait: a run from now on clears the field but still notifies w, which
        // awaitNotified checks under the worker lock before it suspends.
        Fiber fiber = w.fiber();
        if (fiber != Fiber.current()) {
            throw new IllegalStateException("a FiberCallback can be awaited only by the fiber that made it ("
                    + fiber + "), not on " + Thread.currentThread().getName() + " (fiber " + Fiber.current() + ")");
        }
        FiberWaits.awaitNotified(fiber, w);
    }
}
