package org.marl4j.reactive;

import java.time.Duration;
import org.marl4j.Scheduler;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import org.reactivestreams.tck.SubscriberWhiteboxVerification.SubscriberPuppet;
import org.reactivestreams.tck.SubscriberWhiteboxVerification.WhiteboxSubscriberProbe;
import org.reactivestreams.tck.TestEnvironment;

/** What the Reactive Streams TCK classes of this module share. */
final class TckSupport {
    /**
     * Timeouts for a loaded 2-core CI box. A signal the TCK expects may take up to 5 s to arrive (a
     * passing test never waits that long). The no-signal window is waited in full by many tests,
     * so it stays short: a too-short window can only miss a late forbidden signal, never fail a
     * correct implementation.
     */
    static final long SIGNAL_TIMEOUT_MILLIS = 5_000;
    static final long NO_SIGNAL_TIMEOUT_MILLIS = 100;
    static final long POLL_TIMEOUT_MILLIS = 20;
    /** How long the TCK waits for a cancelled subscriber to be garbage collected (rule 3.13). */
    static final long GC_TIMEOUT_MILLIS = 10_000;

    private TckSupport() {}

    static TestEnvironment environment() {
        return new TestEnvironment(SIGNAL_TIMEOUT_MILLIS, NO_SIGNAL_TIMEOUT_MILLIS, POLL_TIMEOUT_MILLIS);
    }

    /**
     * closeWithin(scheduler, patience) closes the scheduler on a helper thread and fails, with the
     * suspended-fiber dump, if that takes longer than patience (a producer nobody cancelled).
     */
    static void closeWithin(Scheduler scheduler, Duration patience) throws InterruptedException {
        Thread closer = Thread.ofPlatform().daemon().start(scheduler::close);
        if (!closer.join(patience)) {
            throw new AssertionError("close() still waiting after " + patience + "; suspended fibers: "
                    + scheduler.suspendedFibers());
        }
    }

    /**
     * probed(subject, probe) wraps one of our subscribers for SubscriberWhiteboxVerification: every
     * signal goes to the subject first (so its own checks, such as rule 2.13's, are what the TCK
     * sees), then to the probe; the puppet requests and cancels on the subscription the TCK gave.
     */
    static <T> Subscriber<T> probed(Subscriber<T> subject, WhiteboxSubscriberProbe<T> probe) {
        return new Subscriber<>() {
            private boolean registered;

            @Override
            public void onSubscribe(Subscription s) {
                subject.onSubscribe(s);
                if (!registered) {
                    registered = true;
                    probe.registerOnSubscribe(new SubscriberPuppet() {
                        @Override
                        public void triggerRequest(long elements) {
                            s.request(elements);
                        }

                        @Override
                        public void signalCancel() {
                            s.cancel();
                        }
                    });
                }
            }

            @Override
            public void onNext(T item) {
                subject.onNext(item);
                probe.registerOnNext(item);
            }

            @Override
            public void onError(Throwable t) {
                subject.onError(t);
                probe.registerOnError(t);
            }

            @Override
            public void onComplete() {
                subject.onComplete();
                probe.registerOnComplete();
            }
        };
    }
}
