package org.marl4j.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.marl4j.Fiber;
import org.marl4j.RetainedObjects;
import org.marl4j.TestSchedulers;
import org.marl4j.WaitRounds;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * Every {@code Publishers} wait of a fiber on a long-lived publisher that ends without an outcome
 * (a {@link org.marl4j.FiberCancellation} is cancelled, a bounded {@code Scheduler.close(Duration)}
 * gives up, or a Reactor {@code timeout} fails the stream) cancels its subscription: thousands of
 * them on one hot publisher that never emits leave it with no subscriber and keeping no more than
 * it did after the first rounds ({@link RetainedObjects}).
 *
 * <p>The awaits have no timed form of their own: a time limit is Reactor's {@code timeout}
 * operator, which ends the wait with its {@link TimeoutException}.
 */
class RepeatedAwaitLeakTest {
    /** Rounds of {@link WaitRounds#WAITERS} waits on one scheduler: 3,200 waits. */
    private static final int ROUNDS = TestSchedulers.stress() ? 2_000 : 200;
    /** Rounds of a bounded close, each with a scheduler of its own: 800 waits. */
    private static final int CLOSE_ROUNDS = TestSchedulers.stress() ? 500 : 50;

    /** The ways a fiber waits on a publisher. */
    enum Await {
        FIRST(Publishers::awaitFirst),
        FIRST_OR_NULL(Publishers::awaitFirstOrNull),
        SINGLE(Publishers::awaitSingle),
        SINGLE_OR_NULL(Publishers::awaitSingleOrNull),
        LAST(Publishers::awaitLast),
        LIST(Publishers::awaitList),
        ITERATE(publisher -> {
            try (FiberIterator<Integer> elements = Publishers.iterate(publisher, 4)) {
                return elements.hasNext();
            }
        });

        private final Function<Publisher<Integer>, Object> call;

        Await(Function<Publisher<Integer>, Object> call) {
            this.call = call;
        }

        Object on(Publisher<Integer> publisher) {
            return call.apply(publisher);
        }
    }

    static Stream<Arguments> awaitsAndWorkers() {
        List<Arguments> all = new ArrayList<>();
        for (Await await : Await.values()) {
            for (int workers : new int[] {0, 1, 2, 8}) {
                all.add(Arguments.of(await, workers));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0}, {1} worker threads")
    @MethodSource("awaitsAndWorkers")
    void cancelledAwaits_leaveNoSubscriberBehind(Await await, int workers) {
        Sinks.Many<Integer> never = Sinks.many().multicast().directBestEffort();
        TestSchedulers.withBoundScheduler(workers, scheduler -> RetainedObjects.assertBoundedOverRounds(ROUNDS,
                round -> WaitRounds.runCancelled(scheduler, i -> await.on(never.asFlux())),
                gauges(never, WaitRounds.schedulerGauge(scheduler, workers))));
        assertEquals(0, never.currentSubscriberCount(), "subscribers left on the publisher");
    }

    @ParameterizedTest(name = "{0}, {1} worker threads")
    @MethodSource("awaitsAndWorkers")
    void awaitsABoundedCloseCancelled_leaveNoSubscriberBehind(Await await, int workers) {
        Sinks.Many<Integer> never = Sinks.many().multicast().directBestEffort();
        RetainedObjects.assertBoundedOverRounds(CLOSE_ROUNDS,
                round -> WaitRounds.runClosed(workers, i -> await.on(never.asFlux())), gauges(never));
        assertEquals(0, never.currentSubscriberCount(), "subscribers left on the publisher");
    }

    @ParameterizedTest(name = "{0}, {1} worker threads")
    @MethodSource("awaitsAndWorkers")
    void awaitsATimeoutFailed_leaveNoSubscriberBehind(Await await, int workers) {
        Sinks.Many<Integer> never = Sinks.many().multicast().directBestEffort();
        Flux<Integer> limited = never.asFlux().timeout(Duration.ofMillis(1));
        TestSchedulers.withBoundScheduler(workers, scheduler -> RetainedObjects.assertBoundedOverRounds(ROUNDS, round -> {
            AtomicInteger timedOut = new AtomicInteger();
            WaitRounds.run(scheduler, i -> {
                try {
                    await.on(limited);
                } catch (Exception e) { // the TimeoutException, thrown as it is though checked
                    assertInstanceOf(TimeoutException.class, e);
                    timedOut.incrementAndGet();
                }
            });
            assertEquals(WaitRounds.WAITERS, timedOut.get(), "round " + round + ": every await timed out");
        }, gauges(never, WaitRounds.schedulerGauge(scheduler, workers))));
        assertEquals(0, never.currentSubscriberCount(), "subscribers left on the publisher");
    }

    /**
     * The other direction: a {@link Publishers#publish} producer waiting in {@code emit} for demand
     * that never comes, whose subscriber cancels, unwinds and leaves nothing in the scheduler.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1, 2, 8})
    void producersWaitingForDemand_whoseSubscribersCancel_leaveNothingBehind(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            AtomicInteger unwound = new AtomicInteger();
            Publisher<Integer> producing = Publishers.publish(scheduler, emitter -> {
                try {
                    emitter.emit(1); // nothing is ever requested
                } catch (CancellationException expected) {
                    unwound.incrementAndGet();
                    throw expected;
                }
            });
            RetainedObjects.assertBoundedOverRounds(ROUNDS, round -> {
                int before = unwound.get();
                List<BaseSubscriber<Integer>> subscribers = new ArrayList<>();
                for (int i = 0; i < WaitRounds.WAITERS; i++) {
                    BaseSubscriber<Integer> silent = new BaseSubscriber<>() {
                        @Override
                        protected void hookOnSubscribe(Subscription subscription) {} // requests nothing
                    };
                    producing.subscribe(silent);
                    subscribers.add(silent);
                }
                WaitRounds.awaitBlocked(scheduler, WaitRounds.WAITERS);
                subscribers.forEach(BaseSubscriber::cancel);
                long deadline = System.nanoTime() + TestSchedulers.PATIENCE.toNanos();
                while (unwound.get() - before < WaitRounds.WAITERS) {
                    assertTrue(System.nanoTime() - deadline < 0, "round " + round + ": the producers did not unwind");
                    Fiber.yield(); // on a bound thread, runs them
                }
            }, RetainedObjects.Gauge.of("the publisher", producing), WaitRounds.schedulerGauge(scheduler, workers));
        });
    }

    /** What the publisher keeps, its subscribers (none between rounds), and any others. */
    private static RetainedObjects.Gauge[] gauges(Sinks.Many<Integer> publisher, RetainedObjects.Gauge... others) {
        List<RetainedObjects.Gauge> all = new ArrayList<>(List.of(
                RetainedObjects.Gauge.of("the publisher", publisher),
                new RetainedObjects.Gauge("its subscribers", publisher::currentSubscriberCount, 0)));
        all.addAll(List.of(others));
        return all.toArray(RetainedObjects.Gauge[]::new);
    }
}
