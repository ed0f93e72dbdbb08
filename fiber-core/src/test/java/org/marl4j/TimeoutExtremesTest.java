package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every timed method of fiber-core at the extremes of its timeout: the smallest and largest
 * Durations (which {@code Duration.toNanos()} cannot express), a negative one, zero, and the
 * nanosecond extremes. None may throw ArithmeticException or wait for ever: a timeout that is not
 * positive only checks the condition, a huge one waits as long as it takes (here, not at all,
 * since the condition holds).
 */
class TimeoutExtremesTest {

    static Stream<Arguments> extremes() {
        List<Duration> timeouts = List.of(
                Duration.ofSeconds(Long.MIN_VALUE), Duration.ofNanos(Long.MIN_VALUE), Duration.ofNanos(-1),
                Duration.ZERO, Duration.ofNanos(Long.MAX_VALUE), Duration.ofSeconds(Long.MAX_VALUE, 999_999_999));
        List<Arguments> all = new ArrayList<>();
        for (int workers : new int[] {0, 1, 2, 8}) {
            for (Duration timeout : timeouts) {
                all.add(Arguments.of(workers, timeout));
            }
        }
        return all.stream();
    }

    private static boolean positive(Duration timeout) {
        return !timeout.isNegative() && !timeout.isZero();
    }

    @ParameterizedTest(name = "{0} workers, {1}")
    @MethodSource("extremes")
    void everyTimedWait_answersAtOnce_whenTheTimeoutIsNotPositive_orTheConditionHolds(int workers, Duration timeout) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            List<Object> seen = TestSchedulers.runOnFiber(scheduler, () -> timedWaits(timeout));
            assertEquals(List.of(), seen);
            assertEquals(List.of(), timedWaits(timeout)); // the bound thread's main fiber (or the plain wait with 0 workers)
        });
        assertEquals(List.of(), timedWaits(timeout)); // a plain thread
    }

    /** timedWaits(timeout) runs each timed wait and returns a description of every wrong answer. */
    private static List<Object> timedWaits(Duration timeout) {
        List<Object> wrong = new ArrayList<>();
        boolean waits = positive(timeout);
        Event unsignalled = new Event(Event.Mode.AUTO);
        if (!waits && unsignalled.await(timeout)) {
            wrong.add("Event.await on an unsignalled event");
        }
        Event signalled = new Event(Event.Mode.AUTO, true);
        if (!signalled.await(timeout)) {
            wrong.add("Event.await on a signalled event");
        }
        if (!waits && new WaitGroup(1).await(timeout)) {
            wrong.add("WaitGroup.await on a count of 1");
        }
        if (!new WaitGroup().await(timeout)) {
            wrong.add("WaitGroup.await on a count of 0");
        }
        ReentrantLock lock = new ReentrantLock();
        ConditionVariable cv = new ConditionVariable();
        lock.lock();
        try {
            if (!waits && cv.await(lock, timeout, () -> false)) {
                wrong.add("ConditionVariable.await on a false predicate");
            }
            if (!cv.await(lock, timeout, () -> true)) {
                wrong.add("ConditionVariable.await on a true predicate");
            }
            Fiber fiber = Fiber.current();
            if (fiber != null && !fiber.await(lock, timeout, () -> true)) {
                wrong.add("Fiber.await on a true predicate");
            }
        } finally {
            lock.unlock();
        }
        Mutex mutex = new Mutex();
        if (!mutex.tryLock(timeout)) {
            wrong.add("Mutex.tryLock(Duration) on a free mutex");
        } else {
            mutex.unlock();
        }
        for (long time : new long[] {Long.MIN_VALUE, -1, 0, Long.MAX_VALUE}) {
            try {
                if (!mutex.tryLock(time, TimeUnit.DAYS)) {
                    wrong.add("Mutex.tryLock(" + time + ", DAYS) on a free mutex");
                } else {
                    mutex.unlock();
                }
            } catch (InterruptedException e) {
                wrong.add(e);
            }
        }
        try (BoundedPool<Object> pool = new BoundedPool<>(1, Object::new)) {
            try (Pool.Loan<Object> loan = pool.borrow(timeout)) {
                if (loan == null) {
                    wrong.add("BoundedPool.borrow with an item free");
                } else if (!waits) {
                    assertNull(pool.borrow(timeout), "BoundedPool.borrow with no item free");
                }
            }
        }
        try (UnboundedPool<Object> pool = new UnboundedPool<>(Object::new)) {
            try (Pool.Loan<Object> loan = pool.borrow(timeout)) {
                if (loan == null) {
                    wrong.add("UnboundedPool.borrow");
                }
            }
        }
        if (!waits) {
            Fiber.sleep(timeout); // returns at once
        }
        return wrong;
    }

    @ParameterizedTest(name = "{0} workers, {1}")
    @MethodSource("extremes")
    void delayedEnqueue_andBoundedClose_takeEveryTimeout(int workers, Duration delay) {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(workers));
        if (workers == 0) {
            scheduler.bind();
        }
        Event ran = new Event(Event.Mode.MANUAL);
        DelayedTask task = scheduler.enqueue(new Task(ran::signal), delay);
        if (positive(delay)) {
            assertTrue(task.cancel(), "a delay of " + delay + " has not passed yet");
            assertFalse(ran.isSignalled());
        } else if (workers > 0) {
            assertTrue(ran.await(TaskErrors.LONG), "a delay of " + delay + " has passed at once");
        }
        if (delay.isNegative()) {
            scheduler.close(Duration.ZERO);
        } else {
            scheduler.close(delay); // nothing left to wait for: returns at once, whatever the timeout
        }
        assertTrue(workers == 0 || ran.isSignalled() != positive(delay));
    }
}
