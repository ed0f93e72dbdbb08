package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.logging.Logger;
import org.marl4j.WaitQueue.Waiter;

/**
 * WaitRounds runs one round of a repeated-wait leak test (see {@link RetainedObjects}): {@link
 * #WAITERS} fibers wait at once on a long-lived waitable, and every wait ends without its
 * condition, by its timeout ({@link #run}), by a {@link FiberCancellation} ({@link #runCancelled})
 * or by a bounded {@link Scheduler#close(Duration)} ({@link #runClosed}). Each returns once every
 * waiter has ended, and fails if a wait ended otherwise.
 */
public final class WaitRounds {
    /** Concurrent waiters per round: enough that waits end while others are queued around them. */
    public static final int WAITERS = 16;

    private WaitRounds() {}

    /** A waiter's body, given its index in the round. */
    @FunctionalInterface
    public interface Waiter {
        /**
         * run(index) waits.
         *
         * @param index the waiter's index in its round, 0 to {@link #WAITERS} - 1
         * @throws Exception anything, which fails the round
         */
        void run(int index) throws Exception;
    }

    /**
     * run(scheduler, body) runs body as {@link #WAITERS} tasks of scheduler and returns once every
     * one has ended; fails if one threw. On a thread bound to a scheduler with no worker threads,
     * the tasks run on it while this waits.
     *
     * @param scheduler where the waiters run
     * @param body what each waiter does (a timed wait that times out, say)
     */
    public static void run(Scheduler scheduler, Waiter body) {
        run(scheduler, body, null);
    }

    /**
     * runCancelled(scheduler, wait) runs {@link #WAITERS} tasks that each open a
     * {@link FiberCancellation} and call wait, which may end only by throwing; once every one is
     * suspended it cancels them all, and fails unless each wait threw {@link FiberCancelledException}.
     *
     * @param scheduler where the waiters run: the calling thread must be bound to it if it has no
     *     worker threads, and must not be one of its tasks
     * @param wait a wait that does not end by itself
     */
    public static void runCancelled(Scheduler scheduler, Waiter wait) {
        AtomicReferenceArray<FiberCancellation> scopes = new AtomicReferenceArray<>(WAITERS);
        AtomicBoolean cancelling = new AtomicBoolean();
        AtomicInteger cancelled = new AtomicInteger();
        run(scheduler, i -> {
            try (FiberCancellation scope = FiberCancellation.open()) {
                scopes.set(i, scope);
                if (cancelling.get()) {
                    scope.cancel(); // the round gave up waiting for it to suspend: see below
                }
                wait.run(i);
                throw new AssertionError("waiter " + i + " returned: its wait was to end only by its cancellation");
            } catch (FiberCancelledException expected) {
                cancelled.incrementAndGet();
            }
        }, () -> {
            try {
                awaitAllSet(scopes);
                awaitBlocked(scheduler, WAITERS);
            } finally {
                // Even if some never suspended, so that the round ends and reports why: a waiter
                // either is seen here or sees the flag (both volatile, each written before the other is read).
                cancelling.set(true);
                for (int i = 0; i < WAITERS; i++) {
                    FiberCancellation scope = scopes.get(i);
                    if (scope != null) {
                        scope.cancel();
                    }
                }
            }
        });
        assertEquals(WAITERS, cancelled.get(), "every wait was cancelled");
    }

    /**
     * runClosed(workers, wait) makes a scheduler with that many worker threads (bound to the
     * calling thread if none), runs {@link #WAITERS} tasks that each call wait, which may end only
     * by throwing, and once every one is suspended closes the scheduler with a zero timeout; fails
     * unless the close cancelled each suspended wait and each threw {@link FiberCancelledException}.
     * What each close logs is checked here and kept off the console.
     *
     * @param workers the scheduler's worker threads
     * @param wait a wait that does not end by itself
     */
    public static void runClosed(int workers, Waiter wait) {
        TaskErrors errors = new TaskErrors();
        Scheduler.Config config = errors.config(workers);
        AtomicInteger cancelled = new AtomicInteger();
        Logger closeLog = Logger.getLogger(Scheduler.class.getName());
        boolean toConsole = closeLog.getUseParentHandlers();
        closeLog.setUseParentHandlers(false);
        try (LogCapture log = LogCapture.of(Scheduler.class)) {
            Scheduler scheduler = new Scheduler(config);
            try {
                if (workers == 0) {
                    scheduler.bind(); // close() unbinds it: its tasks run then, and suspend
                }
                for (int i = 0; i < WAITERS; i++) {
                    int index = i;
                    scheduler.enqueue(new Task(() -> {
                        try {
                            wait.run(index);
                            throw new AssertionError("waiter " + index + " returned: its wait was to end only by the close");
                        } catch (FiberCancelledException expected) {
                            cancelled.incrementAndGet();
                        } catch (Exception e) {
                            throw new AssertionError("waiter " + index + " failed", e);
                        }
                    }));
                }
                if (workers > 0) {
                    awaitBlocked(scheduler, WAITERS);
                }
            } finally {
                scheduler.close(Duration.ZERO);
            }
            assertTrue(log.contains("cancelled the waits of " + WAITERS + " suspended fiber"),
                    () -> "the close found every waiter suspended: " + log);
        } finally {
            closeLog.setUseParentHandlers(toConsole);
        }
        errors.assertNone();
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
        assertEquals(WAITERS, cancelled.get(), "the close cancelled every wait");
    }

    /**
     * schedulerGauge(scheduler, workers) is what the scheduler keeps reachable
     * ({@link RetainedObjects#countInScheduler}), read once it is idle. It may differ between
     * rounds by the fibers its workers keep for reuse (up to 64 each, one object apiece) and what
     * a worker ending its task has not put away yet.
     *
     * @param scheduler the scheduler the rounds run on
     * @param workers its worker threads
     * @return the gauge
     */
    public static RetainedObjects.Gauge schedulerGauge(Scheduler scheduler, int workers) {
        return new RetainedObjects.Gauge("the scheduler (objects it keeps reachable, fibers counted one each)", () -> {
            awaitIdle(scheduler);
            return RetainedObjects.countInScheduler(scheduler);
        }, 2 * 64 * (workers + 1) + 256);
    }

    /**
     * awaitBlocked(scheduler, n) returns once n of the scheduler's fibers are suspended in waits;
     * on a bound thread it yields meanwhile, which runs the tasks queued on it.
     *
     * @param scheduler the scheduler
     * @param n how many suspended fibers to wait for
     */
    public static void awaitBlocked(Scheduler scheduler, int n) {
        long deadline = System.nanoTime() + TestSchedulers.PATIENCE.toNanos();
        // The stats, read racily, may lag or lead by a few: the listing, taken under each worker's lock, decides.
        while (scheduler.stats().fibersBlocked() < n || scheduler.suspendedFibers().size() < n) {
            assertTrue(System.nanoTime() - deadline < 0, () -> "fewer than " + n + " fibers suspended within "
                    + TestSchedulers.PATIENCE + ": " + scheduler.suspendedFibers());
            Fiber.yield();
        }
    }

    /** awaitAllSet(scopes) returns once every waiter has opened its scope, yielding meanwhile as {@link #awaitBlocked} does. */
    private static void awaitAllSet(AtomicReferenceArray<FiberCancellation> scopes) {
        long deadline = System.nanoTime() + TestSchedulers.PATIENCE.toNanos();
        for (int i = 0; i < scopes.length(); i++) {
            while (scopes.get(i) == null) {
                int waiter = i;
                assertTrue(System.nanoTime() - deadline < 0, () -> "waiter " + waiter + " did not start within " + TestSchedulers.PATIENCE);
                Fiber.yield();
            }
        }
    }

    private static void run(Scheduler scheduler, Waiter body, Runnable meanwhile) {
        WaitGroup ended = new WaitGroup(WAITERS);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < WAITERS; i++) {
            int index = i;
            scheduler.enqueue(new Task(() -> {
                try {
                    body.run(index);
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                } finally {
                    ended.done();
                }
            }));
        }
        try {
            if (meanwhile != null) {
                meanwhile.run();
            }
        } finally {
            assertTrue(ended.await(TestSchedulers.PATIENCE), () -> "the waiters did not end within " + TestSchedulers.PATIENCE
                    + (failure.get() == null ? "" : "; one failed: " + failure.get()));
        }
        assertNull(failure.get(), () -> "a waiter failed: " + failure.get());
    }

    /** awaitIdle(scheduler) waits until no task runs or is queued and no fiber waits, so the workers' state holds still. */
    private static void awaitIdle(Scheduler scheduler) {
        long deadline = System.nanoTime() + TestSchedulers.PATIENCE.toNanos();
        while (true) {
            Scheduler.Stats stats = scheduler.stats();
            if (stats.tasksRunning() == 0 && stats.fibersBlocked() == 0 && stats.tasksQueued() == 0) {
                return;
            }
            assertTrue(System.nanoTime() - deadline < 0, () -> "the scheduler did not go idle: " + stats);
            Fiber.yield();
        }
    }
}
