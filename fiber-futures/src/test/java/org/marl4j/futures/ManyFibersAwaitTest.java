package org.marl4j.futures;

import org.marl4j.ForEachWorkerCount;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TestSchedulers.startThread;
import static org.marl4j.TestSchedulers.withScheduler;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.marl4j.Scheduler;
import org.marl4j.Task;
import org.marl4j.WaitGroup;

/**
 * 100,000 fibers await futures that a plain thread completes, and the worker threads never block:
 * while every one of those fibers is suspended (none of the futures is complete yet), a probe task
 * still runs on the scheduler's workers. Only after the probe has run does the completer thread
 * complete the futures. If await blocked a worker thread, the first awaiting fiber of each worker
 * would hold it, the probe (and most awaiters) could never start, and the test would time out.
 */
class ManyFibersAwaitTest {
    private static final int FIBERS = Boolean.getBoolean("stressTest") ? 1_000_000 : 100_000;

    @ForEachWorkerCount
    void hundredThousandFibersAwait_workersKeepRunningTasks(int workers) throws Exception {
        @SuppressWarnings("unchecked")
        CompletableFuture<Integer>[] futures = new CompletableFuture[FIBERS];
        for (int i = 0; i < FIBERS; i++) {
            futures[i] = new CompletableFuture<>();
        }
        AtomicIntegerArray results = new AtomicIntegerArray(FIBERS);
        AtomicInteger entered = new AtomicInteger();
        AtomicInteger probeRuns = new AtomicInteger();
        AtomicInteger completedWhenProbeRan = new AtomicInteger(-1);
        CompletableFuture<Void> probed = new CompletableFuture<>();
        Thread[] completer = new Thread[1];

        withScheduler(workers, scheduler -> {
            WaitGroup done = new WaitGroup(FIBERS);
            completer[0] = startThread("completer", () -> {
                probed.join();
                for (int i = 0; i < FIBERS; i++) {
                    futures[i].complete(i * 3);
                }
            });
            for (int i = 0; i < FIBERS; i++) {
                int index = i;
                scheduler.enqueue(new Task(() -> {
                    if (entered.incrementAndGet() == FIBERS) {
                        // The last awaiter schedules the probe; all others are suspended by now or
                        // about to be, and none of the futures can complete before the probe runs.
                        Scheduler.get().enqueue(new Task(() -> probe(futures, probeRuns, completedWhenProbeRan, probed)));
                    }
                    results.set(index, Futures.await(futures[index]));
                    done.done();
                }));
            }
            done.await(); // with 0 workers this runs every task here, on the bound thread
        });
        completer[0].join(TimeUnit.SECONDS.toMillis(30));

        assertEquals(1, probeRuns.get(), "the probe task ran while the awaiting fibers were suspended");
        assertEquals(0, completedWhenProbeRan.get(), "no future was complete when the probe ran");
        for (int i = 0; i < FIBERS; i++) {
            if (results.get(i) != i * 3) {
                assertEquals(i * 3, results.get(i), "fiber " + i + " got the wrong value");
            }
        }
        assertTrue(probed.isDone());
    }

    private static void probe(CompletableFuture<Integer>[] futures, AtomicInteger runs, AtomicInteger completed,
            CompletableFuture<Void> probed) {
        runs.incrementAndGet();
        int count = 0;
        for (CompletableFuture<Integer> future : futures) {
            if (future.isDone()) {
                count++;
            }
        }
        completed.set(count);
        probed.complete(null); // lets the completer thread start
    }
}
