package org.marl4j.reactive;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TestSchedulers.PATIENCE;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.marl4j.Fiber;
import org.marl4j.FiberEngine;
import org.marl4j.TestSchedulers;
import org.marl4j.WaitGroup;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Reactor's own schedulers on marl4j through {@link MarlSchedulersFactory}. Each test sets the JVM's
 * Reactor factory with a snapshot and restores it afterwards, so the schedulers other tests cached
 * (Schedulers.parallel(), ...) survive untouched; {@link Isolated} keeps it from running beside them
 * should the suite ever run in parallel.
 */
@Isolated
class MarlSchedulersFactoryTest {
    private org.marl4j.Scheduler marl;
    private String prefix;
    private Schedulers.Snapshot before;

    @BeforeEach
    void setFactory() {
        org.marl4j.Scheduler.Config config = TestSchedulers.config(2);
        prefix = config.getThreadNamePrefix();
        marl = new org.marl4j.Scheduler(config);
        before = Schedulers.setFactoryWithSnapshot(MarlSchedulersFactory.of(marl));
    }

    @AfterEach
    void restoreFactory() {
        Schedulers.resetFrom(before);
        marl.close();
        TestSchedulers.assertNoThreadsLeft(prefix);
    }

    /** onMarl() is whether the caller runs on one of marl's fibers, on one of its worker threads. */
    private boolean onMarl() {
        return Fiber.current() != null && TestSchedulers.workerThread().getName().startsWith(prefix);
    }

    private boolean boundedElasticOnMarl() {
        return marl.fiberEngine() == FiberEngine.VIRTUAL_THREADS;
    }

    private static Scheduler cached(Scheduler scheduler) {
        @SuppressWarnings("unchecked")
        Supplier<Scheduler> cache = (Supplier<Scheduler>) scheduler; // Reactor's CachedScheduler
        return cache.get();
    }

    @Test
    void reactorsSchedulersAreMarlSchedulersOverTheBorrowedScheduler() {
        for (Scheduler s : List.of(Schedulers.parallel(), Schedulers.single(), Schedulers.newParallel("p", 3),
                Schedulers.newSingle("s"))) {
            Scheduler inner = s instanceof Supplier<?> ? cached(s) : s;
            MarlScheduler marlScheduler = assertInstanceOf(MarlScheduler.class, inner, s.toString());
            assertSame(marl, marlScheduler.scheduler());
        }
        Scheduler elastic = cached(Schedulers.boundedElastic());
        assertEquals(boundedElasticOnMarl(), elastic instanceof MarlScheduler, elastic.toString());
        assertEquals(boundedElasticOnMarl(), Schedulers.newBoundedElastic(4, 100, "b") instanceof MarlScheduler);
    }

    @Test
    void intervalTicksOnMarlsFibers() {
        List<Boolean> ticks = Flux.interval(Duration.ofMillis(2)).take(5).map(tick -> onMarl()).collectList().block(PATIENCE);
        assertEquals(List.of(true, true, true, true, true), ticks);
    }

    @Test
    void delayDelayElementsAndDelaySubscriptionRunOnMarlsFibers() {
        assertTrue(Mono.delay(Duration.ofMillis(1)).map(zero -> onMarl()).block(PATIENCE));
        List<Boolean> delayed = Flux.range(1, 3).delayElements(Duration.ofMillis(1)).map(i -> onMarl())
                .collectList().block(PATIENCE);
        // The first element may be emitted by the subscribing thread, should its delay end before that
        // thread has left the subscription (Reactor's drain: whoever finishes last emits); the later
        // ones are requested from the timer, on marl.
        assertEquals(List.of(true, true), delayed.subList(1, 3), delayed.toString());
        assertTrue(Mono.fromCallable(this::onMarl).delaySubscription(Duration.ofMillis(1)).block(PATIENCE));
    }

    @Test
    void timeoutFiresOnMarlsFibers() {
        AtomicBoolean onMarl = new AtomicBoolean();
        Mono<Object> timedOut = Mono.never().timeout(Duration.ofMillis(5)).doOnError(e -> onMarl.set(onMarl()));
        assertThrows(TimeoutException.class, () -> {
            try {
                timedOut.block(PATIENCE);
            } catch (RuntimeException e) {
                throw reactor.core.Exceptions.unwrap(e);
            }
        });
        assertTrue(onMarl.get(), "the timeout's timer ran on marl");
    }

    @Test
    void publishOnAndSubscribeOnReactorsSchedulersRunOnMarlsFibers() {
        assertTrue(Mono.fromCallable(this::onMarl).subscribeOn(Schedulers.single()).block(PATIENCE));
        assertEquals(List.of(true, true), Flux.just(1, 2).publishOn(Schedulers.parallel()).map(i -> onMarl())
                .collectList().block(PATIENCE));
        boolean elastic = Mono.fromCallable(() -> {
            Thread.sleep(1); // blocking is what boundedElastic is for
            return onMarl();
        }).subscribeOn(Schedulers.boundedElastic()).block(PATIENCE);
        assertEquals(boundedElasticOnMarl(), elastic);
    }

    @Test
    void singleRunsItsDirectTasksOneAtATimeInOrder() {
        Scheduler single = Schedulers.single();
        int tasks = 200;
        AtomicInteger inFlight = new AtomicInteger();
        AtomicBoolean overlapped = new AtomicBoolean();
        List<Integer> order = new CopyOnWriteArrayList<>();
        WaitGroup done = new WaitGroup(tasks);
        for (int i = 0; i < tasks; i++) {
            int n = i;
            single.schedule(() -> {
                if (inFlight.incrementAndGet() > 1) {
                    overlapped.set(true);
                }
                Fiber.yield(); // lets the worker run other fibers: a second task of single() must not be one
                order.add(n);
                inFlight.decrementAndGet();
                done.done();
            });
        }
        done.await();
        assertFalse(overlapped.get(), "two tasks of single() ran at once");
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < tasks; i++) {
            expected.add(i);
        }
        assertEquals(expected, order);
    }

    @Test
    void shutdownNowDisposesTheCachedSchedulersButNotTheMarlScheduler() {
        Scheduler parallel = Schedulers.parallel();
        Scheduler inner = cached(parallel);
        Schedulers.shutdownNow();
        assertTrue(inner.isDisposed());
        assertFalse(marl.isClosed());
        Scheduler fresh = Schedulers.parallel();
        assertInstanceOf(MarlScheduler.class, cached(fresh));
        assertTrue(Mono.fromCallable(this::onMarl).subscribeOn(fresh).block(PATIENCE));
    }

    @Test
    void disposingANewParallelStopsTheIntervalOnItAndLeavesMarlOpen() {
        Scheduler scheduler = Schedulers.newParallel("ticker");
        AtomicLong ticks = new AtomicLong();
        Disposable interval = Flux.interval(Duration.ofMillis(1), scheduler).subscribe(tick -> ticks.incrementAndGet());
        try {
            await().atMost(PATIENCE).until(() -> ticks.get() >= 3);
            scheduler.dispose();
            assertTrue(scheduler.isDisposed());
            long atDispose = ticks.get();
            // A tick already running may still land; none after it.
            await().during(Duration.ofMillis(50)).atMost(PATIENCE).until(() -> ticks.get() <= atDispose + 1);
            assertThrows(java.util.concurrent.RejectedExecutionException.class, () -> scheduler.schedule(() -> {}));
            assertFalse(marl.isClosed());
            assertTrue(Mono.fromCallable(this::onMarl).subscribeOn(Schedulers.parallel()).block(PATIENCE));
        } finally {
            interval.dispose();
        }
    }

    @Test
    void resetFactoryPutsReactorsOwnSchedulersBackAndLeavesMarlOpen() {
        assertTrue(Mono.fromCallable(this::onMarl).subscribeOn(Schedulers.parallel()).block(PATIENCE));
        Schedulers.resetFactory();
        assertFalse(cached(Schedulers.parallel()) instanceof MarlScheduler);
        assertFalse(Flux.interval(Duration.ofMillis(1)).take(1).map(tick -> onMarl()).blockLast(PATIENCE));
        assertFalse(marl.isClosed());
    }

    @Test
    void ofRefusesANullSchedulerOrOneWithoutWorkerThreads() {
        NullPointerException noScheduler = assertThrows(NullPointerException.class, () -> MarlSchedulersFactory.of(null));
        assertTrue(noScheduler.getMessage().contains("scheduler must not be null"), noScheduler.getMessage());
        try (org.marl4j.Scheduler noWorkers = new org.marl4j.Scheduler(TestSchedulers.config(0))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MarlSchedulersFactory.of(noWorkers));
            assertTrue(e.getMessage().contains("setWorkerThreadCount"), e.getMessage());
        }
    }
}
