package org.marl4j.reactive;

import org.reactivestreams.Subscriber;
import org.reactivestreams.tck.SubscriberWhiteboxVerification;

/** The Reactive Streams TCK's SubscriberWhiteboxVerification for the subscriber behind Publishers.awaitFirst. */
public class AwaitFirstSubscriberTckTest extends SubscriberWhiteboxVerification<Integer> {
    public AwaitFirstSubscriberTckTest() {
        super(TckSupport.environment());
    }

    @Override
    public Subscriber<Integer> createSubscriber(WhiteboxSubscriberProbe<Integer> probe) {
        return TckSupport.probed(new AwaitSubscriber<>(AwaitSubscriber.Mode.FIRST), probe);
    }

    @Override
    public Integer createElement(int element) {
        return element;
    }
}
