package org.marl4j.futures;

import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import org.marl4j.Fiber;

/**
 * One fiber's untimed {@link Futures#await(java.util.concurrent.CompletionStage)}: the stage's
 * callback, which stores the outcome and wakes the fiber, and the predicate the fiber waits on
 * ({@link Fiber#await(BooleanSupplier)}).
 *
 * <p>Why its own class rather than {@link Outcome}: a suspended fiber keeps alive everything its
 * wait references, so this is the whole of what the wait adds beside the stage's own completion
 * node: one object of four fields, instead of an Outcome with an Event, its lock, queue and
 * waiter node. It also keeps the frames between the user's call and the suspend few, which is
 * what the fiber's saved stack is made of.
 *
 * <p>Memory ordering: {@code value} and {@code failure} are written before the volatile
 * {@code done}, and read after it; the wake() that follows makes the fiber re-check {@code done}.
 */
final class FiberAwait<T> implements BiConsumer<T, Throwable>, BooleanSupplier {
    private final Fiber fiber;
    private T value;
    private Throwable failure;
    private volatile boolean done;

    FiberAwait(Fiber fiber) {
        this.fiber = fiber;
    }

    /** The stage's callback: called once, by whatever thread completes it (or at once if complete). */
    @Override
    public void accept(T v, Throwable t) {
        value = v;
        failure = t;
        done = true; // publishes value and failure
        fiber.wake();
    }

    /** Whether the outcome is known: the predicate of the fiber's wait. */
    @Override
    public boolean getAsBoolean() {
        return done;
    }

    /** get() returns the value or throws the failure as {@link Outcome#rethrow} does. Call once done. */
    T get() {
        if (failure != null) {
            throw Outcome.rethrow(failure);
        }
        return value;
    }
}
