package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TaskErrors.LONG;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * On the virtual-thread engine a fiber that the JVM cannot unmount (here: blocked inside a class
 * initializer, which pins a virtual thread as a native frame does) holds its worker thread, as any
 * blocking task does on the continuation engine: the monitor reports it, and the tasks queued
 * behind it are run by another worker.
 */
class VirtualThreadPinnedTest {
    /** What the next initialisation of {@link PinnedBlock} runs, inside its class initializer. */
    private static final AtomicReference<Runnable> IN_INITIALIZER = new AtomicReference<>();

    /** A class whose initializer runs {@link #IN_INITIALIZER}: initialised once per JVM, by the one test here. */
    private static final class PinnedBlock {
        static {
            IN_INITIALIZER.get().run();
        }

        static void touch() {}
    }

    @Test
    void aPinnedFiberBlockingItsWorker_isReported_andTheTasksBehindItRunOnAnotherWorker() {
        TaskErrors errors = new TaskErrors();
        Scheduler.Config config = errors.config(2).setFiberEngine(FiberEngine.VIRTUAL_THREADS)
                .setSpinDuration(Duration.ZERO).setBlockingTaskThreshold(Duration.ofMillis(20));
        int quick = 16;
        CountDownLatch ran = new CountDownLatch(quick);
        AtomicInteger released = new AtomicInteger();
        AtomicReference<String> threadInside = new AtomicReference<>();
        try (Scheduler scheduler = new Scheduler(config)) {
            CountDownLatch blockerDone = new CountDownLatch(1);
            IN_INITIALIZER.set(() -> {
                threadInside.set(Thread.currentThread().toString());
                for (int i = 0; i < quick; i++) {
                    scheduler.enqueue(new Task(ran::countDown));
                }
                try {
                    if (ran.await(LONG.toMillis(), TimeUnit.MILLISECONDS)) { // pinned: blocks the worker thread
                        released.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                // Still pinned: held past the blocking-task threshold, the monitor reports it.
                await().atMost(LONG).until(() -> scheduler.stats().tasksBlocking() >= 1);
            });
            scheduler.enqueue(new Task(() -> {
                PinnedBlock.touch();
                blockerDone.countDown();
            }));
            await().atMost(LONG.plusSeconds(5)).until(() -> blockerDone.getCount() == 0);
        }
        assertTrue(threadInside.get().startsWith("VirtualThread"), "the task ran on " + threadInside.get());
        assertEquals(1, released.get(), "tasks stayed stranded behind the pinned fiber");
        errors.assertNone();
    }
}
