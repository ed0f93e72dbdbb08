package org.marl4j.reactive;

import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.marl4j.Event;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * AwaitSubscriber is the subscriber behind {@code Publishers.await*}: it collects what its
 * {@link Mode} needs and opens a one-shot gate (a MANUAL {@link Event}, which suspends a fiber and
 * blocks a plain thread) when the outcome is known.
 *
 * <p>Demand: the first-element modes request 1 and cancel once it arrives; the single-element modes
 * request 2, enough to see a second element, and cancel when one does; last and list request
 * everything. Signals arrive serially (rule 1.3), so the fields below need no lock; they are written
 * before the gate opens and read after it opened, and the Event's lock orders the two.
 */
final class AwaitSubscriber<T> implements Subscriber<T> {
    /** What the caller waits for, as kotlinx.coroutines.reactive's await modes. */
    enum Mode {
        FIRST(1, true), FIRST_OR_NULL(1, false), SINGLE(2, true), SINGLE_OR_NULL(2, false),
        LAST(Long.MAX_VALUE, true), LIST(Long.MAX_VALUE, false);

        final long request;
        final boolean needsElement;

        Mode(long request, boolean needsElement) {
            this.request = request;
            this.needsElement = needsElement;
        }
    }

    private final Mode mode;
    private final Upstream upstream = new Upstream();
    private final Event finished = new Event(Event.Mode.MANUAL);
    private final List<T> list;
    private T value;
    private boolean seen;
    private Throwable error;
    /** Set at the first terminal outcome; later signals are ignored (rule 2.8: they may still come). */
    private boolean done;

    AwaitSubscriber(Mode mode) {
        this.mode = mode;
        this.list = mode == Mode.LIST ? new ArrayList<>() : null;
    }

    @Override
    public void onSubscribe(Subscription s) {
        Objects.requireNonNull(s, "onSubscribe(null) violates Reactive Streams rule 2.13");
        if (upstream.set(s)) {
            upstream.request(mode.request);
        }
    }

    @Override
    public void onNext(T item) {
        Objects.requireNonNull(item, "onNext(null) violates Reactive Streams rule 2.13");
        if (done) {
            return;
        }
        switch (mode) {
            case FIRST, FIRST_OR_NULL -> {
                value = item;
                seen = true;
                upstream.cancel();
                finish(null);
            }
            case SINGLE, SINGLE_OR_NULL -> {
                if (seen) {
                    upstream.cancel();
                    finish(new IllegalArgumentException("the publisher emitted more than one element; awaitSingle "
                            + "expects exactly one (use awaitFirst to take the first)"));
                } else {
                    value = item;
                    seen = true;
                }
            }
            case LAST -> {
                value = item;
                seen = true;
            }
            case LIST -> list.add(item);
        }
    }

    @Override
    public void onError(Throwable t) {
        Objects.requireNonNull(t, "onError(null) violates Reactive Streams rule 2.13");
        if (!done) {
            finish(t);
        }
    }

    @Override
    public void onComplete() {
        if (done) {
            return;
        }
        if (mode.needsElement && !seen) {
            finish(new NoSuchElementException("the publisher completed without emitting any element"));
        } else {
            finish(null);
        }
    }

    private void finish(Throwable failure) {
        done = true;
        error = failure;
        finished.signal();
    }

    /**
     * await() waits for the outcome and returns it (the element, null, or the list), or throws the
     * failure as itself. If the wait itself throws (a bounded Scheduler close cancelling this fiber)
     * or is refused (a Reactor non-blocking thread), the upstream is cancelled first.
     */
    @SuppressWarnings("unchecked")
    Object await() {
        try {
            if (!finished.isSignalled()) {
                Publishers.checkMayWait("Publishers.await*");
            }
            finished.await();
        } catch (RuntimeException | Error cancelled) {
            upstream.cancel();
            throw cancelled;
        }
        if (error != null) {
            throw Publishers.<RuntimeException>sneaky(error);
        }
        return mode == Mode.LIST ? list : seen ? value : null;
    }
}
