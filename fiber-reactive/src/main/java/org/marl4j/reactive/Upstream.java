package org.marl4j.reactive;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.reactivestreams.Subscription;

/**
 * Upstream is a subscriber's side of its {@link Subscription}: it lets any thread request or cancel,
 * before or after the subscription arrives, and passes the calls on one at a time, as Reactive
 * Streams rule 2.7 requires (the awaiting fiber, the publisher's thread inside onNext and a closing
 * thread may all want to call at once).
 *
 * <p>Serialisation is a work-in-progress counter instead of a lock, so that no fiber ever holds a
 * monitor while the publisher runs inside request() (which may emit synchronously, re-enter and
 * request again: those calls are counted and replayed by the thread already draining).
 */
final class Upstream {
    private final AtomicReference<Subscription> subscription = new AtomicReference<>();
    /** Demand asked for and not yet passed on; saturates at Long.MAX_VALUE. */
    private final AtomicLong pending = new AtomicLong();
    private final AtomicInteger wip = new AtomicInteger();
    private volatile boolean cancelled;
    /** Whether cancel() reached the subscription; touched only by the draining thread. */
    private boolean cancelSent;

    /**
     * set(s) accepts the first subscription and passes on what was asked so far. A second one is
     * cancelled and false returned (rule 2.5).
     */
    boolean set(Subscription s) {
        if (!subscription.compareAndSet(null, s)) {
            s.cancel();
            return false;
        }
        drain();
        return true;
    }

    /** request(n) asks for n more elements (n > 0). */
    void request(long n) {
        long current;
        do {
            current = pending.get();
        } while (!pending.compareAndSet(current, current + n < 0 ? Long.MAX_VALUE : current + n));
        drain();
    }

    /** cancel() cancels the subscription now, or as soon as it arrives; requests after it are ignored. */
    void cancel() {
        cancelled = true;
        drain();
    }

    boolean isCancelled() {
        return cancelled;
    }

    private void drain() {
        if (wip.getAndIncrement() != 0) {
            return; // the thread already draining will see our change
        }
        int missed = 1;
        do {
            Subscription s = subscription.get();
            if (s != null && !cancelSent) {
                if (cancelled) {
                    cancelSent = true;
                    s.cancel();
                } else {
                    long n = pending.getAndSet(0);
                    if (n > 0) {
                        s.request(n);
                    }
                }
            }
            missed = wip.addAndGet(-missed);
        } while (missed != 0);
    }
}
