package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertThrows;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TaskErrors.LONG;
import static org.marl4j.TaskErrors.join;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * ConditionVariable behaviour, ported from marl's {@code conditionvariable_test.cpp} and extended:
 * every test runs with a {@link Mutex} and with a thread-owned {@link ReentrantLock} as the user's
 * lock, and waiters on fibers, on the bound thread and on plain threads.
 */
@Timeout(15) // each test takes well under a second; a lost wake-up or deadlock should fail, not stall the build
class ConditionVariableTest {

    /** The kinds of user lock a ConditionVariable must work with. */
    enum LockKind {
        MUTEX(Mutex::new),
        REENTRANT_LOCK(ReentrantLock::new);

        private final Supplier<Lock> factory;

        LockKind(Supplier<Lock> factory) {
            this.factory = factory;
        }

        Lock create() {
            return factory.get();
        }
    }

    /** Shared state of marl's ping-pong test: side one raises trigger[i], side two answers with signal[i]. */
    private static final class PingPong {
        final Lock lock;
        final ConditionVariable cv = new ConditionVariable();
        final boolean[] trigger = new boolean[3];
        final boolean[] signal = new boolean[3];

        PingPong(Lock lock) {
            this.lock = lock;
        }

        /** The answering side: waits for each trigger and answers it. */
        void answer() {
            for (int i = 0; i < 3; i++) {
                int index = i;
                lock.lock();
                try {
                    cv.await(lock, () -> trigger[index]);
                    signal[index] = true;
                    cv.signal();
                } finally {
                    lock.unlock();
                }
            }
        }

        /** The asking side: raises each trigger, waits for its answer, and records what it saw. */
        List<String> ask() {
            List<String> seen = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                int index = i;
                lock.lock();
                try {
                    trigger[index] = true;
                    cv.signal();
                    cv.await(lock, () -> signal[index]);
                    seen.add("" + signal[0] + signal[1] + signal[2]);
                } finally {
                    lock.unlock();
                }
            }
            return seen;
        }
    }

    private static final List<String> PING_PONG_SEEN = List.of("truefalsefalse", "truetruefalse", "truetruetrue");

    /**
     * withLockCheckedScheduler(workers, body) runs body on a fresh platform thread bound to a
     * scheduler built with the lock check on ({@link LockCheck}): then every fiber suspend fails
     * if its thread still holds a ReentrantLock, which proves that await() lets go of the user's lock
     * before the fiber suspends. A fresh thread, because the test's own thread comes from JUnit's
     * timeout executor and holds that pool's worker lock, which the check would report.
     */
    private static void withLockCheckedScheduler(int workers, Consumer<Scheduler> body) {
        TaskErrors errors = new TaskErrors();
        Scheduler.Config config = errors.config(workers);
        Scheduler scheduler;
        String previous = System.setProperty(LockCheck.PROPERTY, "true");
        try {
            scheduler = new Scheduler(config);
        } finally {
            restore(previous);
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread bound = Thread.ofPlatform().name("lock-checked-bound-thread").start(() -> {
            try {
                scheduler.bind();
                try {
                    body.accept(scheduler);
                } finally {
                    scheduler.unbind();
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        join(bound);
        scheduler.close();
        if (failure.get() instanceof Error e) {
            throw e;
        } else if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
        errors.assertNone();
    }

    private static void restore(String previous) {
        if (previous == null) {
            System.clearProperty(LockCheck.PROPERTY);
        } else {
            System.setProperty(LockCheck.PROPERTY, previous);
        }
    }

    // ------------------------------------------------------------------ marl's ping-pong

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void pingPong_betweenTwoPlainThreads_withoutAScheduler(LockKind kind) {
        PingPong state = new PingPong(kind.create());
        Thread answerer = Thread.ofPlatform().name("answerer").start(state::answer);
        assertEquals(PING_PONG_SEEN, state.ask());
        join(answerer);
    }

    @ForEachWorkerCount
    void pingPong_betweenTheBoundThreadAndAPlainThread(int workers) {
        for (LockKind kind : LockKind.values()) {
            List<String> seen = new ArrayList<>();
            withLockCheckedScheduler(workers, scheduler -> {
                PingPong state = new PingPong(kind.create());
                Thread answerer = Thread.ofPlatform().name("answerer").start(state::answer);
                seen.addAll(state.ask());
                join(answerer);
            });
            assertEquals(PING_PONG_SEEN, seen, kind.toString());
        }
    }

    @ForEachWorkerCount
    void pingPong_betweenTheBoundThreadAndAFiber(int workers) {
        for (LockKind kind : LockKind.values()) {
            List<String> seen = new ArrayList<>();
            withLockCheckedScheduler(workers, scheduler -> {
                PingPong state = new PingPong(kind.create());
                WaitGroup wg = new WaitGroup(1);
                Marl.schedule(() -> {
                    state.answer();
                    wg.done();
                });
                seen.addAll(state.ask());
                assertTrue(wg.await(LONG));
            });
            assertEquals(PING_PONG_SEEN, seen, kind.toString());
        }
    }

    @ForEachWorkerCount
    void pingPong_betweenTwoFibers_manyRounds(int workers) {
        int rounds = 1000;
        for (LockKind kind : LockKind.values()) {
            AtomicInteger turnsTaken = new AtomicInteger();
            TestSchedulers.withBoundScheduler(workers, scheduler -> {
                Lock lock = kind.create();
                ConditionVariable cv = new ConditionVariable();
                int[] turn = {0}; // even: side 0 plays, odd: side 1 plays
                WaitGroup wg = new WaitGroup(2);
                for (int side = 0; side < 2; side++) {
                    int me = side;
                    Marl.schedule(() -> {
                        for (int i = 0; i < rounds; i++) {
                            lock.lock();
                            try {
                                cv.await(lock, () -> turn[0] % 2 == me);
                                turn[0]++;
                                turnsTaken.incrementAndGet();
                            } finally {
                                lock.unlock();
                            }
                            cv.signal();
                        }
                        wg.done();
                    });
                }
                assertTrue(wg.await(LONG));
            });
            assertEquals(2 * rounds, turnsTaken.get(), kind.toString());
        }
    }

    // ------------------------------------------------------------------ signal and signalAll

    /**
     * Waiters on fibers and on plain threads share one condition; each signal() comes with one
     * ticket, and exactly one waiter takes it. A signal lost to nobody would leave a ticket unclaimed
     * and the test waiting.
     */
    @ForEachWorkerCount
    void signal_releasesOneWaiterPerSignal_fibersAndPlainThreadsMixed(int workers) {
        int fibers = 20;
        int threads = 4;
        for (LockKind kind : LockKind.values()) {
            AtomicInteger fiberReleases = new AtomicInteger();
            AtomicInteger threadReleases = new AtomicInteger();
            TestSchedulers.withBoundScheduler(workers, scheduler -> {
                Lock lock = kind.create();
                ConditionVariable cv = new ConditionVariable();
                int[] tickets = {0};
                Event oneReleased = new Event(Event.Mode.AUTO);
                AtomicInteger waiting = new AtomicInteger();
                Runnable waiter = () -> {
                    lock.lock();
                    try {
                        waiting.incrementAndGet();
                        cv.await(lock, () -> tickets[0] > 0);
                        tickets[0]--;
                    } finally {
                        lock.unlock();
                    }
                };
                WaitGroup fibersDone = new WaitGroup(fibers);
                for (int i = 0; i < fibers; i++) {
                    Marl.schedule(() -> {
                        waiter.run();
                        fiberReleases.incrementAndGet();
                        oneReleased.signal();
                        fibersDone.done();
                    });
                }
                List<Thread> plain = new ArrayList<>();
                for (int i = 0; i < threads; i++) {
                    plain.add(Thread.ofPlatform().start(() -> {
                        waiter.run();
                        threadReleases.incrementAndGet();
                        oneReleased.signal();
                    }));
                }
                for (int i = 0; i < fibers + threads; i++) {
                    TestLocks.underLock(lock, () -> tickets[0]++);
                    cv.signal();
                    assertTrue(oneReleased.await(LONG), "signal " + i + " released nobody");
                }
                assertTrue(fibersDone.await(LONG));
                plain.forEach(TaskErrors::join);
                assertEquals(fibers + threads, waiting.get());
                assertEquals(0, tickets[0]);
            });
            assertEquals(fibers, fiberReleases.get(), kind.toString());
            assertEquals(threads, threadReleases.get(), kind.toString());
        }
    }

    @ForEachWorkerCount
    void signalAll_releasesEveryWaiter_fibersAndPlainThreadsMixed(int workers) {
        assertOneSignalAllReleasesEveryWaiter(workers, 200, 4, (cv, lock, predicate) -> {
            cv.await(lock, predicate);
            return true;
        });
    }

    /**
     * assertOneSignalAllReleasesEveryWaiter(workers, fibers, threads, wait) runs, for each lock kind,
     * that many waiters on fibers and on plain threads, each calling wait once under the lock with a
     * predicate that turns true after all have started; then one signalAll() must end every wait with
     * true, and none may end before it.
     */
    private static void assertOneSignalAllReleasesEveryWaiter(int workers, int fibers, int threads, ConditionWait wait) {
        for (LockKind kind : LockKind.values()) {
            AtomicInteger satisfied = new AtomicInteger();
            TestSchedulers.withBoundScheduler(workers, scheduler -> {
                Lock lock = kind.create();
                ConditionVariable cv = new ConditionVariable();
                boolean[] open = {false};
                WaitGroup started = new WaitGroup(fibers + threads);
                WaitGroup finished = new WaitGroup(fibers + threads);
                Runnable waiter = () -> {
                    lock.lock();
                    try {
                        started.done();
                        if (wait.await(cv, lock, () -> open[0])) {
                            satisfied.incrementAndGet();
                        }
                    } finally {
                        lock.unlock();
                    }
                    finished.done();
                };
                List<Thread> plain = startOnFibersAndThreads(fibers, threads, waiter);
                assertTrue(started.await(LONG));
                assertEquals(0, satisfied.get());
                TestLocks.underLock(lock, () -> open[0] = true);
                cv.signalAll();
                assertTrue(finished.await(LONG));
                plain.forEach(TaskErrors::join);
            });
            assertEquals(fibers + threads, satisfied.get(), kind.toString());
        }
    }

    /** One way to wait on a condition while holding lock; returns whether the predicate held. */
    @FunctionalInterface
    private interface ConditionWait {
        boolean await(ConditionVariable cv, Lock lock, BooleanSupplier predicate);
    }

    @ForEachWorkerCount
    void signalAll_withThePredicateStillFalse_makesWaitersRecheckAndKeepWaiting(int workers) {
        int fibers = 20;
        int threads = 2;
        int waiters = fibers + threads;
        AtomicInteger returnedWhileFalse = new AtomicInteger(-1);
        AtomicInteger released = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Mutex lock = new Mutex();
            ConditionVariable cv = new ConditionVariable();
            boolean[] open = {false};
            AtomicInteger checks = new AtomicInteger();
            BooleanSupplier predicate = () -> {
                checks.incrementAndGet();
                return open[0];
            };
            WaitGroup finished = new WaitGroup(waiters);
            Runnable waiter = () -> {
                lock.lock();
                try {
                    cv.await(lock, predicate);
                    released.incrementAndGet();
                } finally {
                    lock.unlock();
                }
                finished.done();
            };
            List<Thread> plain = startOnFibersAndThreads(fibers, threads, waiter);
            // Done from a plain thread so that, with no workers, this bound thread can run the fibers.
            Thread waker = Thread.ofPlatform().start(() -> {
                try {
                    await().atMost(LONG).until(() -> checks.get() >= waiters);
                    // A waiter enqueues itself before it lets go of the lock: once we hold it, all are queued.
                    lock.lock();
                    lock.unlock();
                    cv.signalAll(); // a wake-up with nothing changed: every waiter re-checks and waits again
                    await().atMost(LONG).until(() -> checks.get() >= 2 * waiters);
                    returnedWhileFalse.set(released.get());
                } finally {
                    TestLocks.underLock(lock, () -> open[0] = true);
                    cv.signalAll();
                }
            });
            assertTrue(finished.await(LONG));
            join(waker);
            plain.forEach(TaskErrors::join);
        });
        assertEquals(0, returnedWhileFalse.get());
        assertEquals(waiters, released.get());
    }

    @ForEachWorkerCount
    void spuriousFiberWake_inAwait_isToleratedByRecheckingThePredicate(int workers) {
        AtomicInteger returnedEarly = new AtomicInteger(-1);
        AtomicInteger returned = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Mutex lock = new Mutex();
            ConditionVariable cv = new ConditionVariable();
            boolean[] ready = {false};
            AtomicReference<Fiber> waiter = new AtomicReference<>();
            AtomicInteger checks = new AtomicInteger();
            WaitGroup wg = new WaitGroup(1);
            Marl.schedule(() -> {
                lock.lock();
                try {
                    waiter.set(Fiber.current());
                    cv.await(lock, () -> {
                        checks.incrementAndGet();
                        return ready[0];
                    });
                    returned.incrementAndGet();
                } finally {
                    lock.unlock();
                }
                wg.done();
            });
            Thread waker = Thread.ofPlatform().start(() -> {
                try {
                    await().atMost(LONG).until(() -> checks.get() == 1);
                    // Once the lock is free the fiber holds its worker's lock until suspended, so the
                    // wake below cannot land on a still-running fiber (where it would do nothing).
                    lock.lock();
                    lock.unlock();
                    waiter.get().wake(); // wakes the fiber without a signal
                    await().atMost(LONG).until(() -> checks.get() == 2);
                    returnedEarly.set(returned.get());
                } finally {
                    TestLocks.underLock(lock, () -> ready[0] = true);
                    cv.signal();
                }
            });
            assertTrue(wg.await(LONG));
            join(waker);
        });
        assertEquals(0, returnedEarly.get());
        assertEquals(1, returned.get());
    }

    @ForEachWorkerCount
    void signal_withNobodyWaiting_isNotRemembered(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Mutex lock = new Mutex();
            ConditionVariable cv = new ConditionVariable();
            cv.signal();
            cv.signalAll();
            lock.lock();
            try {
                AtomicInteger checks = new AtomicInteger();
                assertFalse(cv.await(lock, Duration.ofMillis(10), () -> checks.incrementAndGet() < 0));
                assertTrue(checks.get() >= 1);
            } finally {
                lock.unlock();
            }
        });
    }

    // ------------------------------------------------------------------ Mutex waiters on the same worker

    /**
     * A fiber holds a Mutex across a suspend (which Mutex exists for) while a second fiber of the same
     * worker queues up for it; the first then waits on the condition with that Mutex. Releasing the
     * Mutex inside await() must hand it to the second fiber without deadlocking the worker.
     */
    @ForEachWorkerCount
    @Timeout(10)
    void await_releasingAMutexThatAFiberOfTheSameWorkerWaitsFor_doesNotDeadlock(int workers) {
        AtomicInteger secondGotTheMutex = new AtomicInteger();
        AtomicBoolean firstReturned = new AtomicBoolean();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Mutex mutex = new Mutex();
            ConditionVariable cv = new ConditionVariable();
            boolean[] ready = {false};
            WaitGroup wg = new WaitGroup(2);
            Marl.schedule(() -> {
                mutex.lock();
                try {
                    Scheduler.get().enqueue(new Task(() -> {
                        mutex.lock(); // the first fiber holds it: this fiber queues on the Mutex
                        try {
                            secondGotTheMutex.incrementAndGet();
                            ready[0] = true;
                        } finally {
                            mutex.unlock();
                        }
                        cv.signal();
                        wg.done();
                    }, Task.Flag.SAME_THREAD));
                    Fiber.yield(); // lets the second fiber run until it blocks on the Mutex
                    cv.await(mutex, () -> ready[0]);
                    firstReturned.set(true);
                } finally {
                    mutex.unlock();
                }
                wg.done();
            });
            assertTrue(wg.await(LONG));
        });
        assertEquals(1, secondGotTheMutex.get());
        assertTrue(firstReturned.get());
    }

    // ------------------------------------------------------------------ timed waits

    @ForEachWorkerCount
    void timedAwait_returnsFalseAfterTheTimeout_onFibersTheBoundThreadAndPlainThreads(int workers) {
        Duration timeout = Duration.ofMillis(20);
        for (LockKind kind : LockKind.values()) {
            AtomicInteger timedOut = new AtomicInteger();
            AtomicInteger tooEarly = new AtomicInteger();
            AtomicInteger heldAfter = new AtomicInteger();
            withLockCheckedScheduler(workers, scheduler -> {
                Lock lock = kind.create();
                ConditionVariable cv = new ConditionVariable();
                Runnable waiter = () -> {
                    lock.lock();
                    try {
                        long start = System.nanoTime();
                        if (!cv.await(lock, timeout, () -> false)) {
                            timedOut.incrementAndGet();
                        }
                        if (System.nanoTime() - start < timeout.toNanos()) {
                            tooEarly.incrementAndGet();
                        }
                        if (lock.tryLock()) { // reentrant for its holder: proves the lock is held again
                            heldAfter.incrementAndGet();
                            lock.unlock();
                        }
                    } finally {
                        lock.unlock();
                    }
                };
                WaitGroup wg = new WaitGroup(10);
                for (int i = 0; i < 10; i++) {
                    Marl.schedule(() -> {
                        waiter.run();
                        wg.done();
                    });
                }
                Thread plain = Thread.ofPlatform().start(waiter);
                waiter.run(); // the bound thread
                assertTrue(wg.await(LONG));
                join(plain);
            });
            assertEquals(12, timedOut.get(), kind.toString());
            assertEquals(0, tooEarly.get(), kind.toString());
            assertEquals(12, heldAfter.get(), kind.toString());
        }
    }

    @ForEachWorkerCount
    void timedAwait_returnsTrueWhenSignalledBeforeTheTimeout_fibersAndPlainThreads(int workers) {
        assertOneSignalAllReleasesEveryWaiter(workers, 50, 2, (cv, lock, predicate) -> cv.await(lock, LONG, predicate));
    }

    @ForEachWorkerCount
    void timedWaiters_thatTimeOut_doNotSwallowSignalsMeantForOthers(int workers) {
        AtomicBoolean longWaiterReleased = new AtomicBoolean();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Mutex lock = new Mutex();
            ConditionVariable cv = new ConditionVariable();
            boolean[] ready = {false};
            WaitGroup shortOnesDone = new WaitGroup(20);
            WaitGroup longDone = new WaitGroup(1);
            AtomicBoolean longWaiting = new AtomicBoolean();
            for (int i = 0; i < 20; i++) {
                Marl.schedule(() -> {
                    TestLocks.underLock(lock, () -> cv.await(lock, Duration.ofMillis(5), () -> false));
                    shortOnesDone.done();
                });
            }
            Marl.schedule(() -> {
                lock.lock();
                try {
                    longWaiting.set(true);
                    longWaiterReleased.set(cv.await(lock, LONG, () -> ready[0]));
                } finally {
                    lock.unlock();
                }
                longDone.done();
            });
            assertTrue(shortOnesDone.await(LONG));
            Thread signaller = Thread.ofPlatform().start(() -> {
                await().atMost(LONG).untilTrue(longWaiting);
                TestLocks.underLock(lock, () -> ready[0] = true);
                cv.signal(); // the only waiter left must get it
            });
            assertTrue(longDone.await(LONG));
            join(signaller);
        });
        assertTrue(longWaiterReleased.get());
    }

    // ---------------------------------------------------------------- reentrant holds

    /**
     * A fiber holding a Mutex twice awaits; another fiber must be able to take the Mutex to make
     * the predicate true: a waiter that kept one hold would make the signaller's tryLock give up.
     */
    @ForEachWorkerCount
    void await_withMutexHeldTwice_releasesEveryHoldAndRestoresThem(int workers) {
        Mutex mutex = new Mutex();
        ConditionVariable cv = new ConditionVariable();
        AtomicBoolean ready = new AtomicBoolean();
        AtomicBoolean signallerGotTheMutex = new AtomicBoolean();
        AtomicInteger holdsAfterWait = new AtomicInteger(-1);
        AtomicBoolean waiterSawReady = new AtomicBoolean();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup done = new WaitGroup(2);
            Event waiting = new Event(Event.Mode.MANUAL);
            Marl.schedule(() -> {
                mutex.lock();
                mutex.lock();
                try {
                    waiting.signal();
                    // Bounded, so the pre-fix behaviour fails the test instead of hanging it.
                    waiterSawReady.set(cv.await(mutex, Duration.ofSeconds(20), ready::get));
                    holdsAfterWait.set(mutex.holdCount());
                } finally {
                    mutex.unlock();
                    mutex.unlock();
                }
                done.done();
            });
            Marl.schedule(() -> {
                waiting.await();
                if (mutex.tryLock(Duration.ofSeconds(10))) {
                    try {
                        signallerGotTheMutex.set(true);
                        ready.set(true);
                    } finally {
                        mutex.unlock();
                    }
                    cv.signal();
                }
                done.done();
            });
            done.await();
        });
        assertTrue(signallerGotTheMutex.get(), "the waiter must release every hold while it waits");
        assertTrue(waiterSawReady.get());
        assertEquals(2, holdsAfterWait.get(), "the waiter holds the Mutex as often as before the wait");
        assertFalse(mutex.isLocked());
    }

    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"ReentrantLock", "ReentrantReadWriteLock.WriteLock"})
    void await_withAReentrantLockHeldTwiceOnAThread_releasesEveryHoldAndRestoresThem(String kind) throws Exception {
        Lock lock = kind.equals("ReentrantLock") ? new ReentrantLock()
                : new java.util.concurrent.locks.ReentrantReadWriteLock().writeLock();
        ConditionVariable cv = new ConditionVariable();
        AtomicBoolean ready = new AtomicBoolean();
        AtomicInteger holdsAfterWait = new AtomicInteger(-1);
        CountDownLatch waiting = new CountDownLatch(1);
        Thread waiter = TestSchedulers.startThread("cv-reentrant-waiter", () -> {
            lock.lock();
            lock.lock();
            try {
                waiting.countDown();
                cv.await(lock, Duration.ofSeconds(20), ready::get);
                holdsAfterWait.set(lock instanceof ReentrantLock r ? r.getHoldCount()
                        : ((java.util.concurrent.locks.ReentrantReadWriteLock.WriteLock) lock).getHoldCount());
            } finally {
                lock.unlock();
                lock.unlock();
            }
        });
        waiting.await();
        assertTrue(lock.tryLock(10, TimeUnit.SECONDS), "the waiter must release every hold while it waits");
        try {
            ready.set(true);
        } finally {
            lock.unlock();
        }
        cv.signal();
        waiter.join(TestSchedulers.PATIENCE.toMillis());
        assertEquals(2, holdsAfterWait.get());
    }

    @Test
    void await_withMutexNotHeld_throwsIllegalMonitorState() {
        Mutex mutex = new Mutex();
        IllegalMonitorStateException e = assertThrows(IllegalMonitorStateException.class,
                () -> new ConditionVariable().await(mutex, () -> false));
        assertTrue(e.getMessage().contains("lock it before awaiting"), e.getMessage());
    }

    /** startOnFibersAndThreads(fibers, threads, body) runs body on that many fibers of the bound scheduler and plain threads. */
    private static List<Thread> startOnFibersAndThreads(int fibers, int threads, Runnable body) {
        for (int i = 0; i < fibers; i++) {
            Marl.schedule(body);
        }
        List<Thread> plain = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            plain.add(Thread.ofPlatform().start(body));
        }
        return plain;
    }

    @ParameterizedTest(name = "{0} worker threads")
    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 2, 4})
    void aWaitCancelledByABoundedClose_takesTheMutexBackWithEveryHold_beforeItThrows(int workers) {
        TaskErrors errors = new TaskErrors();
        Scheduler scheduler = new Scheduler(errors.config(workers));
        Mutex mutex = new Mutex();
        ConditionVariable cv = new ConditionVariable();
        Event waiting = new Event(Event.Mode.MANUAL);
        Event holding = new Event(Event.Mode.MANUAL);
        AtomicReference<Throwable> waiterEnded = new AtomicReference<>();
        AtomicInteger holdsAfterTheWait = new AtomicInteger(-1);
        scheduler.enqueue(new Task(() -> {
            mutex.lock();
            mutex.lock();
            mutex.lock();
            try {
                waiting.signal();
                cv.await(mutex, () -> false); // until the close cancels it
            } catch (Throwable t) {
                holdsAfterTheWait.set(mutex.holdCount());
                waiterEnded.set(t);
            } finally {
                mutex.unlock();
                mutex.unlock();
                mutex.unlock();
            }
        }));
        scheduler.enqueue(new Task(() -> {
            waiting.await();
            mutex.lock(); // released by the waiting fiber's condition wait
            try {
                holding.signal();
                new Event(Event.Mode.MANUAL).await(); // holds the Mutex until the close cancels this
            } finally {
                mutex.unlock();
            }
        }));
        holding.await();
        scheduler.close(Duration.ofMillis(20)); // cancels both: the holder unwinds, the waiter takes the Mutex back
        assertTrue(waiterEnded.get() instanceof FiberCancelledException, String.valueOf(waiterEnded.get()));
        assertEquals(3, holdsAfterTheWait.get(), "the cancelled wait did not give back every hold");
        assertFalse(mutex.isLocked());
        errors.assertNone();
    }
}

