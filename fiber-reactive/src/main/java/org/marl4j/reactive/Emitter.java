package org.marl4j.reactive;

import java.util.concurrent.CancellationException;

/**
 * An Emitter is how a producer given to {@link Publishers#publish} hands elements to its
 * subscriber.
 *
 * <p>Only the producer's own fiber may call it (the producer may not pass it to another thread),
 * which is what keeps the subscriber's signals serial.
 *
 * @param <T> the element type
 */
public interface Emitter<T> {
    /**
     * emit(element) delivers {@code element} to the subscriber's {@code onNext}, first suspending the
     * producer's fiber while the subscriber has requested nothing more.
     *
     * @param element the element; Reactive Streams forbids null
     * @throws CancellationException if the subscriber has cancelled (or has broken rule 3.9 with a
     *     non-positive request, which has been reported to it): let it propagate, so that the
     *     producer unwinds and its {@code finally} blocks run
     * @throws NullPointerException if {@code element} is null
     */
    void emit(T element);

    /**
     * isCancelled() returns whether the subscriber has cancelled; a producer that works long between
     * two emits may check it to stop early.
     *
     * @return true once the subscription is cancelled
     */
    boolean isCancelled();
}
