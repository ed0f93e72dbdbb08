package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every fiber wait on a long-lived waitable that ends without its condition (its timeout passes,
 * a {@link FiberCancellation} is cancelled, a bounded {@link Scheduler#close(Duration)} gives up)
 * leaves nothing behind on the waitable, nor in its scheduler: thousands of such waits, in rounds
 * of {@link #WAITERS} concurrent fibers, on one waitable no round ever satisfies, and what the
 * waitable keeps reachable ({@link RetainedObjects}) stays what it was after the first rounds.
 *
 * <p>Not here, because they do not wait: {@link UnboundedPool} (its borrows never wait, whatever
 * the timeout) and {@link Dag} (its run waits on a {@link WaitGroup} of its own, made per run).
 * {@link Ticket} has no timed wait, so only cancellation and close end its wait early.
 */
class RepeatedWaitLeakTest {
    /** Concurrent waiters per round: enough that waits end while others are queued around them. */
    private static final int WAITERS = 16;
    /** Rounds per test: 8,000 waits for a timeout or a cancellation. */
    private static final int ROUNDS = TestSchedulers.stress() ? 5_000 : 500;
    /** Rounds of a bounded close, each with a scheduler of its own: 1,600 waits. */
    private static final int CLOSE_ROUNDS = TestSchedulers.stress() ? 1_000 : 100;
    /** Long enough that a wait suspends before its deadline, short enough for thousands of rounds. */
    private static final Duration SHORT = Duration.ofMillis(1);

    /** A long-lived waitable that no round satisfies, and the waits a fiber can make on it. */
    private interface Waitable extends AutoCloseable {
        /** await() waits without a timeout: it can only end by throwing. */
        void await();

        /** await(timeout) waits with a timeout; returns whether the condition held (never, here). */
        boolean await(Duration timeout);

        /** root() is what keeps the waitable's state. */
        Object root();

        /** close() gives back what the test holds to keep the waitable unsatisfied. */
        @Override
        default void close() {}
    }

    /** The waitables of fiber-core that a fiber can wait on; made on the test thread. */
    enum Kind {
        EVENT_AUTO(true) {
            @Override
            Waitable make() {
                return event(new Event(Event.Mode.AUTO));
            }
        },
        EVENT_MANUAL(true) {
            @Override
            Waitable make() {
                return event(new Event(Event.Mode.MANUAL));
            }
        },
        WAIT_GROUP(true) {
            @Override
            Waitable make() {
                WaitGroup group = new WaitGroup(1);
                return new Waitable() {
                    @Override
                    public void await() {
                        group.await();
                    }

                    @Override
                    public boolean await(Duration timeout) {
                        return group.await(timeout);
                    }

                    @Override
                    public Object root() {
                        return group;
                    }
                };
            }
        },
        TICKET(false) {
            @Override
            Waitable make() {
                Ticket.Queue queue = new Ticket.Queue();
                Ticket first = queue.take(); // never done: the second is never called
                Ticket second = queue.take();
                return new Waitable() {
                    @Override
                    public void await() {
                        second.await();
                    }

                    @Override
                    public boolean await(Duration timeout) {
                        throw new UnsupportedOperationException("Ticket has no timed wait");
                    }

                    @Override
                    public Object root() {
                        return List.of(first, second);
                    }
                };
            }
        },
        CONDITION_VARIABLE(true) {
            @Override
            Waitable make() {
                Mutex mutex = new Mutex();
                ConditionVariable cv = new ConditionVariable();
                return new Waitable() {
                    @Override
                    public void await() {
                        mutex.lock();
                        try {
                            cv.await(mutex, () -> false);
                        } finally {
                            mutex.unlock();
                        }
                    }

                    @Override
                    public boolean await(Duration timeout) {
                        mutex.lock();
                        try {
                            return cv.await(mutex, timeout, () -> false);
                        } finally {
                            mutex.unlock();
                        }
                    }

                    @Override
                    public Object root() {
                        return List.of(cv, mutex);
                    }
                };
            }
        },
        MUTEX(true) {
            @Override
            Waitable make() {
                Mutex mutex = new Mutex();
                mutex.lock(); // owned by the test thread for the whole test
                return new Waitable() {
                    @Override
                    public void await() {
                        mutex.lock();
                        mutex.unlock(); // never reached: the test thread keeps it
                    }

                    @Override
                    public boolean await(Duration timeout) {
                        boolean locked = mutex.tryLock(timeout);
                        if (locked) {
                            mutex.unlock();
                        }
                        return locked;
                    }

                    @Override
                    public Object root() {
                        return mutex;
                    }

                    @Override
                    public void close() {
                        mutex.unlock();
                    }
                };
            }
        },
        BOUNDED_POOL(true) {
            @Override
            Waitable make() {
                BoundedPool<Object> pool = new BoundedPool<>(1, Pool.Policy.PRESERVE, Object::new);
                Pool.Loan<Object> held = pool.borrow(); // its only item, out for the whole test
                return new Waitable() {
                    @Override
                    public void await() {
                        pool.borrow().close();
                    }

                    @Override
                    public boolean await(Duration timeout) {
                        Pool.Loan<Object> loan = pool.borrow(timeout);
                        if (loan != null) {
                            loan.close();
                        }
                        return loan != null;
                    }

                    @Override
                    public Object root() {
                        return pool;
                    }

                    @Override
                    public void close() {
                        held.close();
                    }
                };
            }
        };

        final boolean timed;

        Kind(boolean timed) {
            this.timed = timed;
        }

        abstract Waitable make();

        private static Waitable event(Event event) {
            return new Waitable() {
                @Override
                public void await() {
                    event.await();
                }

                @Override
                public boolean await(Duration timeout) {
                    return event.await(timeout);
                }

                @Override
                public Object root() {
                    return event;
                }
            };
        }
    }

    static Stream<Arguments> timedKindsAndWorkers() {
        return kindsAndWorkers(true);
    }

    static Stream<Arguments> allKindsAndWorkers() {
        return kindsAndWorkers(false);
    }

    private static Stream<Arguments> kindsAndWorkers(boolean timedOnly) {
        List<Arguments> all = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            if (kind.timed || !timedOnly) {
                for (int workers : new int[] {0, 1, 2, 8}) {
                    all.add(Arguments.of(kind, workers));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0}, {1} worker threads")
    @MethodSource("timedKindsAndWorkers")
    void timedOutWaits_leaveNothingBehind(Kind kind, int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            try (Waitable waitable = kind.make()) {
                RetainedObjects.assertBoundedOverRounds(ROUNDS, round -> {
                    AtomicInteger timedOut = new AtomicInteger();
                    runWaiters(scheduler, i -> {
                        if (!waitable.await(SHORT)) {
                            timedOut.incrementAndGet();
                        }
                    }, null);
                    assertEquals(WAITERS, timedOut.get(), "round " + round + ": every wait timed out");
                }, RetainedObjects.Gauge.of(kind.name(), waitable.root()), schedulerGauge(scheduler, workers));
            }
        });
    }

    @ParameterizedTest(name = "{0}, {1} worker threads")
    @MethodSource("allKindsAndWorkers")
    void cancelledWaits_leaveNothingBehind(Kind kind, int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            try (Waitable waitable = kind.make()) {
                RetainedObjects.assertBoundedOverRounds(ROUNDS, round -> {
                    AtomicReferenceArray<FiberCancellation> scopes = new AtomicReferenceArray<>(WAITERS);
                    AtomicInteger cancelled = new AtomicInteger();
                    runWaiters(scheduler, i -> {
                        try (FiberCancellation scope = FiberCancellation.open()) {
                            scopes.set(i, scope);
                            // Half wait with a timeout that never comes: the cancel must take back its deadline too.
                            if (kind.timed && i % 2 == 1) {
                                waitable.await(TestSchedulers.PATIENCE);
                            } else {
                                waitable.await();
                            }
                        } catch (FiberCancelledException expected) {
                            cancelled.incrementAndGet();
                        }
                    }, () -> {
                        awaitBlocked(scheduler, WAITERS);
                        for (int i = 0; i < WAITERS; i++) {
                            scopes.get(i).cancel();
                        }
                    });
                    assertEquals(WAITERS, cancelled.get(), "round " + round + ": every wait was cancelled");
                }, RetainedObjects.Gauge.of(kind.name(), waitable.root()), schedulerGauge(scheduler, workers));
            }
        });
    }

    @ParameterizedTest(name = "{0}, {1} worker threads")
    @MethodSource("allKindsAndWorkers")
    void waitsABoundedCloseCancelled_leaveNothingBehind(Kind kind, int workers) {
        // Each close logs what it cancelled: checked below, kept off the console.
        Logger closeLog = Logger.getLogger(Scheduler.class.getName());
        boolean toConsole = closeLog.getUseParentHandlers();
        closeLog.setUseParentHandlers(false);
        try (Waitable waitable = kind.make()) {
            RetainedObjects.assertBoundedOverRounds(CLOSE_ROUNDS, round -> {
                LogCapture log = LogCapture.of(Scheduler.class);
                TaskErrors errors = new TaskErrors();
                Scheduler.Config config = errors.config(workers);
                Scheduler scheduler = new Scheduler(config);
                AtomicInteger cancelled = new AtomicInteger();
                try {
                    if (workers == 0) {
                        scheduler.bind(); // close() unbinds it: its tasks run then and suspend
                    }
                    for (int i = 0; i < WAITERS; i++) {
                        int index = i;
                        scheduler.enqueue(new Task(() -> {
                            try {
                                if (kind.timed && index % 2 == 1) {
                                    waitable.await(TestSchedulers.PATIENCE);
                                } else {
                                    waitable.await();
                                }
                            } catch (FiberCancelledException expected) {
                                cancelled.incrementAndGet();
                            }
                        }));
                    }
                    if (workers > 0) {
                        awaitBlocked(scheduler, WAITERS);
                    }
                } finally {
                    try {
                        scheduler.close(Duration.ZERO);
                    } finally {
                        log.close();
                    }
                }
                assertTrue(log.contains("cancelled the waits of " + WAITERS + " suspended fiber"),
                        () -> "round " + round + ": the close found every waiter suspended: " + log);
                errors.assertNone();
                TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
                assertEquals(WAITERS, cancelled.get(), "round " + round + ": the close cancelled every wait");
            }, RetainedObjects.Gauge.of(kind.name(), waitable.root()));
        } finally {
            closeLog.setUseParentHandlers(toConsole);
        }
    }

    /** A body run by each of the round's waiters, given its index. */
    private interface WaiterBody {
        void run(int index) throws Exception;
    }

    /**
     * runWaiters(scheduler, body, meanwhile) runs body on {@link #WAITERS} fibers, then meanwhile
     * (if any) on the test thread, and returns once every waiter has ended; fails if one threw.
     */
    private static void runWaiters(Scheduler scheduler, WaiterBody body, Runnable meanwhile) {
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
        if (meanwhile != null) {
            meanwhile.run();
        }
        assertTrue(ended.await(TestSchedulers.PATIENCE), "the waiters did not end within " + TestSchedulers.PATIENCE);
        assertNull(failure.get(), () -> "a waiter failed: " + failure.get());
    }

    /**
     * awaitBlocked(scheduler, n) returns once n fibers are suspended in waits; on a bound thread
     * it yields meanwhile, which runs the tasks queued on it (with no worker threads, the waiters).
     */
    private static void awaitBlocked(Scheduler scheduler, int n) {
        long deadline = System.nanoTime() + TestSchedulers.PATIENCE.toNanos();
        while (scheduler.stats().fibersBlocked() < n) {
            assertTrue(System.nanoTime() - deadline < 0, () -> "fewer than " + n + " fibers suspended within "
                    + TestSchedulers.PATIENCE + ": " + scheduler.suspendedFibers());
            Fiber.yield();
        }
    }

    /**
     * What the scheduler keeps, with every waiter ended: it may differ by the fibers its workers
     * keep for reuse (up to 64 each, counted one object apiece) and what a worker ending its task
     * has not put away yet.
     */
    private static RetainedObjects.Gauge schedulerGauge(Scheduler scheduler, int workers) {
        return new RetainedObjects.Gauge("the scheduler (objects it keeps reachable, fibers counted one each)", () -> {
            awaitIdle(scheduler);
            return RetainedObjects.countInScheduler(scheduler);
        }, 2 * 64 * (workers + 1) + 256);
    }

    /** awaitIdle(scheduler) waits until no task runs and no fiber waits, so the workers' state holds still. */
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
