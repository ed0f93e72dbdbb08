package org.marl4j.concurrency;

import java.util.concurrent.locks.ReentrantLock;
import org.marl4j.Fiber;

/**
 * AwaitWakeRace is the state the two wake-epoch tests share: a fiber waits in
 * {@code Fiber.await(lock, predicate)} for {@code ready}, and another thread sets {@code ready}
 * under the lock and then wakes that fiber. The tests differ only in where the waiting fiber runs.
 */
abstract class AwaitWakeRace {
    private final ReentrantLock lock = new ReentrantLock();
    private boolean ready; // guarded by lock
    private volatile Fiber waiter;

    /**
     * awaitReady() publishes the calling fiber and waits for ready; true if it saw ready (directly
     * or after a wake-up), false if the wait ran out, that is, the wake-up was lost.
     */
    final boolean awaitReady() {
        lock.lock();
        try {
            waiter = Fiber.current();
            return Fibers.promptly(() -> Fiber.current().await(lock, Fibers.LOST, () -> ready));
        } finally {
            lock.unlock();
        }
    }

    /** makeReadyAndWake() sets ready under the lock, then wakes the waiting fiber once it is published. */
    final void makeReadyAndWake() {
        lock.lock();
        try {
            ready = true;
        } finally {
            lock.unlock();
        }
        Fiber fiber;
        while ((fiber = waiter) == null) {
            Thread.onSpinWait();
        }
        fiber.wake();
    }
}
