package org.marl4j.reactive;

import org.reactivestreams.Subscriber;
import org.reactivestreams.tck.SubscriberWhiteboxVerification;

/** The Reactive Streams TCK's SubscriberWhiteboxVerification for the subscriber behind Publishers.iterate. */
public class IterateSubscriberTckTest extends SubscriberWhiteboxVerification<Integer> {
    public IterateSubscriberTckTest() {
        super(TckSupport.environment());
    }

    @Override
    public Subscriber<Integer> createSubscriber(WhiteboxSubscriberProbe<Integer> probe) {
        return TckSupport.probed(new IteratorSubscriber<>(4), probe);
    }

    @Override
    public Integer createElement(int element) {
        return element;
    }
}
