package org.marl4j.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.marl4j.FiberEngine;
import org.marl4j.TestSchedulers;
import org.marl4j.futures.Futures;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/**
 * The property no other Reactor scheduler has, proved with ONE worker thread: while a publishOn
 * stage waits (on a future, on a publisher), another task still runs on that same thread. Each test
 * would deadlock if the wait blocked the thread, because the only thing that ends the wait is a task
 * that needs that thread.
 */
class FiberPropertyTest {
    @Test
    void whileAPublishOnStageAwaitsAFuture_anotherTaskRunsOnTheSameThread() {
        ReactorOperatorsTest.withMarl(1, marl -> {
            CompletableFuture<String> future = new CompletableFuture<>();
            CompletableFuture<String> stageThread = new CompletableFuture<>();
            CompletableFuture<String> otherThread = new CompletableFuture<>();
            Flux<String> pipeline = Flux.just("x")
                    .publishOn(marl)
                    .map(x -> {
                        stageThread.complete(thisThread());
                        marl.schedule(() -> { // can only run if the wait below leaves the thread free
                            otherThread.complete(thisThread());
                            future.complete("completed by another task");
                        });
                        return Futures.await(future);
                    });
            StepVerifier.create(pipeline)
                    .expectNext("completed by another task")
                    .expectComplete()
                    .verify(TestSchedulers.PATIENCE);
            assertRanOnTheSameWorker(marl, TestSchedulers.get(stageThread), TestSchedulers.get(otherThread));
        });
    }

    @Test
    void whileAPublishOnStageAwaitsAPublisher_anotherTaskRunsOnTheSameThread() {
        ReactorOperatorsTest.withMarl(1, marl -> {
            Sinks.One<Integer> sink = Sinks.one();
            CompletableFuture<String> stageThread = new CompletableFuture<>();
            CompletableFuture<String> otherThread = new CompletableFuture<>();
            Flux<Integer> pipeline = Flux.range(1, 3)
                    .publishOn(marl)
                    .map(x -> {
                        if (x == 2) {
                            stageThread.complete(thisThread());
                            marl.schedule(() -> {
                                otherThread.complete(thisThread());
                                sink.tryEmitValue(40);
                            });
                            return Publishers.awaitSingle(sink.asMono()) + x;
                        }
                        return x;
                    });
            StepVerifier.create(pipeline)
                    .expectNext(1, 42, 3)
                    .expectComplete()
                    .verify(TestSchedulers.PATIENCE);
            assertRanOnTheSameWorker(marl, TestSchedulers.get(stageThread), TestSchedulers.get(otherThread));
        });
    }

    /**
     * The waiting stage and the task that ended its wait ran on the one worker, each on a fiber of
     * its own. On CONTINUATIONS a fiber runs as its worker's thread, so both saw that thread. On
     * VIRTUAL_THREADS each fiber is a virtual thread of its own, named after its worker's thread
     * ("worker/fiber"): two different ones, of the same worker.
     */
    private static void assertRanOnTheSameWorker(MarlScheduler marl, String stageThread, String otherThread) {
        if (marl.scheduler().fiberEngine() == FiberEngine.CONTINUATIONS) {
            assertEquals(stageThread, otherThread, "both ran on the single worker thread");
        } else {
            assertNotEquals(stageThread, otherThread, "the task ran on the waiting stage's own fiber");
            assertEquals(workerOf(stageThread), workerOf(otherThread), "both ran on fibers of the single worker");
        }
    }

    /** thisThread() is the current thread's name and id: the fibers of one worker share a name. */
    private static String thisThread() {
        return Thread.currentThread().getName() + "#" + Thread.currentThread().threadId();
    }

    /** workerOf(fiberThread) is the name of the worker thread that a fiber's virtual thread is named after. */
    private static String workerOf(String fiberThread) {
        int at = fiberThread.lastIndexOf("/fiber#");
        assertTrue(at > 0, fiberThread + " is not the name of a fiber's virtual thread");
        return fiberThread.substring(0, at);
    }

    @Test
    void manyPublishOnPipelinesWaitingAtOnce_shareOneThread() {
        ReactorOperatorsTest.withMarl(1, marl -> {
            int pipelines = 200;
            CompletableFuture<Void> gate = new CompletableFuture<>();
            java.util.List<reactor.core.publisher.Mono<Integer>> waiting = new java.util.ArrayList<>();
            java.util.concurrent.atomic.AtomicInteger suspended = new java.util.concurrent.atomic.AtomicInteger();
            for (int i = 0; i < pipelines; i++) {
                int n = i;
                waiting.add(reactor.core.publisher.Mono.just(n).publishOn(marl).map(x -> {
                    if (suspended.incrementAndGet() == pipelines) {
                        gate.complete(null); // the last one opens the gate for all: all waited together
                    }
                    Futures.await(gate);
                    return x;
                }));
            }
            StepVerifier.create(Flux.merge(waiting).reduce(0, Integer::sum))
                    .expectNext(pipelines * (pipelines - 1) / 2)
                    .expectComplete()
                    .verify(TestSchedulers.PATIENCE);
        });
    }
}
