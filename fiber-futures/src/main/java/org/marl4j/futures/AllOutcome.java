package org.marl4j.futures;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.marl4j.Event;

/**
 * The completion of all of a list of stages, or the first failure among them: the engine of
 * {@link Futures#awaitAll}. Each stage's callback stores its value in its slot and counts down;
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

    void await() {
        event.await();
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
