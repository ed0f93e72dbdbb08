package org.marl4j.reactive;

import java.util.concurrent.CancellationException;

/**
 * An Emitter is how a producer given to {@link Publishers#publish} hands elements to its
 * subscriber.
 *
 * <p>Only the producer's own fiber may call {@link #emit}, and only until the producer returns:
 * that is what keeps the subscriber's signals serial (Reactive Streams rule 1.3) and what lets
 * {@code emit} wait for demand by suspending the producer. Misuse fails loudly with an
 * {@link IllegalStateException} rather than being serialized as Reactor's {@code FluxSink} does:
 * an emit from another thread could not suspend the producer for backpressure (it would have to
 * block that thread or buffer without bound), and the check costs a few field reads per element. To emit elements
 * that another thread or fiber computes, hand them to the producer (a queue, or a
 * {@code Publisher} it iterates with {@link Publishers#iterate}) and emit them there.
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
     * @throws IllegalStateException if called from another thread or fiber than the producer's,
     *     or after the producer has returned (its stream has already ended)
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
