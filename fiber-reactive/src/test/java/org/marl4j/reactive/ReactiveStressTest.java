package org.marl4j.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.marl4j.ForEachWorkerCount;
import org.marl4j.TestSchedulers;
import org.reactivestreams.Publisher;
import reactor.core.scheduler.Scheduler;

/**
 * Bounded stress: many fiber producers feeding many fiber consumers at once (every worker count,
 * 0 included: then everything runs on the bound test thread), and many Reactor workers fed from
 * several threads at once. More rounds with -DstressTest=true.
 */
class ReactiveStressTest {
    private static final int ROUNDS = TestSchedulers.stress() ? 20 : 2;

    @ForEachWorkerCount
    void manyPublishersIteratedByManyFibers_deliverEverythingInOrder(int workers) {
        TestSchedulers.withScheduler(workers, scheduler -> {
            for (int round = 0; round < ROUNDS; round++) {
                int pipelines = 32;
                int elements = 500;
                List<CompletableFuture<Long>> sums = new ArrayList<>();
                for (int p = 0; p < pipelines; p++) {
                    int prefetch = 1 + p % 8;
                    Publisher<Integer> source = Publishers.publish(scheduler, emitter -> {
                        for (int i = 0; i < elements; i++) {
                            emitter.emit(i);
                        }
                    });
                    sums.add(TestSchedulers.onFiber(scheduler, () -> {
                        long sum = 0;
                        int expected = 0;
                        try (FiberIterator<Integer> it = Publishers.iterate(source, prefetch)) {
                            while (it.hasNext()) {
                                int x = it.next();
                                assertEquals(expected++, x);
                                sum += x;
                            }
                        }
                        return sum;
                    }));
                }
                for (CompletableFuture<Long> sum : sums) {
                    assertEquals((long) elements * (elements - 1) / 2, TestSchedulers.get(sum));
                }
            }
        });
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4, 8})
    void reactorWorkersFedFromSeveralThreads_keepEachWorkersOrderAndNeverOverlap(int workers) {
        ReactorOperatorsTest.withMarl(workers, marl -> {
            for (int round = 0; round < ROUNDS; round++) {
                int producers = 4;
                int tasks = 2_000;
                List<Scheduler.Worker> rworkers = new ArrayList<>();
                List<List<Integer>> seen = new ArrayList<>();
                AtomicBoolean overlap = new AtomicBoolean();
                AtomicInteger done = new AtomicInteger();
                List<Thread> threads = new ArrayList<>();
                for (int p = 0; p < producers; p++) {
                    Scheduler.Worker worker = marl.createWorker();
                    List<Integer> order = new ArrayList<>(); // touched only by this worker's tasks, one at a time
                    AtomicInteger running = new AtomicInteger();
                    rworkers.add(worker);
                    seen.add(order);
                    threads.add(TestSchedulers.startThread("feeder-" + p, () -> {
                        for (int i = 0; i < tasks; i++) {
                            int n = i;
                            worker.schedule(() -> {
                                if (running.incrementAndGet() != 1) {
                                    overlap.set(true);
                                }
                                order.add(n);
                                running.decrementAndGet();
                                done.incrementAndGet();
                            });
                        }
                    }));
                }
                threads.forEach(org.marl4j.TaskErrors::join);
                org.awaitility.Awaitility.await().atMost(TestSchedulers.PATIENCE).until(() -> done.get() == producers * tasks);
                assertFalse(overlap.get(), "two tasks of one worker overlapped");
                for (List<Integer> order : seen) {
                    assertEquals(java.util.stream.IntStream.range(0, tasks).boxed().toList(), order);
                }
                rworkers.forEach(Scheduler.Worker::dispose);
            }
        });
    }
}
