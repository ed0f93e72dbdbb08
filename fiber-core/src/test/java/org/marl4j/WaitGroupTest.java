package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TaskErrors.LONG;
import static org.marl4j.TaskErrors.join;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** WaitGroup behaviour, ported from marl's {@code waitgroup_test.cpp} and extended. */
class WaitGroupTest {

    // ------------------------------------------------------------------ counting, no scheduler

    @Test
    void done_needsNoScheduler_andReturnsTrueOnlyWhenTheCountReachesZero() {
        WaitGroup wg = new WaitGroup(2);
        assertFalse(wg.done());
        assertEquals(1, wg.count());
        assertTrue(wg.done());
        assertEquals(0, wg.count());
    }

    @Test
    void add_raisesTheCount_andDoneMatchesEachAdd() {
        WaitGroup wg = new WaitGroup();
        assertEquals(0, wg.count());
        wg.add();
        wg.add(3);
        wg.add(0);
        assertEquals(4, wg.count());
        assertFalse(wg.done());
        assertFalse(wg.done());
        assertFalse(wg.done());
        assertTrue(wg.done());
        wg.add(1); // a WaitGroup may be reused once it reached zero
        assertTrue(wg.done());
    }

    @Test
    void done_pastZero_throwsIllegalState_andLeavesTheCountAtZero() {
        WaitGroup wg = new WaitGroup(2);
        wg.done();
        wg.done();
        assertThrows(IllegalStateException.class, wg::done);
        assertEquals(0, wg.count());
        assertThrows(IllegalStateException.class, new WaitGroup()::done);
    }

    @Test
    void add_negative_throwsIllegalArgument_andLeavesTheCount() {
        WaitGroup wg = new WaitGroup(3);
        assertThrows(IllegalArgumentException.class, () -> wg.add(-1));
        assertEquals(3, wg.count());
        assertThrows(IllegalArgumentException.class, () -> new WaitGroup(-1));
    }

    @Test
    void add_overflowingTheCount_throwsIllegalState_andLeavesTheCount() {
        WaitGroup wg = new WaitGroup(Integer.MAX_VALUE);
        assertThrows(IllegalStateException.class, () -> wg.add(1));
        assertEquals(Integer.MAX_VALUE, wg.count());
    }

    /**
     * How long each overflow race runs at most: the refused add's window is a few instructions
     * wide, so the races run many rounds, bounded in time so that a slow machine finishes too.
     */
    private static final Duration RACE = Duration.ofSeconds(2);

    @Test
    void add_refusedForOverflow_neverRefusesALegitimateAddRacingIt() {
        WaitGroup wg = new WaitGroup(5);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger refusedOverflows = new AtomicInteger();
        Thread overflower = TestSchedulers.startThread("overflowing-add", () -> {
            while (!stop.get()) {
                try {
                    wg.add(Integer.MAX_VALUE);
                } catch (IllegalStateException expected) {
                    refusedOverflows.incrementAndGet();
                }
            }
        });
        List<Throwable> refusedLegitimate = new ArrayList<>();
        long end = System.nanoTime() + RACE.toNanos();
        try {
            for (int i = 0; i < 2_000_000 && System.nanoTime() - end < 0; i++) {
                try {
                    wg.add(1);
                } catch (IllegalStateException e) {
                    refusedLegitimate.add(e);
                    break;
                }
                wg.done();
            }
        } finally {
            stop.set(true);
            join(overflower);
        }
        assertEquals(List.of(), refusedLegitimate, "add(1) on a count of 5 was refused");
        assertTrue(refusedOverflows.get() > 0);
        assertEquals(5, wg.count());
    }

    @Test
    void add_refusedForOverflow_racingTheLastDone_leavesTheZeroReleased() {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<WaitGroup> current = new AtomicReference<>();
        Thread overflower = TestSchedulers.startThread("overflowing-add", () -> {
            while (!stop.get()) {
                WaitGroup wg = current.get();
                if (wg != null) {
                    try {
                        wg.add(Integer.MAX_VALUE);
                    } catch (IllegalStateException expected) {
                        // refused: must have changed nothing (on a count of zero it is accepted)
                    }
                }
            }
        });
        long end = System.nanoTime() + RACE.toNanos();
        try {
            for (int i = 0; i < 1_000_000 && System.nanoTime() - end < 0; i++) {
                WaitGroup wg = new WaitGroup(1);
                AtomicBoolean zero = new AtomicBoolean();
                wg.onZero(() -> zero.set(true));
                current.set(wg);
                boolean reachedZero = wg.done();
                assertTrue(reachedZero, "round " + i + ": the last done() did not see the count reach zero");
                assertTrue(zero.get(), "round " + i + ": the count reached zero but onZero never ran");
                // (the count may be Integer.MAX_VALUE now: the same add on a count of zero is legitimate)
            }
        } finally {
            stop.set(true);
            join(overflower);
        }
    }

    @Test
    void await_atZero_returnsAtOnce_onAPlainThread() {
        WaitGroup wg = new WaitGroup();
        wg.await();
        assertTrue(wg.await(Duration.ZERO));
    }

    // ------------------------------------------------------------------ tasks

    @ForEachWorkerCount
    void await_returnsAfterOneTaskCallsDone(int workers) {
        AtomicInteger counter = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup wg = new WaitGroup(1);
            Marl.schedule(() -> {
                counter.incrementAndGet();
                wg.done();
            });
            wg.await();
            assertEquals(1, counter.get());
        });
    }

    @ForEachWorkerCount
    void await_returnsAfterTenTasksCallDone(int workers) {
        AtomicInteger counter = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup wg = new WaitGroup(10);
            for (int i = 0; i < 10; i++) {
                Marl.schedule(() -> {
                    counter.incrementAndGet();
                    wg.done();
                });
            }
            wg.await();
            assertEquals(10, counter.get());
        });
    }

    @ForEachWorkerCount
    void await_returnsOnlyAfterTheLastOfManyTasksCallsDone(int workers) {
        int tasks = 2000;
        AtomicInteger counter = new AtomicInteger();
        AtomicInteger zeroReached = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup wg = new WaitGroup(tasks); // counted up front: tasks may finish while the loop runs
            for (int i = 0; i < tasks; i++) {
                Marl.schedule(() -> {
                    counter.incrementAndGet();
                    if (wg.done()) {
                        zeroReached.incrementAndGet();
                    }
                });
            }
            assertTrue(wg.await(LONG));
            assertEquals(tasks, counter.get(), "await returned before every task was done");
        });
        assertEquals(1, zeroReached.get(), "exactly one done() brings the count to zero");
    }

    @ForEachWorkerCount
    void manyFibers_waitingOnOneGroup_areAllReleased(int workers) {
        int waiters = 500;
        AtomicInteger released = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup gate = new WaitGroup(1);
            WaitGroup started = new WaitGroup(waiters);
            WaitGroup finished = new WaitGroup(waiters);
            for (int i = 0; i < waiters; i++) {
                Marl.schedule(() -> {
                    started.done();
                    gate.await();
                    released.incrementAndGet();
                    finished.done();
                });
            }
            assertTrue(started.await(LONG));
            assertEquals(0, released.get());
            gate.done();
            assertTrue(finished.await(LONG));
        });
        assertEquals(waiters, released.get());
    }

    @ForEachWorkerCount
    void tasksThatAddBeforeScheduling_keepTheGroupOpenUntilTheirChildrenFinish(int workers) {
        AtomicInteger leaves = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup wg = new WaitGroup(10);
            for (int i = 0; i < 10; i++) {
                Marl.schedule(() -> {
                    wg.add(10);
                    for (int j = 0; j < 10; j++) {
                        Marl.schedule(() -> {
                            Fiber.yield();
                            leaves.incrementAndGet();
                            wg.done();
                        });
                    }
                    wg.done();
                });
            }
            assertTrue(wg.await(LONG));
            assertEquals(100, leaves.get());
        });
    }

    // ------------------------------------------------------------------ a crowd released by one zero

    /** Fibers in the crowds below: enough that the release overlaps the fibers leaving, on every worker count. */
    private static final int CROWD = 10_000;

    @ForEachWorkerCount
    void aCrowdOfFibers_releasedByOneZero_eachLeavesOnce(int workers) {
        AtomicIntegerArray leaves = new AtomicIntegerArray(CROWD);
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup gate = new WaitGroup(1);
            WaitGroup finished = new WaitGroup(CROWD);
            for (int i = 0; i < CROWD; i++) {
                int index = i;
                Marl.schedule(() -> {
                    gate.await();
                    leaves.incrementAndGet(index);
                    finished.done();
                });
            }
            awaitQueued(gate, CROWD);
            gate.done();
            assertTrue(finished.await(LONG), () -> finished.count() + " of " + CROWD + " fibers still in the wait");
            assertEquals(0, gate.waiterCount(), "nodes left in the group's queue");
        });
        for (int i = 0; i < CROWD; i++) {
            assertEquals(1, leaves.get(i), "times fiber " + i + " left the wait");
        }
    }

    /**
     * A fiber released by the zero leaves without taking the group's lock: held here from just
     * after the zero until every fiber of the crowd has left. (Taking it again, each released fiber
     * would queue on it, one at a time, parking its worker's thread.) Worker threads only: the test
     * thread holds the lock, so it cannot run the fibers.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4, 8, 64})
    void aCrowdOfFibers_releasedByOneZero_leavesWithoutTheGroupsLock(int workers) {
        TestSchedulers.withScheduler(workers, scheduler -> {
            WaitGroup gate = new WaitGroup(1);
            WaitGroup finished = new WaitGroup(CROWD);
            for (int i = 0; i < CROWD; i++) {
                scheduler.enqueue(new Task(() -> {
                    gate.await();
                    finished.done();
                }));
            }
            awaitQueued(gate, CROWD); // every fiber in the queue: none has the lock to take to get there
            gate.done();
            ReentrantLock lock = lockOf(gate);
            lock.lock();
            try {
                assertTrue(finished.await(LONG), () -> finished.count() + " of " + CROWD
                        + " released fibers did not leave while the group's lock was held");
            } finally {
                lock.unlock();
            }
        });
    }

    /** awaitQueued(group, n) returns once n fibers are queued on group; a fiber or bound thread yields meanwhile, running them. */
    static void awaitQueued(WaitGroup group, int n) {
        long deadline = System.nanoTime() + LONG.toNanos();
        while (group.waiterCount() < n) {
            assertTrue(System.nanoTime() - deadline < 0, () -> group.waiterCount() + " of " + n + " queued within " + LONG);
            if (Fiber.current() != null) {
                Fiber.yield();
            } else {
                LockSupport.parkNanos(100_000); // a poll, gentle on two cores
            }
        }
    }

    private static ReentrantLock lockOf(WaitGroup group) {
        try {
            Field lock = WaitGroup.class.getDeclaredField("lock");
            lock.setAccessible(true);
            return (ReentrantLock) lock.get(group);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("WaitGroup's lock field, which this test holds", e);
        }
    }

    // ------------------------------------------------------------------ timed waits

    @ForEachWorkerCount
    void timedAwait_onAFiber_returnsFalseAfterTheTimeout_thenTrueOnceDone(int workers) {
        Duration timeout = Duration.ofMillis(20);
        List<Object> results = new ArrayList<>();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup wg = new WaitGroup(1);
            WaitGroup finished = new WaitGroup(1);
            Marl.schedule(() -> {
                long start = System.nanoTime();
                boolean first = wg.await(timeout);
                long elapsed = System.nanoTime() - start;
                Marl.schedule(wg::done);
                boolean second = wg.await(LONG);
                synchronized (results) {
                    results.add(first);
                    results.add(elapsed >= timeout.toNanos());
                    results.add(second);
                }
                finished.done();
            });
            assertTrue(finished.await(LONG));
        });
        synchronized (results) {
            assertEquals(List.of(false, true, true), results);
        }
    }

    @ForEachWorkerCount
    void timedAwait_onTheBoundThread_timesOutThenSeesDone(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup wg = new WaitGroup(1);
            assertFalse(wg.await(Duration.ofMillis(10)));
            Marl.schedule(wg::done);
            assertTrue(wg.await(LONG));
        });
    }

    @Test
    void timedAwait_onAPlainThread_timesOutThenSeesDone() {
        WaitGroup wg = new WaitGroup(1);
        Duration timeout = Duration.ofMillis(20);
        long start = System.nanoTime();
        assertFalse(wg.await(timeout));
        assertTrue(System.nanoTime() - start >= timeout.toNanos());
        Thread doer = Thread.ofPlatform().start(wg::done);
        assertTrue(wg.await(LONG));
        join(doer);
    }

    // ------------------------------------------------------------------ plain threads

    @ForEachWorkerCount
    void plainThreads_waiting_areReleasedByTasks(int workers) {
        int threads = 8;
        AtomicInteger released = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup wg = new WaitGroup(100);
            AtomicInteger waiting = new AtomicInteger();
            List<Thread> waiters = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                waiters.add(Thread.ofPlatform().start(() -> {
                    waiting.incrementAndGet();
                    wg.await();
                    if (wg.count() == 0) {
                        released.incrementAndGet();
                    }
                }));
            }
            await().atMost(LONG).until(() -> waiting.get() == threads);
            for (int i = 0; i < 100; i++) {
                Marl.schedule(wg::done);
            }
            assertTrue(wg.await(LONG)); // with no workers, the tasks run only while this thread blocks here
            waiters.forEach(TaskErrors::join);
        });
        assertEquals(threads, released.get());
    }

    @Test
    void plainThreads_waiting_areReleasedByOtherPlainThreads() {
        int threads = 8;
        WaitGroup wg = new WaitGroup(threads);
        AtomicBoolean early = new AtomicBoolean();
        AtomicInteger doneCalls = new AtomicInteger();
        List<Thread> all = new ArrayList<>();
        Thread waiter = Thread.ofPlatform().start(() -> {
            wg.await();
            early.set(doneCalls.get() != threads);
        });
        for (int i = 0; i < threads; i++) {
            all.add(Thread.ofPlatform().start(() -> {
                doneCalls.incrementAndGet();
                wg.done();
            }));
        }
        all.forEach(TaskErrors::join);
        join(waiter);
        assertFalse(early.get(), "await returned before the last done()");
        assertEquals(0, wg.count());
    }

    // ------------------------------------------------------------------ a throwing scheduling policy

    /** FIFO, but awakened() throws once when asked. */
    static final class FailingOnceOnAwakened extends ForwardingPolicy {
        static final AtomicBoolean FAIL_NEXT = new AtomicBoolean();

        @Override
        public void awakened(Fiber fiber) {
            if (FAIL_NEXT.compareAndSet(true, false)) {
                throw new IllegalStateException("policy failed once in awakened");
            }
            super.awakened(fiber);
        }
    }

    @ForEachWorkerCount
    void onZeroCallbacks_stillRun_whenWakingAWaiterThrows(int workers) {
        // done() on the waiting fiber's own thread wakes it there, through the worker's policy: a policy
        // that throws made done() throw before it ran the onZero callbacks it had already taken from the
        // group, so they never ran (a Kotlin awaitSuspending on the group hung for good).
        AtomicBoolean callbackRan = new AtomicBoolean();
        TaskErrors errors = new TaskErrors();
        try {
            TestSchedulers.withBoundScheduler(errors.config(workers).setSchedulingPolicy(FailingOnceOnAwakened::new),
                    scheduler -> TestSchedulers.runOnFiber(scheduler, () -> {
                        WaitGroup wg = new WaitGroup(1);
                        wg.onZero(() -> callbackRan.set(true));
                        AtomicBoolean waiting = new AtomicBoolean();
                        // Timed, so that the waiter comes back at its deadline whatever its wake did.
                        Scheduler.get().enqueue(new Task(() -> {
                            waiting.set(true);
                            wg.await(Duration.ofSeconds(2));
                        }, Task.Flag.SAME_THREAD));
                        while (!waiting.get()) {
                            Fiber.yield(); // same thread: once it has set the flag, it is suspended in await
                        }
                        FailingOnceOnAwakened.FAIL_NEXT.set(true);
                        try {
                            wg.done();
                        } catch (IllegalStateException policyFailure) {
                            // the policy's exception may reach done()'s caller; the callbacks must run anyway
                        }
                        return null;
                    }));
        } finally {
            FailingOnceOnAwakened.FAIL_NEXT.set(false);
        }
        assertTrue(callbackRan.get(), "the onZero callback was lost");
    }
}
