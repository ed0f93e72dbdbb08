package org.marl4j.reactive;

import org.reactivestreams.Subscriber;
import org.reactivestreams.tck.SubscriberWhiteboxVerification;

/** The Reactive Streams TCK's SubscriberWhiteboxVerification for the subscriber behind Publishers.awaitList. */
public class AwaitListSubscriberTckTest extends SubscriberWhiteboxVerification<Integer> {
    public AwaitListSubscriberTckTest() {
        super(TckSupport.environment());
    }

    @Override
    public Subscriber<Integer> createSubscriber(WhiteboxSubscriberProbe<Integer> probe) {
        return TckSupport.probed(new AwaitSubscriber<>(AwaitSubscriber.Mode.LIST), probe);
    }

    @Override
    public Integer createElement(int element) {
        return element;
    }
}
