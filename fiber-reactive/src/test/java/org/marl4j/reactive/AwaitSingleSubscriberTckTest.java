package org.marl4j.reactive;

import org.reactivestreams.Subscriber;
import org.reactivestreams.tck.SubscriberWhiteboxVerification;

/** The Reactive Streams TCK's SubscriberWhiteboxVerification for the subscriber behind Publishers.awaitSingle. */
public class AwaitSingleSubscriberTckTest extends SubscriberWhiteboxVerification<Integer> {
    public AwaitSingleSubscriberTckTest() {
        super(TckSupport.environment());
    }

    @Override
    public Subscriber<Integer> createSubscriber(WhiteboxSubscriberProbe<Integer> probe) {
        return TckSupport.probed(new AwaitSubscriber<>(AwaitSubscriber.Mode.SINGLE), probe);
    }

    @Override
    public Integer createElement(int element) {
        return element;
    }
}
