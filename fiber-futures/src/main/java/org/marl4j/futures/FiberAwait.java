package org.marl4j.futures;

import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import org.marl4j.Fiber;

/**
 * One fiber's untimed {@link Futures#await(java.util.concurrent.CompletionStage)} of a stage other
 * than a plain {@link java.util.concurrent.CompletableFuture} (whose outcome Futures reads from the
 * future itself, with a {@link org.marl4j.FiberCallback}): the stage's callback (or, once a wait on
 * the stage has ended early, an entry of its {@link StageWaiters}: see {@link FiberStageWait}), which
 * stores the outcome and wakes the fiber, and the predicate the fiber waits on
 * ({@link Fiber#await(BooleanSupplier)}).
 *
 * <p>Why its own class rather than {@link Outcome}: a suspended fiber keeps alive everything its
 * wait references, so this is the whole of what the wait adds beside the stage's own completion
 * node: one object of two fields (24 bytes), instead of an Outcome with an Event, its lock, queue
 * and waiter node. The outcome is one field: the value ({@link #NULL} for null) or, only when the
 * stage failed, a {@link Failed} holding the exception; null while the stage is pending. It also
 * keeps the frames between the user's call and the suspend few, which is what the fiber's saved
 * stack is made of.
 *
 * <p>Memory ordering: the outcome is written once, by a volatile write, before the wake() that
 * makes the fiber re-check it.
 */
final class FiberAwait<T> implements BiConsumer<T, Throwable>, BooleanSupplier {
    /** The outcome of a stage completed with null: a null outcome means "not yet". */
    private static final Object NULL = new Object();

    private final Fiber fiber;
    /** Null until the stage completes; then its value, {@link #NULL}, or a {@link Failed}. */
    private volatile Object outcome;

    FiberAwait(Fiber fiber) {
        this.fiber = fiber;
    }

    /** The stage's callback: called once, by whatever thread completes it (or at once if complete). */
    @Override
    public void accept(T v, Throwable t) {
        outcome = t != null ? new Failed(t) : v == null ? NULL : v; // publishes it
        fiber.wake();
    }

    /** Whether the outcome is known: the predicate of the fiber's wait. */
    @Override
    public boolean getAsBoolean() {
        return outcome != null;
    }

    /** get() returns the value or throws the failure as {@link Outcome#rethrow} does. Call once done. */
    @SuppressWarnings("unchecked")
    T get() {
        Object o = outcome;
        if (o instanceof Failed failed) {
            throw Outcome.rethrow(failed.failure);
        }
        return o == NULL ? null : (T) o;
    }

    /** A stage's failure, told apart from a value: no value can be an instance of this private class. */
    private record Failed(Throwable failure) {}
}
