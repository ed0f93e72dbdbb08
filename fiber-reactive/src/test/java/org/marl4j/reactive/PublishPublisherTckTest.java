package org.marl4j.reactive;

import java.time.Duration;
import org.marl4j.Scheduler;
import org.marl4j.TestSchedulers;
import org.reactivestreams.Publisher;
import org.reactivestreams.tck.PublisherVerification;
import org.testng.annotations.AfterClass;
import org.testng.annotations.BeforeClass;

/** The Reactive Streams TCK's PublisherVerification for {@link Publishers#publish}, on two workers. */
public class PublishPublisherTckTest extends PublisherVerification<Long> {
    private Scheduler scheduler;

    public PublishPublisherTckTest() {
        super(TckSupport.environment(), TckSupport.GC_TIMEOUT_MILLIS);
    }

    @BeforeClass
    public void startScheduler() {
        scheduler = new Scheduler(TestSchedulers.config(2));
    }

    @AfterClass
    public void closeScheduler() throws InterruptedException {
        TckSupport.closeWithin(scheduler, Duration.ofSeconds(30));
    }

    @Override
    public Publisher<Long> createPublisher(long elements) {
        return Publishers.publish(scheduler, emitter -> {
            for (long i = 0; i < elements; i++) {
                emitter.emit(i);
            }
        });
    }

    @Override
    public Publisher<Long> createFailedPublisher() {
        return Publishers.publish(scheduler, emitter -> {
            throw new IllegalStateException("the failed publisher of the TCK");
        });
    }
}
