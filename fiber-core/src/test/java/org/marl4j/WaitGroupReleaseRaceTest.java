package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The done() that brings a wait group to zero races another thread's add() and matching done():
 * whichever lands first, the count ends at zero, so every fiber waiting on the group must leave.
 * A fiber released by a zero reads the count without the group's lock; one that finds the count
 * raised again by the add() waits for the next zero, which the racing done() brings, and is never
 * left queued. In half the rounds the waiters are not all queued yet when the race starts, so a
 * fiber's first look at the count races it too.
 */
class WaitGroupReleaseRaceTest {
    private static final int ROUNDS = TestSchedulers.stress() ? 20_000 : 2_000;
    private static final Duration RACE = Duration.ofSeconds(3);
    private static final int WAITERS = 4;

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 8})
    void zeroRacingAnAddAndItsDone_releasesEveryWaiter(int workers) {
        Scheduler.Config config = TestSchedulers.config(workers);
        Scheduler scheduler = new Scheduler(config);
        try {
            CyclicBarrier start = new CyclicBarrier(2);
            AtomicReference<WaitGroup> racing = new AtomicReference<>();
            Thread other = TestSchedulers.startThread("racing-add", () -> {
                while (meet(start)) {
                    WaitGroup group = racing.get();
                    if (group == null) {
                        return; // the test is over
                    }
                    group.add();
                    group.done();
                    if (!meet(start)) {
                        return;
                    }
                }
            });
            try {
                long end = System.nanoTime() + RACE.toNanos();
                for (int i = 0; i < ROUNDS && System.nanoTime() - end < 0; i++) {
                    WaitGroup group = new WaitGroup(1);
                    WaitGroup left = new WaitGroup(WAITERS);
                    for (int w = 0; w < WAITERS; w++) {
                        scheduler.enqueue(new Task(() -> {
                            group.await();
                            left.done();
                        }));
                    }
                    if (i % 2 == 0) {
                        WaitGroupTest.awaitQueued(group, WAITERS);
                    }
                    racing.set(group);
                    awaitBarrier(start);
                    group.done();
                    awaitBarrier(start);
                    int round = i;
                    assertTrue(left.await(TestSchedulers.PATIENCE), () -> "round " + round + ": " + left.count() + " of "
                            + WAITERS + " waiters never released, " + group.waiterCount() + " still queued on " + group);
                    assertEquals(0, group.count(), "round " + i);
                    assertEquals(0, group.waiterCount(), "round " + i + ": nodes left in the group's queue");
                }
            } finally {
                racing.set(null);
                stopRacing(start, other);
            }
        } finally {
            // Bounded: a waiter never released is cancelled, and the failure above is reported, not a hang.
            scheduler.close(TestSchedulers.PATIENCE);
        }
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    /**
     * stopRacing(barrier, racer) ends the racing thread wherever it is: a reset breaks only a wait
     * already begun, and the racer may be between two barriers, about to wait for a round that will
     * never come; so the barrier is broken again until the racer has gone (bounded by the patience).
     */
    private static void stopRacing(CyclicBarrier barrier, Thread racer) {
        long deadline = System.nanoTime() + TestSchedulers.PATIENCE.toNanos();
        try {
            while (racer.isAlive() && System.nanoTime() - deadline < 0) {
                barrier.reset();
                racer.join(Duration.ofMillis(10));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        TaskErrors.join(racer);
    }

    /** meet(barrier) is the racing thread's barrier: false once the test has broken it, or gave up on it. */
    private static boolean meet(CyclicBarrier barrier) {
        try {
            barrier.await(2 * TestSchedulers.PATIENCE.toSeconds(), TimeUnit.SECONDS);
            return true;
        } catch (BrokenBarrierException | TimeoutException ended) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void awaitBarrier(CyclicBarrier barrier) {
        try {
            barrier.await(TestSchedulers.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
