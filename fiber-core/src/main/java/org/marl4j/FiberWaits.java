package org.marl4j;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;
import org.marl4j.WaitQueue.Waiter;

/**
 * The fiber waits other than a primitive's untimed park: marl's {@code Worker::wait} with a user's
 * lock and predicate ({@link Fiber#await}), a predicate on volatile state, a wait for a future or a
 * callback ({@link FiberCallback}), a timed or condition-variable wait of a {@link Waiter}, and a
 * fiber's sleep. Each takes what it needs from its arguments and suspends through its fiber's
 * {@link Worker} ({@link Worker#suspend(Fiber, boolean, long)}, or without the lock, {@link
 * Worker#suspend(Fiber, Waiter, int)}), whose overview has the protocol: why no wake-up is lost
 * although the user's lock is released before the worker lock is taken, and why nothing here may
 * add a frame or a live local between a wait and its yield (Memory). The methods are static so that
 * they hold nothing: a static method costs a suspended fiber no more than the worker's own did.
 */
final class FiberWaits {
    private FiberWaits() {}

    /**
     * await() is marl's Worker::wait: suspends {@code fiber} (the current one) until {@code pred},
     * checked with {@code userLock} held, is true or the deadline passes. Called and returns with
     * userLock held, as many times as before (a reentrant one is released completely meanwhile).
     * Returns the last value of pred.
     */
    @Excludes("fiber.worker.work.lock")
    static boolean await(Fiber fiber, Lock userLock, boolean timed, long deadline, BooleanSupplier pred) {
        // Every hold of a reentrant userLock is released while suspended, or its waker could not take it.
        int holds = LockHolds.reduceToOne(userLock, "Fiber.await");
        try {
            return awaitHeldOnce(fiber.worker, fiber, userLock, timed, deadline, pred);
        } finally {
            LockHolds.restore(userLock, holds);
        }
    }

    @Excludes("worker.work.lock")
    private static boolean awaitHeldOnce(Worker worker, Fiber fiber, Lock userLock, boolean timed, long deadline,
            BooleanSupplier pred) {
        while (true) {
            // Read with userLock held, before pred: a waker that makes pred true must take userLock
            // after this, so its wake() bumps the epoch after this read, and is seen below or finds
            // us suspended.
            int epoch = fiber.wakeEpoch;
            if (pred.getAsBoolean()) {
                return true;
            }
            if (timed && deadline - System.nanoTime() <= 0) {
                return false;
            }
            worker.checkMaySuspend(fiber, userLock);
            userLock.unlock();
            worker.work.lock.lock();
            try {
                if (fiber.wakeEpoch == epoch) {
                    worker.suspend(fiber, timed, deadline);
                }
            } finally {
                worker.work.lock.unlock();
                relock(fiber, userLock);
            }
        }
    }

    /**
     * relock(fiber, userLock) takes a wait's user lock again, as {@code Condition.await} does before
     * it returns or throws, even when a bounded close has cancelled this worker's waits meanwhile: a
     * {@link Mutex} contended then would refuse the fiber, and the caller's {@code finally} would
     * unlock a Mutex it does not hold (and restore its holds onto the owner's). So the fiber's own
     * waits for the Mutex are spared the cancellation; the holder, cancelled too, unwinds and
     * releases it. Called without the worker lock.
     */
    static void relock(Fiber fiber, Lock userLock) {
        boolean outer = fiber.relocking(); // a Mutex's own wait for its guard nests a relock in one
        fiber.setRelocking(true);
        try {
            userLock.lock();
        } finally {
            fiber.setRelocking(outer);
        }
    }

    /**
     * await(fiber, pred) suspends {@code fiber} (the current one) until {@code pred}, which reads
     * only state written with volatile (or stronger) semantics before its writer wakes the fiber,
     * is true. No lock is needed: the epoch is read before pred, so if pred misses a write, the
     * wake() that follows the write bumps the epoch after this read (volatile accesses are totally
     * ordered), and is seen under the worker lock or finds the fiber suspended.
     */
    @Excludes("fiber.worker.work.lock")
    static void await(Fiber fiber, BooleanSupplier pred) {
        Worker worker = fiber.worker;
        while (true) {
            int epoch = fiber.wakeEpoch;
            if (pred.getAsBoolean()) {
                return;
            }
            worker.checkMaySuspend(fiber, null);
            worker.work.lock.lock();
            try {
                if (fiber.wakeEpoch == epoch) {
                    worker.suspend(fiber, false, 0);
                }
            } finally {
                worker.work.lock.unlock();
            }
        }
    }

    /**
     * park() suspends {@code fiber} (the current one) unless {@code waiter} has already been
     * notified, releasing userLock meanwhile: the timed wait of a {@link Waiter}, and a condition
     * variable's. The waiter's flag is set before its fiber is woken, so a notification that races
     * with this call is seen here or wakes the suspended fiber. The refusals (lock check,
     * cancellation) are checked before the waiter is published, by the caller
     * ({@link Worker#checkMaySuspend}).
     */
    @Excludes("fiber.worker.work.lock")
    static void park(Fiber fiber, Lock userLock, Waiter waiter, boolean timed, long deadline) {
        Worker worker = fiber.worker;
        userLock.unlock();
        worker.work.lock.lock();
        try {
            if (!waiter.notified) {
                worker.suspend(fiber, timed, deadline);
            }
        } finally {
            worker.work.lock.unlock();
            relock(fiber, userLock);
        }
    }

    /**
     * awaitDone(fiber, future) suspends {@code fiber} (the current one, whose refusal checks the
     * caller ran) until {@code future} is done; the caller has registered the fiber's stack as the
     * future's callback, which wakes the fiber ({@link FiberContinuation#accept}). The wait is on
     * the wake epoch, as {@link #await(Fiber, BooleanSupplier)}'s, without the worker lock: the epoch
     * is read before isDone(), so a completion that isDone() misses wakes the fiber after that read,
     * and the trampoline sees the epoch moved or finds the fiber suspended. Other wakes suspend it
     * again.
     */
    @Excludes("fiber.worker.work.lock")
    static void awaitDone(Fiber fiber, CompletableFuture<?> future) {
        while (true) {
            int epoch = fiber.wakeEpoch;
            if (future.isDone()) {
                return;
            }
            if (!Worker.suspend(fiber, Worker.EPOCH_WAIT, epoch)) {
                // A JFR recording or a pinned yield: the whole wait the locked way, its epoch read
                // anew (so nothing but fiber and future is live across the yield above).
                await(fiber, future::isDone);
                return;
            }
        }
    }

    /**
     * awaitNotified(fiber, waiter) suspends {@code fiber} (the current one: the caller checked) until
     * {@code waiter}, which no queue holds, has been notified: {@link FiberCallback}'s wait, whose
     * refusal checks ran before the callback was handed out. Spurious wakes ({@link Fiber#wake()} by
     * anyone) suspend it again. A wait that ends un-notified (cancelled) marks the node taken, since
     * its callback may still run and write to it ({@link Waiter}). Kept small for the same reason as
     * {@link Worker#park}: every live value here is in every suspended fiber's stack chunk.
     */
    @Excludes("fiber.worker.work.lock")
    static void awaitNotified(Fiber fiber, Waiter waiter) {
        try {
            while (!waiter.notified) {
                Worker.park(fiber, waiter);
            }
        } catch (Throwable t) {
            waiter.takenByNotifier(); // harmless if notified meanwhile: the node is freed once notified
            throw t;
        }
    }

    /** sleep(fiber, deadline) suspends the current fiber until the deadline has passed. */
    @Excludes("fiber.worker.work.lock")
    static void sleep(Fiber fiber, long deadline) {
        Worker worker = fiber.worker;
        worker.checkMaySuspend(fiber, null);
        worker.work.lock.lock();
        try {
            while (deadline - System.nanoTime() > 0) {
                worker.suspend(fiber, true, deadline);
            }
        } finally {
            worker.work.lock.unlock();
        }
    }
}
