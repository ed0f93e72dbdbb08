package org.marl4j;

import java.util.concurrent.TimeUnit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MutexTest {

    /** Two SAME_THREAD fibers on one thread: the second waits while the first suspends inside. */
    private static int maxInsideOnOneThread(Lock lock) {
        return maxInsideOnOneThread(lock, null);
    }

    /** maxInsideOnOneThread(lock, engine) is how many SAME_THREAD fibers held lock at once across a Fiber.sleep. */
    private static int maxInsideOnOneThread(Lock lock, FiberEngine engine) {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        TestSchedulers.withBoundScheduler(TestSchedulers.config(1).setFiberEngine(engine), scheduler -> {
            WaitGroup done = new WaitGroup(1);
            Marl.schedule(() -> {
                WaitGroup both = new WaitGroup(2);
                for (int i = 0; i < 2; i++) {
                    scheduler.enqueue(new Task(() -> {
                        lock.lock();
                        try {
                            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            Fiber.sleep(Duration.ofMillis(20)); // suspends while holding the lock
                            inside.decrementAndGet();
                        } finally {
                            lock.unlock();
                        }
                        both.done();
                    }, Task.Flag.SAME_THREAD));
                }
                both.await();
                done.done();
            });
            done.await();
        });
        return maxInside.get();
    }

    @Test
    void excludesFibersThatShareOneThread() {
        assertEquals(1, maxInsideOnOneThread(new Mutex()));
    }

    @Test
    void reentrantLockDoesNotExcludeContinuationFibersThatShareOneThread_butDoesExcludeVirtualThreadFibers() {
        // Why Mutex exists: a ReentrantLock belongs to the thread, which both continuation fibers run on.
        assertEquals(2, maxInsideOnOneThread(new ReentrantLock(), FiberEngine.CONTINUATIONS));
        // A fiber of the virtual-thread engine is a thread of its own: the lock excludes the other.
        assertEquals(1, maxInsideOnOneThread(new ReentrantLock(), FiberEngine.VIRTUAL_THREADS));
    }

    @ForEachWorkerCount
    void guardsACounterUnderContentionFromFibersAndThreads(int workers) {
        Mutex mutex = new Mutex();
        int[] counter = {0};
        int tasks = 200;
        int increments = 50;
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup done = new WaitGroup(tasks + 2);
            Runnable body = () -> {
                for (int i = 0; i < increments; i++) {
                    mutex.lock();
                    try {
                        int seen = counter[0];
                        if (ThreadLocalRandom.current().nextInt(8) == 0) {
                            Fiber.yield(); // suspend inside the critical section
                        }
                        counter[0] = seen + 1;
                    } finally {
                        mutex.unlock();
                    }
                }
                done.done();
            };
            for (int i = 0; i < tasks; i++) {
                Marl.schedule(body);
            }
            new Thread(body).start(); // plain threads contend too
            new Thread(body).start();
            done.await();
        });
        assertEquals((tasks + 2) * increments, counter[0]);
    }

    /**
     * Waits that time out just as the mutex is handed to them, on fibers that use themselves as the
     * wait's node: a node a notifier took is not reused until the notification has landed, and the
     * hand-off it carried is passed on (WaitQueue.leave), so the count stays exact and nobody hangs.
     */
    @ForEachWorkerCount
    void timedWaitsRacingHandOffs_loseNoHandOffAndKeepExclusion(int workers) {
        Mutex mutex = new Mutex();
        int[] counter = {0};
        AtomicInteger increments = new AtomicInteger();
        int tasks = 64;
        int rounds = 200;
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup done = new WaitGroup(tasks);
            for (int t = 0; t < tasks; t++) {
                Marl.schedule(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < rounds; i++) {
                        boolean held = random.nextBoolean()
                                ? mutex.tryLock(Duration.ofNanos(random.nextInt(1, 50_000)))
                                : lockAlways(mutex);
                        if (held) {
                            try {
                                int seen = counter[0];
                                if (random.nextInt(16) == 0) {
                                    Fiber.yield();
                                }
                                counter[0] = seen + 1;
                                increments.incrementAndGet();
                            } finally {
                                mutex.unlock();
                            }
                        }
                    }
                    done.done();
                });
            }
            assertTrue(done.await(TaskErrors.LONG), "a waiter never got the mutex: a hand-off was lost");
        });
        assertEquals(increments.get(), counter[0]);
        assertFalse(mutex.isLocked());
    }

    private static boolean lockAlways(Mutex mutex) {
        mutex.lock();
        return true;
    }

    @Test
    void isReentrantForItsOwner() {
        Mutex mutex = new Mutex();
        mutex.lock();
        mutex.lock();
        assertTrue(mutex.tryLock());
        mutex.unlock();
        mutex.unlock();
        assertTrue(mutex.isHeldByCurrentFiber());
        mutex.unlock();
        assertFalse(mutex.isLocked());
    }

    @Test
    void unlockByANonOwnerThrowsIllegalMonitorState() {
        Mutex mutex = new Mutex();
        IllegalMonitorStateException e = assertThrows(IllegalMonitorStateException.class, mutex::unlock);
        assertTrue(e.getMessage().contains("does not own"), e.getMessage());
        mutex.lock();
        AtomicReference<Throwable> fromOther = new AtomicReference<>();
        Thread other = new Thread(() -> {
            try {
                mutex.unlock();
            } catch (Throwable t) {
                fromOther.set(t);
            }
        });
        other.start();
        joinQuietly(other);
        assertTrue(fromOther.get() instanceof IllegalMonitorStateException);
        mutex.unlock();
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1, 2})
    void tryLockWithTimeoutGivesUpWhileAnotherFiberHoldsIt(int workers) {
        Mutex mutex = new Mutex();
        AtomicBoolean acquired = new AtomicBoolean(true);
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Event held = new Event();
            Event release = new Event();
            WaitGroup done = new WaitGroup(2);
            Marl.schedule(() -> {
                mutex.lock();
                held.signal();
                release.await();
                mutex.unlock();
                done.done();
            });
            Marl.schedule(() -> {
                held.await();
                acquired.set(mutex.tryLock(Duration.ofMillis(20)));
                release.signal();
                assertTrue(mutex.tryLock(Duration.ofSeconds(30)), "acquired once released");
                mutex.unlock();
                done.done();
            });
            done.await();
        });
        assertFalse(acquired.get());
    }

    @Test
    void lockInterruptiblyThrowsIfTheThreadIsInterrupted() {
        Mutex mutex = new Mutex();
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, mutex::lockInterruptibly);
        assertFalse(mutex.isLocked());
    }

    @Test
    void newConditionPointsAtConditionVariable() {
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, new Mutex()::newCondition);
        assertTrue(e.getMessage().contains("ConditionVariable"), e.getMessage());
    }

    private static void joinQuietly(Thread thread) {
        try {
            thread.join();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    // ---------------------------------------------------------------- huge timeouts

    @Test
    void tryLock_maxLongDays_onAFreeMutex_acquiresInsteadOfOverflowing() throws InterruptedException {
        Mutex mutex = new Mutex();
        assertTrue(mutex.tryLock(Long.MAX_VALUE, TimeUnit.DAYS));
        mutex.unlock();
        assertTrue(mutex.tryLock(Long.MAX_VALUE, TimeUnit.NANOSECONDS));
        mutex.unlock();
        assertTrue(mutex.tryLock(Duration.ofSeconds(Long.MAX_VALUE)));
        mutex.unlock();
    }

    @Test
    void tryLock_hugeNegativeTime_onAHeldMutex_returnsFalseAtOnce() throws Exception {
        Mutex mutex = new Mutex();
        Thread owner = TestSchedulers.startThread("mutex-owner", mutex::lock);
        owner.join();
        assertFalse(mutex.tryLock(Long.MIN_VALUE, TimeUnit.DAYS));
        assertFalse(mutex.tryLock(Duration.ofSeconds(Long.MIN_VALUE)));
    }

    /** A fiber waiting "forever" (Long.MAX_VALUE days) for a held Mutex gets it once it is released. */
    @ForEachWorkerCount
    void tryLock_maxLongDays_whileContended_waitsUntilReleased(int workers) {
        Mutex mutex = new Mutex();
        AtomicBoolean acquired = new AtomicBoolean();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup done = new WaitGroup(1);
            Event holding = new Event(Event.Mode.MANUAL);
            Event release = new Event(Event.Mode.MANUAL);
            Marl.schedule(() -> {
                mutex.lock();
                holding.signal();
                release.await();
                mutex.unlock();
            });
            Marl.schedule(() -> {
                holding.await();
                try {
                    acquired.set(mutex.tryLock(Long.MAX_VALUE, TimeUnit.DAYS));
                    mutex.unlock();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                } finally {
                    done.done();
                }
            });
            holding.await();
            release.signal();
            done.await();
        });
        assertTrue(acquired.get());
    }

    @Test
    void tryLock_nullUnit_namesTheArgument() {
        NullPointerException e = assertThrows(NullPointerException.class, () -> new Mutex().tryLock(1, null));
        assertTrue(e.getMessage().contains("unit"), e.getMessage());
    }

    @Test
    void holdCount_countsTheCallersHoldsOnly() throws Exception {
        Mutex mutex = new Mutex();
        assertEquals(0, mutex.holdCount());
        mutex.lock();
        mutex.lock();
        assertEquals(2, mutex.holdCount());
        AtomicInteger seenByOther = new AtomicInteger(-1);
        Thread other = TestSchedulers.startThread("mutex-other", () -> seenByOther.set(mutex.holdCount()));
        other.join();
        assertEquals(0, seenByOther.get());
        mutex.unlock();
        mutex.unlock();
        assertEquals(0, mutex.holdCount());
    }

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {0, 1, 2})
    void aTaskThatUnbindRunsOnTheBoundThread_doesNotOwnTheThreadsMutex(int workers) {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(workers));
        try {
            Mutex mutex = new Mutex();
            AtomicReference<Boolean> taken = new AtomicReference<>();
            scheduler.bind();
            mutex.lock();
            // SAME_THREAD: the task stays on this thread's worker, so unbind() is what runs it.
            scheduler.enqueue(new Task(() -> {
                boolean got = mutex.tryLock();
                if (got) {
                    mutex.unlock();
                }
                taken.set(got);
            }, Task.Flag.SAME_THREAD));
            scheduler.unbind();
            assertEquals(Boolean.FALSE, taken.get(), "a task took the Mutex the bound thread holds");
            assertTrue(mutex.isHeldByCurrentFiber());
            mutex.unlock();
        } finally {
            scheduler.close();
        }
    }

    @Test
    void aThreadKeepsTheMutexesItHolds_acrossBindAndUnbind() throws Exception {
        try (Scheduler scheduler = new Scheduler(TestSchedulers.config(1))) {
            Mutex lockedBeforeBind = new Mutex();
            lockedBeforeBind.lock();
            scheduler.bind();
            assertTrue(lockedBeforeBind.isHeldByCurrentFiber(), "locked before bind(), no longer owned after it");
            assertTrue(lockedBeforeBind.tryLock(), "reentrant for its owner");
            assertEquals(2, lockedBeforeBind.holdCount());
            lockedBeforeBind.unlock();
            lockedBeforeBind.unlock();

            Mutex lockedWhileBound = new Mutex();
            lockedWhileBound.lock();
            scheduler.unbind();
            assertTrue(lockedWhileBound.isHeldByCurrentFiber(), "locked while bound, no longer owned after unbind()");
            lockedWhileBound.unlock();
            assertFalse(lockedWhileBound.isLocked());
        }
    }
}
