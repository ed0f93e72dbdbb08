package org.marl4j;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

/**
 * One wait on a marl4j primitive by a fiber or, off the scheduler, by a plain thread: the node the
 * primitives keep in their {@link WaitQueue}s.
 *
 * <p>{@link #wake()} sets {@link #notified} before it wakes the fiber or unparks the thread, and a
 * fiber checks the flag under its worker's lock before it suspends ({@link FiberWaits#park}), so a
 * notification can never fall between a waiter's enqueue and its suspend.
 *
 * <p>A fiber's wait may be refused (the lock check, a cancelled scheduler, a fiber that is not the
 * running one): the refusal is thrown while no notifier can have picked the waiter yet, either
 * before it is queued ({@link #forCurrent(Lock)}) or while the lock that guards its queue is still
 * held ({@link #await}), so a refused wait never swallows a notification meant for another waiter.
 * A wait that ends without using a notification it was already given (it timed out as the
 * notifier took it, or a bounded close cancelled it) passes it on to the next waiter
 * ({@link WaitQueue#leave}).
 */
final class Waiter {
    /** The waiting fiber, or null when a plain thread waits. */
    private final Fiber fiber;
    private final Thread thread;
    volatile boolean notified;

    // WaitQueue links, guarded by the owning primitive's lock.
    Waiter prev;
    Waiter next;
    boolean queued;

    private Waiter(Fiber fiber, Thread thread) {
        this.fiber = fiber;
        this.thread = thread;
    }

    /** forCurrent() creates a waiter for the calling fiber, or for the calling thread if it is on none. */
    static Waiter forCurrent() {
        Fiber fiber = Fiber.current();
        return fiber != null ? new Waiter(fiber, null) : new Waiter(null, Thread.currentThread());
    }

    /**
     * forCurrent(releasedByWait) is {@link #forCurrent()} for a primitive whose notifiers do not
     * take the lock the wait releases (a condition variable): it checks that the fiber may suspend
     * now, before the waiter is queued where a notifier could pick it.
     */
    static Waiter forCurrent(Lock releasedByWait) {
        Waiter waiter = forCurrent();
        if (waiter.fiber != null) {
            waiter.fiber.worker.waits.checkMaySuspend(waiter.fiber, releasedByWait);
        }
        return waiter;
    }

    /** owner() is what owns a lock taken by this waiter's caller: its fiber, or its thread. */
    static Object currentOwner() {
        Fiber fiber = Fiber.current();
        return fiber != null ? fiber : Thread.currentThread();
    }

    void wake() {
        notified = true;
        if (fiber != null) {
            fiber.wake();
        } else {
            LockSupport.unpark(thread);
        }
    }

    /**
     * await() releases {@code lock}, waits until woken or the deadline, and takes {@code lock} again.
     * Returns whether it was notified. Called with {@code lock} held, by the waiter's own fiber or thread.
     */
    boolean await(Lock lock, boolean timed, long deadline) {
        if (fiber != null) {
            // Still under lock, which notifiers of a queue-guarding lock need: a refusal here
            // leaves the waiter un-notified for the caller to unlink.
            fiber.worker.waits.checkMaySuspend(fiber, lock);
            fiber.worker.waits.park(fiber, lock, this, timed, deadline);
            return notified;
        }
        lock.unlock();
        boolean interrupted = false;
        try {
            while (!notified) {
                if (timed) {
                    long nanos = deadline - System.nanoTime();
                    if (nanos <= 0) {
                        break;
                    }
                    LockSupport.parkNanos(this, nanos);
                } else {
                    LockSupport.park(this);
                }
                interrupted |= Thread.interrupted();
            }
        } finally {
            lock.lock();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return notified;
    }
}
