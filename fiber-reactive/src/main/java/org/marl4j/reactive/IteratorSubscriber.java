package org.marl4j.reactive;

import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.marl4j.Event;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * IteratorSubscriber is the subscriber behind {@link Publishers#iterate}: it buffers elements for a
 * single consumer and requests more as the consumer takes them.
 *
 * <p>Backpressure: it requests {@code prefetch} at first, then, each time the consumer has taken
 * {@code limit} elements, requests that many again. Elements requested but not yet taken never exceed
 * {@code prefetch}, so neither does the buffer.
 *
 * <p>Waking the consumer: the publisher's thread queues an element (or records the end) and then
 * signals an AUTO {@link Event}; the consumer checks the queue and the end, and waits on the Event
 * only if both are empty. An AUTO event stays signalled until a waiter takes it, so a signal that
 * lands between the consumer's check and its wait is not lost. The consumer reads {@code done}
 * before polling, so an element queued before the end is always seen before the end is.
 */
final class IteratorSubscriber<T> implements Subscriber<T>, FiberIterator<T> {
    private final int prefetch;
    /** How many taken elements trigger a new request: three quarters of prefetch, at least 1. */
    private final int limit;
    private final Upstream upstream = new Upstream();
    private final Queue<T> queue = new ConcurrentLinkedQueue<>();
    private final Event arrived = new Event(Event.Mode.AUTO);
    private volatile boolean done;
    /** Written before done, read after it. */
    private Throwable error;
    /** Consumer-side state. */
    private T next;
    private int taken;
    private boolean closed;

    IteratorSubscriber(int prefetch) {
        this.prefetch = prefetch;
        this.limit = Math.max(1, prefetch - (prefetch >> 2));
    }

    @Override
    public void onSubscribe(Subscription s) {
        Objects.requireNonNull(s, "onSubscribe(null) violates Reactive Streams rule 2.13");
        if (upstream.set(s)) {
            upstream.request(prefetch);
        }
    }

    @Override
    public void onNext(T item) {
        Objects.requireNonNull(item, "onNext(null) violates Reactive Streams rule 2.13");
        if (done || upstream.isCancelled()) {
            return; // rule 2.8: elements may still come after cancel
        }
        queue.offer(item);
        arrived.signal();
    }

    @Override
    public void onError(Throwable t) {
        Objects.requireNonNull(t, "onError(null) violates Reactive Streams rule 2.13");
        if (!done) {
            error = t;
            done = true;
            arrived.signal();
        }
    }

    @Override
    public void onComplete() {
        if (!done) {
            done = true;
            arrived.signal();
        }
    }

    @Override
    public boolean hasNext() {
        if (next != null) {
            return true;
        }
        if (closed) {
            return false;
        }
        while (true) {
            boolean ended = done; // before poll: see the comment on the class
            T item = queue.poll();
            if (item != null) {
                next = item;
                return true;
            }
            if (ended) {
                if (error != null) {
                    throw Publishers.<RuntimeException>sneaky(error);
                }
                return false;
            }
            try {
                Publishers.checkMayWait("FiberIterator.hasNext()");
                arrived.await();
            } catch (RuntimeException | Error cancelled) {
                close(); // our fiber was cancelled, or may not wait here: the publisher must stop too
                throw cancelled;
            }
        }
    }

    @Override
    public T next() {
        if (!hasNext()) {
            throw new NoSuchElementException(closed ? "the iterator was closed" : "the publisher has completed");
        }
        T item = next;
        next = null;
        if (++taken == limit) {
            taken = 0;
            upstream.request(limit);
        }
        return item;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        next = null;
        if (!done) {
            upstream.cancel();
        }
        queue.clear();
    }
}
