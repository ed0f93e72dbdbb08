package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
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

    /**
     * A long-lived waitable that no round satisfies, and the waits a fiber can make on it: {@code
     * untimed} waits without a timeout (it can only end by throwing), {@code timed} waits with one
     * and returns whether the condition held (never, here); {@code root} is what keeps the
     * waitable's state, and {@code release} gives back what the test holds to keep it unsatisfied.
     */
    private record Waitable(Object root, Runnable untimed, Predicate<Duration> timed, Runnable release)
            implements AutoCloseable {
        /** of(root, untimed, timed) is a waitable the test holds nothing of. */
        static Waitable of(Object root, Runnable untimed, Predicate<Duration> timed) {
            return new Waitable(root, untimed, timed, () -> {});
        }

        /** untimedOnly(root, untimed, why) is a waitable that has no timed wait, for the reason {@code why}. */
        static Waitable untimedOnly(Object root, Runnable untimed, String why) {
            return of(root, untimed, timeout -> {
                throw new UnsupportedOperationException(why);
            });
        }

        void await() {
            untimed.run();
        }

        boolean await(Duration timeout) {
            return timed.test(timeout);
        }

        @Override
        public void close() {
            release.run();
        }
    }

    /** The waitables of fiber-core that a fiber can wait on, each made on the test thread. */
    enum Kind {
        EVENT_AUTO(true, () -> event(new Event(Event.Mode.AUTO))),
        EVENT_MANUAL(true, () -> event(new Event(Event.Mode.MANUAL))),
        WAIT_GROUP(true, () -> {
            WaitGroup group = new WaitGroup(1);
            return Waitable.of(group, group::await, group::await);
        }),
        TICKET(false, () -> {
            Ticket.Queue queue = new Ticket.Queue();
            Ticket first = queue.take(); // never done: the second is never called
            Ticket second = queue.take();
            return Waitable.untimedOnly(List.of(first, second), second::await, "Ticket has no timed wait");
        }),
        CONDITION_VARIABLE(true, () -> {
            Mutex mutex = new Mutex();
            ConditionVariable cv = new ConditionVariable();
            return Waitable.of(List.of(cv, mutex),
                    () -> TestLocks.underLock(mutex, () -> cv.await(mutex, () -> false)),
                    timeout -> holdingTimed(mutex, () -> cv.await(mutex, timeout, () -> false)));
        }),
        MUTEX(true, () -> {
            Mutex mutex = new Mutex();
            mutex.lock(); // owned by the test thread for the whole test: every lock() waits
            return new Waitable(mutex, () -> TestLocks.underLock(mutex, () -> {}), timeout -> {
                boolean locked = mutex.tryLock(timeout);
                if (locked) {
                    mutex.unlock();
                }
                return locked;
            }, mutex::unlock);
        }),
        BOUNDED_POOL(true, () -> {
            BoundedPool<Object> pool = new BoundedPool<>(1, Pool.Policy.PRESERVE, Object::new);
            Pool.Loan<Object> held = pool.borrow(); // its only item, out for the whole test
            return new Waitable(pool, () -> pool.borrow().close(), timeout -> {
                Pool.Loan<Object> loan = pool.borrow(timeout);
                if (loan != null) {
                    loan.close();
                }
                return loan != null;
            }, held::close);
        }),
        /** A fiber's own conditional wait: it queues nowhere, so what it could leave is in the scheduler. */
        FIBER_AWAIT(true, () -> {
            Mutex mutex = new Mutex();
            return Waitable.of(mutex,
                    () -> TestLocks.underLock(mutex, () -> Fiber.current().await(mutex, () -> false)),
                    timeout -> holdingTimed(mutex, () -> Fiber.current().await(mutex, timeout, () -> false)));
        }),
        /** A sleep's deadline is its condition, so it has no timeout that ends it early: only a cancellation or close. */
        FIBER_SLEEP(false, () -> Waitable.untimedOnly(new Object(), () -> Fiber.sleep(Duration.ofHours(1)),
                "a sleep ends at its own time"));

        final boolean timed;
        private final Supplier<Waitable> maker;

        Kind(boolean timed, Supplier<Waitable> maker) {
            this.timed = timed;
            this.maker = maker;
        }

        Waitable make() {
            return maker.get();
        }

        private static Waitable event(Event event) {
            return Waitable.of(event, event::await, event::await);
        }
    }

    /** holdingTimed(mutex, wait) runs a timed wait with mutex locked and returns its result. */
    private static boolean holdingTimed(Mutex mutex, BooleanSupplier wait) {
        mutex.lock();
        try {
            return wait.getAsBoolean();
        } finally {
            mutex.unlock();
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
