package org.marl4j.reactive;

import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicLong;
import org.marl4j.Event;
import org.marl4j.Fiber;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * FiberProducerSubscription is one subscription to a {@link Publishers#publish} publisher: the
 * {@link Subscription} its subscriber holds, the {@link Emitter} its producer holds, and the fiber
 * task that runs the producer.
 *
 * <p>Threads: {@link #request} and {@link #cancel} come from any thread; every signal to the
 * subscriber comes from the producer's fiber (the task {@link #run()}), which keeps them serial
 * (rule 1.3), including the rule-3.9 error for a non-positive request. The producer waits for demand
 * on an AUTO {@link Event}: request and cancel signal it after changing the state, so a change that
 * lands between the producer's check and its wait is not lost.
 */
final class FiberProducerSubscription<T> implements Subscription, Emitter<T>, Runnable {
    private final Producer<T> producer;
    /** The subscriber's Reactor context, kept past cancel for its onErrorDropped hooks (empty if not Reactor's). */
    private final Context context;
    /** Dropped at cancel so that a cancelled subscriber can be collected (rule 3.13). */
    private volatile Subscriber<? super T> downstream;
    /** Requested and not yet emitted; Long.MAX_VALUE means unbounded (rule 3.17). */
    private final AtomicLong demand = new AtomicLong();
    private final Event changed = new Event(Event.Mode.AUTO);
    private volatile boolean cancelled;
    /** The rule-3.9 violation to report, set by request(n <= 0). */
    private volatile IllegalArgumentException badRequest;
    /** Producer-fiber state: whether a terminal signal was sent. */
    private boolean terminated;
    /**
     * Who may emit: the producer's fiber (or, in the rare task run without a fiber, its thread),
     * set by run() before the producer starts. Read by emit() on any thread, hence volatile.
     */
    private volatile Object producerStrand;
    /**
     * How the stream ended once the producer has returned or thrown ("completed", "failed", or
     * "was cancelled"), null while it runs: a later emit is a leaked emitter's, told which.
     */
    private volatile String ended;

    FiberProducerSubscription(Subscriber<? super T> downstream, Producer<T> producer) {
        this.downstream = downstream;
        this.producer = producer;
        this.context = downstream instanceof CoreSubscriber<?> core ? core.currentContext() : Context.empty();
    }

    @Override
    public void request(long n) {
        if (cancelled) {
            return; // rule 3.6
        }
        if (n <= 0) {
            badRequest = new IllegalArgumentException("request(" + n + ") violates Reactive Streams rule 3.9: "
                    + "a subscriber must request a positive number of elements");
            changed.signal();
            return;
        }
        long before;
        long after;
        do {
            before = demand.get();
            after = before + n < 0 ? Long.MAX_VALUE : before + n; // rule 3.17: saturate
        } while (!demand.compareAndSet(before, after));
        if (before == 0) {
            changed.signal(); // only a producer that saw zero demand can be waiting
        }
    }

    @Override
    public void cancel() {
        if (!cancelled) {
            cancelled = true;
            downstream = null;
            changed.signal();
        }
    }

    @Override
    public boolean isCancelled() {
        return cancelled;
    }

    @Override
    public void emit(T element) {
        Objects.requireNonNull(element, "emit(null): Reactive Streams forbids null elements");
        checkProducer();
        while (true) {
            Subscriber<? super T> subscriber = checkOpen();
            long current = demand.get();
            if (current > 0) {
                if (current != Long.MAX_VALUE) {
                    demand.decrementAndGet(); // only this fiber decrements: it stays >= 0
                }
                subscriber.onNext(element);
                return;
            }
            changed.await();
        }
    }

    /**
     * checkProducer() refuses an emit from anywhere but the running producer's own fiber: a leaked
     * emitter after the producer returned, or one handed to another thread or fiber, whose onNext
     * would run concurrently with the producer's (rule 1.3) and whose wait for demand could not
     * suspend the producer. A thread-type test and two volatile reads: cheap beside onNext.
     */
    private void checkProducer() {
        String end = ended;
        if (end != null) {
            throw new IllegalStateException("emit() after the producer returned: the stream " + end
                    + " already; an Emitter is valid only until produce() returns");
        }
        if (strand() != producerStrand) {
            throw new IllegalStateException("emit() called from " + Thread.currentThread()
                    + ", not from the producer's fiber: only the producer may emit, on its own fiber, which keeps "
                    + "the subscriber's signals serial; hand the elements to the producer instead (for instance "
                    + "through a queue or a Publisher it iterates with Publishers.iterate) and emit them there");
        }
    }

    /** strand() is what identifies the running producer: its fiber, or its thread where there is none. */
    private static Object strand() {
        Fiber fiber = Fiber.current();
        return fiber != null ? fiber : Thread.currentThread();
    }

    /** The subscriber, or CancellationException once cancelled or after reporting a bad request. */
    private Subscriber<? super T> checkOpen() {
        Subscriber<? super T> subscriber = downstream;
        if (cancelled || subscriber == null || terminated) {
            throw new CancellationException("the subscriber cancelled its subscription");
        }
        if (badRequest != null) {
            fail(subscriber, badRequest);
            throw new CancellationException("the subscriber broke Reactive Streams rule 3.9 and was sent onError: "
                    + badRequest.getMessage());
        }
        return subscriber;
    }

    /** The fiber task: runs the producer and ends the stream by how it returned. */
    @Override
    public void run() {
        if (cancelled) {
            return; // cancelled before the fiber started: the producer never runs
        }
        Throwable failure = null;
        producerStrand = strand();
        try {
            producer.produce(this);
        } catch (Throwable t) {
            failure = t;
        }
        Subscriber<? super T> subscriber = downstream;
        if (cancelled || subscriber == null || terminated) {
            ended = terminated ? "failed" : "was cancelled by its subscriber";
            if (failure != null && !(failure instanceof CancellationException)) {
                // Nobody to tell, but not lost: as Reactor's own sources do with an error after cancel.
                // A CancellationException is how emit told the producer to stop: no failure.
                Operators.onErrorDropped(failure, context);
            }
            return;
        }
        // Set before the terminal signal, which may make someone try the leaked emitter.
        ended = badRequest != null || failure != null ? "failed" : "completed";
        if (badRequest != null) {
            fail(subscriber, badRequest);
        } else if (failure != null) {
            fail(subscriber, failure);
        } else {
            terminated = true;
            downstream = null;
            subscriber.onComplete();
        }
    }

    /** startFailed(error) reports that the producer's task could not be enqueued. */
    void startFailed(Throwable error) {
        Subscriber<? super T> subscriber = downstream;
        if (!cancelled && subscriber != null) {
            fail(subscriber, error);
        }
    }

    private void fail(Subscriber<? super T> subscriber, Throwable error) {
        terminated = true;
        cancelled = true; // rule 1.6: after a terminal signal the subscription is cancelled
        downstream = null;
        subscriber.onError(error);
    }
}
