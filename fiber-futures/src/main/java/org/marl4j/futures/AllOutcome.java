package org.marl4j.futures;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.marl4j.Event;

/**
 * The completion of all of a list of stages, or the first failure among them: the engine of
 * {@link Futures#awaitAll}. Each stage's callback (a {@link Slot}) stores its value in its slot and counts down;
 * the last one, or the first failure, signals a MANUAL {@link Event} (waiting works as in
 * {@link Outcome}).
 */
final class AllOutcome<T> {
    private final Event event = new Event(Event.Mode.MANUAL);
    /** Slot i is written by stage i's callback before it decrements {@code remaining}. */
    private final Object[] values;
    private final AtomicInteger remaining;
    private final AtomicReference<Throwable> firstFailure = new AtomicReference<>();

    AllOutcome(int size) {
        values = new Object[size];
        remaining = new AtomicInteger(size);
        if (size == 0) {
            event.signal();
        }
    }

    void complete(int index, T value, Throwable failure) {
        if (failure != null) {
            if (firstFailure.compareAndSet(null, failure)) {
                event.signal();
            }
            return;
        }
        values[index] = value;
        if (remaining.decrementAndGet() == 0) {
            event.signal();
        }
    }

    /** await(what) waits until {@link #isDone()}; {@code what} as for {@link Outcome#await(String)}. */
    void await(String what) {
        if (!isDone()) {
            NonBlockingThreads.checkMayBlock(what);
        }
        event.await();
    }

    /** isDone() is whether every stage has completed or one has failed: nothing more to wait for. */
    boolean isDone() {
        return remaining.get() == 0 || firstFailure.get() != null;
    }

    /** slot(index) is the callback of stage {@code index}. */
    Slot slot(int index) {
        return new Slot(this, index);
    }

    /**
     * The callback of one stage: registered in the stage's {@link StageWaiters} (or, on a stage
     * already done, on the stage itself), so that awaitAll can take it back on return.
     */
    record Slot(AllOutcome<?> all, int index) implements BiConsumer<Object, Throwable> {
        @Override
        public void accept(Object value, Throwable failure) {
            all.completeUnchecked(index, value, failure);
        }
    }

    @SuppressWarnings("unchecked")
    private void completeUnchecked(int index, Object value, Throwable failure) {
        complete(index, (T) value, failure);
    }

    /** get() returns the values in stage order, or throws the first failure. Call after await(). */
    @SuppressWarnings("unchecked")
    List<T> get() {
        Throwable failure = firstFailure.get();
        if (failure != null) {
            throw Outcome.rethrow(failure);
        }
        return (List<T>) Collections.unmodifiableList(Arrays.asList(values));
    }
}
