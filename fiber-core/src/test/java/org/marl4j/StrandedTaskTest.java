package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TaskErrors.LONG;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Tasks queued on a worker whose thread a task blocks are run by another worker, whatever the spin
 * duration, including a worker that has never had work since it started (such a worker once
 * ignored the monitor's hand-off and went back to sleep for good). The blocking tasks use plain
 * blocking calls, which hold the worker thread on the continuation engine, the engine used here.
 */
class StrandedTaskTest {
    @ParameterizedTest(name = "{0} worker threads, spin {1} µs")
    @CsvSource({"2, 0", "2, 1000", "3, 0", "4, 0"})
    void tasksQueuedBehindABlockedThread_runOnAnotherWorker(int workers, int spinMicros) throws Exception {
        assertRunOnAnotherWorker(workers, spinMicros, 16, (victim, tasks) -> {
            for (int i = 0; i < tasks.size(); i++) {
                if (i % 2 == 0) {
                    victim.work.enqueue(tasks.get(i), victim); // into the policy, under the lock
                } else {
                    assertTrue(victim.work.tryEnqueue(tasks.get(i)) != Work.NOT_ADDED); // the lock-free inbox
                }
            }
        });
    }

    @ParameterizedTest(name = "{0} worker threads, spin {1} µs")
    @CsvSource({"2, 0", "2, 1000", "3, 0"})
    void delayedTasksComingDueBehindABlockedThread_runOnAnotherWorker(int workers, int spinMicros) throws Exception {
        assertRunOnAnotherWorker(workers, spinMicros, 8, (victim, tasks) -> {
            // Filed in the blocked worker's own deadline heap, as enqueue(task, delay) from that
            // worker's tasks would: only the monitor can bring them out while it is blocked.
            long due = System.nanoTime() + Duration.ofMillis(20).toNanos();
            for (Task task : tasks) {
                Deadlines.enqueueDelayed(victim.work, new DelayedTask(task, victim), due, victim);
            }
        });
    }

    /** How a test puts its tasks on the worker whose thread a task blocks. */
    @FunctionalInterface
    private interface Placement {
        void place(Worker victim, List<Task> tasks);
    }

    /**
     * assertRunOnAnotherWorker(workers, spinMicros, count, placement) blocks the thread of one
     * worker of a new scheduler, has placement put count tasks on that worker, and fails unless all
     * of them run, none on the blocked thread, and no task throws.
     */
    private static void assertRunOnAnotherWorker(int workers, int spinMicros, int count, Placement placement)
            throws Exception {
        TaskErrors errors = new TaskErrors();
        Scheduler.Config config = errors.config(workers).setFiberEngine(FiberEngine.CONTINUATIONS).setSpinDuration(Duration.ofNanos(spinMicros * 1000L));
        AtomicInteger ran = new AtomicInteger();
        Set<Thread> ranOn = ConcurrentHashMap.newKeySet();
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Thread> blocked = new AtomicReference<>();
        try (Scheduler scheduler = new Scheduler(config)) {
            // Placed on worker 0 directly, so every other worker is still in its first sleep. (The
            // monitor may yet hand it to another worker, if worker 0's thread is slow to start.)
            blockThreadOf(scheduler.worker(0), blocked, release);
            Worker victim = workerOf(scheduler, workers, blocked.get());
            List<Task> tasks = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                tasks.add(new Task(() -> {
                    ranOn.add(Thread.currentThread());
                    ran.incrementAndGet();
                }));
            }
            placement.place(victim, tasks);
            try {
                await().atMost(LONG).until(() -> ran.get() == count);
            } finally {
                release.countDown();
            }
            assertTrue(!ranOn.contains(blocked.get()), "ran on the blocked thread: " + ranOn);
        }
        assertEquals(count, ran.get());
        errors.assertNone();
    }

    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"fifo", "priority"})
    void aStealableTaskQueuedBehindASameThreadTask_ofABlockedWorker_runsOnAnotherWorker(String policy) throws Exception {
        TaskErrors errors = new TaskErrors();
        Scheduler.Config config = errors.config(2).setFiberEngine(FiberEngine.CONTINUATIONS);
        if (policy.equals("priority")) {
            config.setSchedulingPolicy(PriorityPolicy::new);
        }
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Thread> blocked = new AtomicReference<>();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);
        try (Scheduler scheduler = new Scheduler(config)) {
            scheduler.enqueue(new Task(() -> {
                blocked.set(Thread.currentThread());
                scheduler.enqueue(new Task(() -> {}, Task.Flag.SAME_THREAD)); // first in line, and it cannot move
                scheduler.enqueue(new Task(() -> {                             // this one can
                    ranOn.set(Thread.currentThread());
                    ran.countDown();
                }));
                try {
                    release.await(LONG.toMillis(), TimeUnit.MILLISECONDS); // holds the thread
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }));
            try {
                assertTrue(ran.await(LONG.toMillis(), TimeUnit.MILLISECONDS), "stranded behind the SAME_THREAD task");
                assertTrue(ranOn.get() != blocked.get(), "ran on the blocked thread");
            } finally {
                release.countDown();
            }
        }
        errors.assertNone();
    }

    /** workerOf(scheduler, workers, thread) is the worker whose thread that is. */
    private static Worker workerOf(Scheduler scheduler, int workers, Thread thread) {
        for (int i = 0; i < workers; i++) {
            if (scheduler.worker(i).thread() == thread) {
                return scheduler.worker(i);
            }
        }
        throw new AssertionError(thread + " is no worker thread");
    }

    /**
     * blockThreadOf(worker, blocked, release) queues on worker a task that holds its thread (not
     * just its fiber) until release opens, and returns once it does, with its thread in blocked.
     */
    private static void blockThreadOf(Worker worker, AtomicReference<Thread> blocked, CountDownLatch release)
            throws InterruptedException {
        CountDownLatch blocking = new CountDownLatch(1);
        worker.work.enqueue(new Task(() -> {
            blocked.set(Thread.currentThread());
            blocking.countDown();
            try {
                release.await(LONG.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }), worker);
        assertTrue(blocking.await(LONG.toMillis(), TimeUnit.MILLISECONDS));
    }
}
