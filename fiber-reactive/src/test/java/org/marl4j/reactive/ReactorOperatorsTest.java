package org.marl4j.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.marl4j.Fiber;
import org.marl4j.Scheduler;
import org.marl4j.TestSchedulers;
import org.marl4j.futures.Futures;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** Reactor's own operators on a MarlScheduler, for several worker counts. */
class ReactorOperatorsTest {
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4, 8})
    void publishOn_deliversEveryElementInOrder_onMarlFibers(int workers) {
        withMarl(workers, marl -> {
            Set<Boolean> onFiber = ConcurrentHashMap.newKeySet();
            StepVerifier.create(Flux.range(0, 10_000).publishOn(marl).doOnNext(x -> onFiber.add(Fiber.current() != null)))
                    .expectNextSequence(IntStream.range(0, 10_000).boxed().toList())
                    .expectComplete()
                    .verify(TestSchedulers.PATIENCE);
            assertEquals(Set.of(true), onFiber);
        });
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void publishOn_aStageMayAwaitAFuture_andOrderIsKept(int workers) {
        withMarl(workers, marl -> {
            StepVerifier.create(Flux.range(0, 200)
                            .publishOn(marl, 16)
                            .map(x -> Futures.await(CompletableFuture.supplyAsync(() -> x * 2,
                                    CompletableFuture.delayedExecutor(x % 3, TimeUnit.MILLISECONDS)))))
                    .expectNextSequence(IntStream.range(0, 200).map(x -> x * 2).boxed().toList())
                    .expectComplete()
                    .verify(TestSchedulers.PATIENCE);
        });
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void subscribeOn_subscribesOnAFiber(int workers) {
        withMarl(workers, marl -> {
            StepVerifier.create(Mono.fromCallable(() -> Fiber.current() != null).subscribeOn(marl))
                    .expectNext(true)
                    .expectComplete()
                    .verify(TestSchedulers.PATIENCE);
        });
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void fluxInterval_ticksInOrderOnMarlTimers(int workers) {
        withMarl(workers, marl -> {
            long start = System.nanoTime();
            StepVerifier.create(Flux.interval(Duration.ofMillis(5), Duration.ofMillis(2), marl).take(10))
                    .expectNext(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L)
                    .expectComplete()
                    .verify(TestSchedulers.PATIENCE);
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(5 + 9 * 2), "ticked early");
        });
    }

    /**
     * delaySequence schedules every element, then the completion, on one Worker with the same delay:
     * it relies on the Worker running delayed tasks in the order they fall due, or elements come out
     * of order and those behind the completion are lost.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void delaySequence_keepsTheOrder_andLosesNoElement(int workers) {
        withMarl(workers, marl -> {
            List<Integer> expected = IntStream.range(0, 500).boxed().toList();
            for (int round = 0; round < 5; round++) {
                StepVerifier.create(Flux.range(0, 500).delaySequence(Duration.ofMillis(5), marl).collectList())
                        .expectNext(expected)
                        .expectComplete()
                        .verify(TestSchedulers.PATIENCE);
            }
        });
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void monoDelay_emitsAfterTheDelayOnAFiber(int workers) {
        withMarl(workers, marl -> {
            long start = System.nanoTime();
            StepVerifier.create(Mono.delay(Duration.ofMillis(20), marl).map(tick -> Fiber.current() != null))
                    .expectNext(true)
                    .expectComplete()
                    .verify(TestSchedulers.PATIENCE);
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(20), "Mono.delay fired early");
        });
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4, 8})
    void parallelRunOn_processesEveryElementOnMarlWorkerThreads(int workers) {
        withMarl(workers, marl -> {
            String prefix = marl.scheduler().config().getThreadNamePrefix();
            Set<String> threads = ConcurrentHashMap.newKeySet();
            List<Integer> sorted = Flux.range(0, 5_000)
                    .parallel(4)
                    .runOn(marl)
                    .map(x -> {
                        threads.add(Thread.currentThread().getName());
                        return x + 1;
                    })
                    .sequential()
                    .collectSortedList()
                    .block(TestSchedulers.PATIENCE);
            assertEquals(IntStream.rangeClosed(1, 5_000).boxed().toList(), sorted);
            assertTrue(threads.stream().allMatch(name -> name.startsWith(prefix)), "ran off marl workers: " + threads);
        });
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void flatMapSubscribeOn_blockingCallsWaitOnFibers(int workers) {
        withMarl(workers, marl -> {
            List<Integer> results = Flux.range(0, 500)
                    .flatMap(x -> Mono.fromCallable(() -> Futures.await(CompletableFuture.supplyAsync(() -> x,
                            CompletableFuture.delayedExecutor(1, TimeUnit.MILLISECONDS)))).subscribeOn(marl), 64)
                    .collectList()
                    .block(TestSchedulers.PATIENCE);
            assertEquals(IntStream.range(0, 500).boxed().collect(Collectors.toSet()), Set.copyOf(results));
        });
    }

    static void withMarl(int workers, Consumer<MarlScheduler> body) {
        Scheduler.Config config = TestSchedulers.config(workers);
        MarlScheduler marl = MarlScheduler.create(config);
        try {
            body.accept(marl);
        } finally {
            marl.disposeGracefully().block(TestSchedulers.PATIENCE);
            TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
        }
    }
}
