package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TaskErrors.LONG;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SchedulerStatsTest {

    @ForEachWorkerCount
    void countsTasksRunAndFibersCreatedExactlyAfterClose(int workers) {
        AtomicReference<Scheduler> held = new AtomicReference<>();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            held.set(scheduler);
            int tasks = 1_000;
            Event release = new Event(Event.Mode.MANUAL);
            WaitGroup blocked = new WaitGroup(10);
            WaitGroup done = new WaitGroup(tasks + 10);
            for (int i = 0; i < 10; i++) {
                Marl.schedule(() -> {
                    blocked.done();
                    release.await();
                    done.done();
                });
            }
            blocked.await();
            // A task counts itself in `blocked` just before it waits: on worker threads some may be between the two.
            await().atMost(TestSchedulers.PATIENCE).until(() -> scheduler.stats().fibersBlocked() == 10);
            Scheduler.Stats whileBlocked = scheduler.stats();
            assertEquals(10, whileBlocked.fibersBlocked(), whileBlocked.toString());
            // Each started before it counted itself blocked, none has completed: exact, not racy.
            assertEquals(10, whileBlocked.tasksRun() - whileBlocked.tasksCompleted(), whileBlocked.toString());
            release.signal();
            for (int i = 0; i < tasks; i++) {
                Marl.schedule(done::done);
            }
            done.await();
        });
        Scheduler.Stats stats = held.get().stats();
        assertEquals(1_010, stats.tasksRun(), stats.toString());
        assertEquals(1_010, stats.tasksCompleted(), stats.toString());
        assertEquals(0, stats.tasksQueued(), stats.toString());
        assertEquals(0, stats.tasksRunning(), stats.toString());
        assertEquals(workers, stats.workerThreads(), stats.toString());
        assertEquals(0, stats.boundThreads(), stats.toString());
        assertTrue(stats.fibersCreated() >= 10, "ten tasks blocked at once need ten fibers: " + stats);
        assertEquals(0, stats.fibersBlocked(), stats.toString());
    }

    @Test
    void idleWorkersSpinAndStealBeforeSleeping() {
        AtomicReference<Scheduler> held = new AtomicReference<>();
        TestSchedulers.withBoundScheduler(TestSchedulers.config(2).setSpinDuration(Duration.ofMillis(5)), scheduler -> {
            held.set(scheduler);
            WaitGroup done = new WaitGroup(2_000);
            for (int i = 0; i < 2_000; i++) {
                Marl.schedule(() -> {
                    long x = 0;
                    for (int j = 0; j < 10_000; j++) {
                        x += j * 31L;
                    }
                    if (x == 42) {
                        throw new AssertionError();
                    }
                    done.done();
                });
            }
            done.await();
        });
        Scheduler.Stats stats = held.get().stats();
        assertEquals(2_000, stats.tasksRun());
        assertTrue(stats.timeSpinning().toNanos() > 0, stats.toString());
    }

    @Test
    void countsTheSleepsOfWorkersOutOfWork() {
        TestSchedulers.withBoundScheduler(1, scheduler -> {
            // A new worker thread has no work and sleeps: once counted, it stays asleep until a task comes.
            await().atMost(LONG).until(() -> scheduler.stats().idleSleeps() >= 1);
            long asleep = scheduler.stats().idleSleeps();
            Event ran = new Event(Event.Mode.MANUAL);
            Marl.schedule(ran::signal); // onto the worker thread, which wakes for it
            ran.await();
            // Out of work again, it spins for at most the spin duration and sleeps once more.
            await().atMost(LONG).until(() -> scheduler.stats().idleSleeps() > asleep);
        });
    }

    @ForEachWorkerCount
    void workersKeepABoundedNumberOfIdleFibersForReuse(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            int fibers = 5_000;
            Event release = new Event(Event.Mode.MANUAL);
            WaitGroup blocked = new WaitGroup(fibers);
            WaitGroup done = new WaitGroup(fibers);
            for (int i = 0; i < fibers; i++) {
                Marl.schedule(() -> {
                    blocked.done();
                    release.await();
                    done.done();
                });
            }
            blocked.await();
            release.signal();
            done.await();
            Scheduler.Stats stats = scheduler.stats();
            assertTrue(stats.fibersCreated() >= fibers, stats.toString());
            // 64 per worker (the bound thread's included), not one per fiber that ever blocked.
            assertTrue(stats.fibersIdle() <= 64 * (workers + 1), stats.toString());
        });
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void queuedAndRunningTasksFollowWorkersHeldByTasks(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WorkerHold hold = new WorkerHold();
            try {
                for (int i = 0; i < workers; i++) {
                    scheduler.enqueue(new Task(hold::hold));
                }
                // Idle workers steal (or are woken for) a hold queued behind another: every thread ends up held.
                await().atMost(LONG).until(() -> scheduler.stats().tasksRunning() == workers);
                for (int i = 0; i < 5; i++) {
                    scheduler.enqueue(new Task(() -> {}));
                }
                await().atMost(LONG).until(() -> scheduler.stats().tasksQueued() == 5);
                Scheduler.Stats held = scheduler.stats();
                assertEquals(workers, held.tasksRunning(), held.toString());
                assertEquals(1, held.boundThreads(), held.toString());
            } finally {
                hold.release();
            }
            await().atMost(LONG).until(() -> {
                Scheduler.Stats stats = scheduler.stats();
                return stats.tasksCompleted() == workers + 5 && stats.tasksQueued() == 0 && stats.tasksRunning() == 0;
            });
        });
    }

    @Test
    void aBoundThreadWaitingInItsOwnCodeIsNotARunningTask() throws Exception {
        TestSchedulers.withBoundScheduler(0, scheduler -> {
            WorkerHold hold = new WorkerHold();
            // The bound thread waits below; another thread watches the task it runs meanwhile.
            CompletableFuture<Scheduler.Stats> seen = CompletableFuture.supplyAsync(() -> {
                try {
                    await().atMost(LONG).until(() -> scheduler.stats().tasksRunning() == 1);
                    return scheduler.stats();
                } finally {
                    hold.release();
                }
            });
            WaitGroup done = new WaitGroup(1);
            Marl.schedule(() -> {
                hold.hold();
                done.done();
            });
            done.await();
            Scheduler.Stats whileHeld = seen.orTimeout(LONG.toSeconds(), TimeUnit.SECONDS).join();
            assertEquals(1, whileHeld.fibersBlocked(), "the bound thread's own wait: " + whileHeld);
            assertEquals(1, whileHeld.tasksRun() - whileHeld.tasksCompleted(), whileHeld.toString());
        });
    }
}
