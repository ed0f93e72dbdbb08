package org.marl4j.reactive;

import java.util.Iterator;

/**
 * A FiberIterator walks the elements of a Reactive Streams publisher, waiting for each: what
 * {@link Publishers#iterate} returns.
 *
 * <pre>{@code
 * try (FiberIterator<Row> rows = Publishers.iterate(database.query(sql), 64)) {
 *     while (rows.hasNext()) {
 *         Row row = rows.next();          // suspends this fiber until a row arrives
 *         if (done(row)) break;            // leaving early: close() cancels the query
 *     }
 * }
 * }</pre>
 *
 * <p>{@link #hasNext()} waits until an element arrives or the stream ends: on a marl4j fiber it
 * suspends only the fiber, elsewhere it blocks the thread; on a thread Reactor marks non-blocking
 * it refuses to block, as {@code Mono.block()} does (see {@link Publishers}). When the publisher fails,
 * {@code hasNext()} first returns the elements that arrived before the failure, then throws the
 * failure itself (unwrapped; a checked exception is thrown as is, undeclared), and throws it again
 * if called again. An iterator is for one consumer at a time; it is not thread-safe.
 *
 * @param <T> the element type
 */
public interface FiberIterator<T> extends Iterator<T>, AutoCloseable {
    /**
     * hasNext() waits until the next element has arrived (true) or the publisher has completed
     * (false). After {@link #close()}, returns false.
     *
     * @return whether {@link #next()} has an element to return
     * @throws RuntimeException the publisher's failure, once the elements before it were delivered
     * @throws IllegalStateException if it would have to wait off a fiber on a thread Reactor marks
     *     non-blocking ({@code Schedulers.isInNonBlockingThread()}); the iterator is then closed
     */
    @Override
    boolean hasNext();

    /**
     * next() returns the next element, waiting for it as {@link #hasNext()} does, and requests more
     * from the publisher as elements are consumed.
     *
     * @return the next element
     * @throws java.util.NoSuchElementException if the publisher completed (or the iterator was closed)
     */
    @Override
    T next();

    /**
     * close() cancels the subscription (if the stream has not ended) and drops buffered elements.
     * Idempotent; never throws. Leaving a try-with-resources block early is how a loop that stops
     * before the end tells the publisher to stop.
     */
    @Override
    void close();
}
