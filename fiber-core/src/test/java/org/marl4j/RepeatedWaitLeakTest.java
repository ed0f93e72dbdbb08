package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every fiber wait on a long-lived waitable that ends without its condition (its timeout passes,
 * a {@link FiberCancellation} is cancelled, a bounded {@link Scheduler#close(Duration)} gives up)
 * leaves nothing behind on the waitable, nor in its scheduler: thousands of such waits, in rounds
 * of {@link WaitRounds#WAITERS} concurrent fibers, on one waitable no round ever satisfies, and
 * what the waitable keeps reachable ({@link RetainedObjects}) stays what it was after the first
 * rounds.
 *
 * <p>Not here, because they do not wait: {@link UnboundedPool} (its borrows never wait, whatever
 * the timeout) and {@link Dag} (its run waits on a {@link WaitGroup} of its own, made per run).
 * {@link Ticket} has no timed wait, so only cancellation and close end its wait early; nor has
 * {@link Fiber#sleep} (its deadline is its condition). {@link Fiber#await} queues nowhere: what it
 * could leave behind would be in the scheduler, which every round here also measures.
 */
class RepeatedWaitLeakTest {
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
        },
        /** A fiber's own conditional wait: it queues nowhere, so what it could leave is in the scheduler. */
        FIBER_AWAIT(true) {
            @Override
            Waitable make() {
                Mutex mutex = new Mutex();
                return new Waitable() {
                    @Override
                    public void await() {
                        mutex.lock();
                        try {
                            Fiber.current().await(mutex, () -> false);
                        } finally {
                            mutex.unlock();
                        }
                    }

                    @Override
                    public boolean await(Duration timeout) {
                        mutex.lock();
                        try {
                            return Fiber.current().await(mutex, timeout, () -> false);
                        } finally {
                            mutex.unlock();
                        }
                    }

                    @Override
                    public Object root() {
                        return mutex;
                    }
                };
            }
        },
        /** A sleep's deadline is its condition, so it has no timeout that ends it early: only a cancellation or close. */
        FIBER_SLEEP(false) {
            @Override
            Waitable make() {
                return new Waitable() {
                    @Override
                    public void await() {
                        Fiber.sleep(Duration.ofHours(1));
                    }

                    @Override
                    public boolean await(Duration timeout) {
                        throw new UnsupportedOperationException("a sleep ends at its own time");
                    }

                    @Override
                    public Object root() {
                        return this;
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
                    WaitRounds.run(scheduler, i -> {
                        if (!waitable.await(SHORT)) {
                            timedOut.incrementAndGet();
                        }
                    });
                    assertEquals(WaitRounds.WAITERS, timedOut.get(), "round " + round + ": every wait timed out");
                }, RetainedObjects.Gauge.of(kind.name(), waitable.root()), WaitRounds.schedulerGauge(scheduler, workers));
            }
        });
    }

    @ParameterizedTest(name = "{0}, {1} worker threads")
    @MethodSource("allKindsAndWorkers")
    void cancelledWaits_leaveNothingBehind(Kind kind, int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            try (Waitable waitable = kind.make()) {
                RetainedObjects.assertBoundedOverRounds(ROUNDS,
                        round -> WaitRounds.runCancelled(scheduler, i -> wait(kind, waitable, i)),
                        RetainedObjects.Gauge.of(kind.name(), waitable.root()), WaitRounds.schedulerGauge(scheduler, workers));
            }
        });
    }

    @ParameterizedTest(name = "{0}, {1} worker threads")
    @MethodSource("allKindsAndWorkers")
    void waitsABoundedCloseCancelled_leaveNothingBehind(Kind kind, int workers) {
        try (Waitable waitable = kind.make()) {
            RetainedObjects.assertBoundedOverRounds(CLOSE_ROUNDS,
                    round -> WaitRounds.runClosed(workers, i -> wait(kind, waitable, i)),
                    RetainedObjects.Gauge.of(kind.name(), waitable.root()));
        }
    }

    /**
     * A wait that ends only when cancelled; half of them, where the waitable has a timed wait, with
     * a timeout that never comes, whose deadline the cancellation must take back too.
     */
    private static void wait(Kind kind, Waitable waitable, int index) {
        if (kind.timed && index % 2 == 1) {
            waitable.await(TestSchedulers.PATIENCE);
        } else {
            waitable.await();
        }
    }
}
