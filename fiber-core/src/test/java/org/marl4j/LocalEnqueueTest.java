package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TaskErrors.LONG;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Where an enqueue goes. A task enqueued from one of the scheduler's worker threads goes onto that
 * worker's own queue: it runs there, in FIFO order with the worker's other tasks, unless
 * another worker steals it; and a worker blocked in a task never strands it, whatever the spin
 * duration. Tasks enqueued from outside while no worker has spun lately are dealt round-robin.
 */
class LocalEnqueueTest {

    /** blockOthers(scheduler, workers, release) occupies every worker but 0 with a task blocking its thread. */
    private static void blockOthers(Scheduler scheduler, int workers, CountDownLatch release) throws InterruptedException {
        block(scheduler, 1, workers, release);
    }

    /** block(scheduler, from, workers, release) occupies workers from..workers-1 with a task blocking its thread. */
    private static void block(Scheduler scheduler, int from, int workers, CountDownLatch release) throws InterruptedException {
        CountDownLatch blocking = new CountDownLatch(workers - from);
        for (int i = from; i < workers; i++) {
            Worker w = scheduler.worker(i);
            w.work.enqueue(new Task(() -> {
                blocking.countDown();
                awaitLatch(release);
            }), w);
        }
        assertTrue(blocking.await(LONG.toMillis(), TimeUnit.MILLISECONDS), "the workers did not start blocking");
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            assertTrue(latch.await(LONG.toMillis(), TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void tasksEnqueuedFromAWorker_runThere_inOrder_whileTheOthersAreBusy(int workers) throws Exception {
        TaskErrors errors = new TaskErrors();
        int count = 1000;
        List<Integer> order = new ArrayList<>(); // touched only on worker 0's thread, then read after the latch
        AtomicReference<Thread> maker = new AtomicReference<>();
        Map<Thread, Boolean> ranOn = new ConcurrentHashMap<>();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        // The others are held by tasks blocking their threads: the continuation engine's way.
        try (Scheduler scheduler = new Scheduler(errors.config(workers).setFiberEngine(FiberEngine.CONTINUATIONS))) {
            blockOthers(scheduler, workers, release);
            Worker first = scheduler.worker(0);
            first.work.enqueue(new Task(() -> {
                maker.set(TestSchedulers.workerThread());
                for (int i = 0; i < count; i++) {
                    int n = i;
                    scheduler.enqueue(new Task(() -> {
                        ranOn.put(TestSchedulers.workerThread(), true);
                        order.add(n);
                        if (n == count - 1) {
                            done.countDown();
                        }
                    }));
                }
            }), first);
            try {
                // With marl's round-robin most of them would land behind the blocked workers.
                assertTrue(done.await(LONG.toMillis(), TimeUnit.MILLISECONDS), "the tasks did not all run");
            } finally {
                release.countDown();
            }
            assertEquals(Map.of(maker.get(), true), ranOn, "they ran elsewhere than on their maker's worker");
            for (int i = 0; i < count; i++) {
                assertEquals(i, order.get(i), "not in FIFO order");
            }
        }
        errors.assertNone();
    }

    @org.junit.jupiter.api.Test
    void aSameThreadTaskEnqueuedAfterAPlainOne_onAWorkerThread_runsAfterIt() throws Exception {
        TaskErrors errors = new TaskErrors();
        List<String> order = java.util.Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(2);
        try (Scheduler scheduler = new Scheduler(errors.config(1))) {
            scheduler.enqueue(new Task(() -> {
                scheduler.enqueue(new Task(() -> {
                    order.add("plain");
                    done.countDown();
                }));
                scheduler.enqueue(new Task(() -> {
                    order.add("sameThread");
                    done.countDown();
                }, Task.Flag.SAME_THREAD));
            }));
            assertTrue(done.await(LONG.toMillis(), TimeUnit.MILLISECONDS), "the tasks did not both run");
        }
        assertEquals(List.of("plain", "sameThread"), order, "a task overtook one its maker enqueued before it");
        errors.assertNone();
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void aBurstMadeOnAWorker_isStolenInBatches_withNoTaskLostOrRunTwice(int workers) throws Exception {
        // Thieves take half a queue at a time (and may steal back from each other), so only each
        // worker's own queue is FIFO, not the order across threads; what must hold is exactly once.
        TaskErrors errors = new TaskErrors();
        int count = 20_000;
        java.util.concurrent.atomic.AtomicIntegerArray runs = new java.util.concurrent.atomic.AtomicIntegerArray(count);
        CountDownLatch done = new CountDownLatch(count);
        try (Scheduler scheduler = new Scheduler(errors.config(workers))) {
            Worker first = scheduler.worker(0);
            first.work.enqueue(new Task(() -> {
                for (int i = 0; i < count; i++) {
                    int n = i;
                    scheduler.enqueue(new Task(() -> {
                        runs.incrementAndGet(n);
                        done.countDown();
                    }));
                }
            }), first);
            assertTrue(done.await(LONG.toMillis(), TimeUnit.MILLISECONDS), "the tasks did not all run");
        }
        for (int i = 0; i < count; i++) {
            assertEquals(1, runs.get(i), "task " + i + " ran " + runs.get(i) + " times");
        }
        errors.assertNone();
    }

    @ParameterizedTest(name = "{0} worker threads, spin {1} µs")
    @CsvSource({"2, 0", "2, 1000", "4, 0", "4, 1000"})
    void theOnlyTaskBehindAWorkerThatBlocksItsThread_isTakenByAnIdleWorker(int workers, int spinMicros) throws Exception {
        TaskErrors errors = new TaskErrors();
        // A task that blocks its thread with a plain latch: the continuation engine's way of holding a worker.
        Scheduler.Config config = errors.config(workers).setFiberEngine(FiberEngine.CONTINUATIONS)
                .setSpinDuration(Duration.ofNanos(spinMicros * 1000L));
        AtomicReference<Thread> blocked = new AtomicReference<>();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);
        try (Scheduler scheduler = new Scheduler(config)) {
            Worker first = scheduler.worker(0);
            first.work.enqueue(new Task(() -> {
                blocked.set(TestSchedulers.workerThread());
                scheduler.enqueue(new Task(() -> {
                    ranOn.set(TestSchedulers.workerThread());
                    ran.countDown();
                }));
                awaitLatch(ran); // blocks the thread, not the fiber, until another worker ran it
            }), first);
            await().atMost(LONG).until(() -> ran.getCount() == 0);
            assertNotEquals(blocked.get(), ranOn.get());
        }
        errors.assertNone();
    }

    @ParameterizedTest(name = "spin {0} µs")
    @ValueSource(ints = {0, 1000})
    void aTaskEnqueuedByATaskOnAnotherWorker_staysLocal_evenWithAnIdleWorker(int spinMicros) throws Exception {
        // A chain of tasks, each enqueuing the next: with a free worker the chain may migrate (by a
        // steal), but each hop is not sent across by the enqueue itself, so most hops stay put.
        TaskErrors errors = new TaskErrors();
        Scheduler.Config config = errors.config(2).setSpinDuration(Duration.ofNanos(spinMicros * 1000L));
        int hops = 2000;
        Thread[] threads = new Thread[hops];
        CountDownLatch done = new CountDownLatch(1);
        try (Scheduler scheduler = new Scheduler(config)) {
            scheduler.enqueue(new Task(new Runnable() {
                int hop;

                @Override
                public void run() {
                    threads[hop] = TestSchedulers.workerThread();
                    if (++hop == hops) {
                        done.countDown();
                    } else {
                        scheduler.enqueue(new Task(this));
                    }
                }
            }));
            assertTrue(done.await(LONG.toMillis(), TimeUnit.MILLISECONDS));
        }
        int moves = 0;
        for (int i = 1; i < hops; i++) {
            moves += threads[i] != threads[i - 1] ? 1 : 0;
        }
        // Round-robin moved every hop (about hops - 1); a steal of a busy worker's only task needs
        // it to stall. Generous, so a loaded machine cannot fail it, yet far from round-robin.
        assertTrue(moves < hops / 4, moves + " of " + hops + " hops changed thread");
        errors.assertNone();
    }

    @ParameterizedTest(name = "spin {0} µs")
    @ValueSource(ints = {0, 50})
    void aLoneTaskMadeOnAWorker_leavesTheIdleWorkerAsleep(int spinMicros) throws Exception {
        // A lone task made on a worker runs there as soon as its maker returns, and an idle worker
        // would leave a busy worker's only fresh task alone anyway: waking one for it only sends it
        // back to sleep, a futex round trip per hand-off (a coroutine resuming another did this
        // on every resume). So the sleeping worker stays asleep. A worker stalled in its task is
        // still relieved: see theOnlyTaskBehindAWorkerThatBlocksItsThread_isTakenByAnIdleWorker.
        TaskErrors errors = new TaskErrors();
        Scheduler.Config config = errors.config(2).setSpinDuration(Duration.ofNanos(spinMicros * 1000L));
        int rounds = 200;
        try (Scheduler scheduler = new Scheduler(config)) {
            Worker maker = scheduler.worker(0);
            Worker idle = scheduler.worker(1);
            await().atMost(LONG).until(() -> idle.work.activity() == Work.IDLE);
            long sleepsBefore = idle.stats.idleSleeps;
            for (int round = 0; round < rounds; round++) {
                CountDownLatch ran = new CountDownLatch(1);
                maker.work.enqueue(new Task(() -> scheduler.enqueue(new Task(ran::countDown))), maker);
                assertTrue(ran.await(LONG.toMillis(), TimeUnit.MILLISECONDS));
                await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(LONG)
                        .until(() -> idle.work.activity() == Work.IDLE);
            }
            long wakes = idle.stats.idleSleeps - sleepsBefore;
            // One wake per lone task would be ~rounds; the monitor may send the idle worker to a
            // maker it caught between two samples on a loaded machine, a few times at most.
            assertTrue(wakes < rounds / 10, "the idle worker was woken " + wakes + " times for " + rounds + " lone tasks");
        }
        errors.assertNone();
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void tasksEnqueuedFromOutside_whileEveryWorkerIsBusy_areDealtOnePerWorker(int workers) throws Exception {
        TaskErrors errors = new TaskErrors();
        CountDownLatch release = new CountDownLatch(1);
        // Every worker is held by a task blocking its thread: the continuation engine's way.
        try (Scheduler scheduler = new Scheduler(errors.config(workers).setFiberEngine(FiberEngine.CONTINUATIONS))) {
            CountDownLatch ran = new CountDownLatch(workers);
            try {
                block(scheduler, 0, workers, release);
                // Nobody spins (every worker blocks its thread); clear the ring of workers that spun
                // before, which an enqueue would prefer, so each enqueue takes the next worker in turn.
                for (int i = 0; i < IdleWorkers.SPINNING_WORKER_SLOTS; i++) {
                    scheduler.idle.takeSpinning();
                }
                for (int i = 0; i < workers; i++) {
                    scheduler.enqueue(new Task(ran::countDown));
                }
                for (int i = 0; i < workers; i++) {
                    assertEquals(1, scheduler.worker(i).work.tasksQueued(), "tasks queued on worker " + i);
                }
            } finally {
                release.countDown();
            }
            assertTrue(ran.await(LONG.toMillis(), TimeUnit.MILLISECONDS), "the dealt tasks did not all run");
        }
        errors.assertNone();
    }
}
