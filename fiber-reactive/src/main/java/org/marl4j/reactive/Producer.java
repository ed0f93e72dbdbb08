package org.marl4j.reactive;

/**
 * A Producer is the body of a publisher made by {@link Publishers#publish}: it runs on a marl4j
 * fiber once per subscription and emits the elements.
 *
 * <pre>{@code
 * Publisher<String> lines = Publishers.publish(scheduler, emitter -> {
 *     try (BufferedReader in = open()) {
 *         for (String line; (line = in.readLine()) != null; ) {
 *             emitter.emit(line);     // suspends while the subscriber wants nothing more
 *         }
 *     }                               // runs on cancellation too: emit threw CancellationException
 * });
 * }</pre>
 *
 * @param <T> the element type
 */
@FunctionalInterface
public interface Producer<T> {
    /**
     * produce(emitter) emits the stream's elements. Returning completes the stream; throwing fails
     * it with what was thrown; once the subscriber has cancelled, what is thrown (other than a
     * {@code CancellationException}) goes to Reactor's {@code Hooks.onErrorDropped} instead.
     *
     * @param emitter where to emit elements; valid only on this fiber, until this method returns
     * @throws Exception any failure, delivered to the subscriber's {@code onError}
     */
    void produce(Emitter<T> emitter) throws Exception;
}
