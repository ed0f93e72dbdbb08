package org.marl4j.futures;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.marl4j.Event;
import org.marl4j.Fiber;

/**
 * A one-shot gate that opens once and stays open: what {@link MarlFuture#get()} and
 * {@link MarlExecutorService#awaitTermination} wait on.
 *
 * <p>A fiber (including a bound thread's main fiber) waits on a MANUAL {@link Event}, which
 * suspends only the fiber; fiber waits are not interruptible, and the worker thread's interrupt
 * status, shared by all its fibers, is neither read nor cleared. A plain thread waits on a
 * {@link CountDownLatch}, so it can be interrupted as {@code java.util.concurrent} users expect.
 * {@link #open()} releases both kinds of waiter.
 */
final class Latch {
    private final Event fibers = new Event(Event.Mode.MANUAL);
    private final CountDownLatch threads = new CountDownLatch(1);

    /** open() opens the gate and wakes every waiter; later calls do nothing. */
    void open() {
        threads.countDown(); // first: isOpen() is true before any fiber is woken
        fibers.signal();
    }

    boolean isOpen() {
        return threads.getCount() == 0;
    }

    /** await() waits until open; a plain thread may be interrupted. */
    void await() throws InterruptedException {
        if (isOpen()) {
            return;
        }
        if (Fiber.current() != null) {
            fibers.await();
        } else {
            threads.await();
        }
    }

    /** await(nanos) waits up to nanos until open; returns whether it is open. */
    boolean await(long nanos) throws InterruptedException {
        if (isOpen()) {
            return true;
        }
        if (nanos <= 0) {
            return false;
        }
        if (Fiber.current() != null) {
            return fibers.await(Duration.ofNanos(nanos));
        }
        return threads.await(nanos, TimeUnit.NANOSECONDS);
    }
}
