package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.marl4j.WaitQueue.Waiter;

/**
 * ConditionVariable is a synchronization primitive that blocks callers until a predicate, guarded
 * by a lock of theirs, becomes true: marl's {@code marl::ConditionVariable}. On a fiber, waiting
 * suspends only the fiber; on a plain thread it blocks the thread.
 *
 * <pre>{@code
 * Mutex mutex = new Mutex();
 * ConditionVariable cv = new ConditionVariable();
 * mutex.lock();
 * try {
 *     cv.await(mutex, () -> !queue.isEmpty());
 *     item = queue.poll();
 * } finally {
 *     mutex.unlock();
 * }
 * }</pre>
 *
 * <p>The lock may be any {@link Lock} the waiter holds; it is released while waiting. A
 * {@link Mutex} or a {@code ReentrantLock} held several times by the waiter is released completely
 * while it waits and held the same number of times again when {@code await} returns, as
 * {@code ReentrantLock}'s own {@code Condition} does; any other reentrant lock must be held once.
 * Change the predicate's state with the lock held, then call {@link #signal()} or
 * {@link #signalAll()} (with or without the lock). Waiters are woken in the order they began to wait.
 */
public final class ConditionVariable {
    private final ReentrantLock guard = new ReentrantLock();
    /** Guarded by guard. */
    @GuardedBy("guard")
    private final WaitQueue waiters = new WaitQueue();
    /** waiters.size(), readable without guard so signals with nobody waiting cost one read. */
    private volatile int numWaiting;

    /** ConditionVariable() creates a condition variable with no waiters. */
    public ConditionVariable() {}

    /** waiterCount() is how many waiters a signal could pick now; for tests. */
    int waiterCount() {
        return numWaiting;
    }

    /** signal() wakes one waiter, if any. */
    public void signal() {
        if (numWaiting == 0) {
            return;
        }
        Waiter waiter;
        guard.lock();
        try {
            waiter = waiters.poll();
            numWaiting = waiters.size();
        } finally {
            guard.unlock();
        }
        if (waiter != null) {
            waiter.notifyWaiter();
        }
    }

    /** signalAll() wakes every waiter. */
    public void signalAll() {
        if (numWaiting == 0) {
            return;
        }
        Waiter first;
        guard.lock();
        try {
            first = waiters.pollAll();
            numWaiting = 0;
        } finally {
            guard.unlock();
        }
        WaitQueue.wakeChain(first);
    }

    /**
     * await(lock, predicate) blocks until {@code predicate} is true. {@code lock} must be held by the
     * caller; it is released while waiting (every hold of a {@link Mutex} or {@code ReentrantLock})
     * and held again, as many times, when this returns.
     *
     * @param lock the lock that guards the predicate's state, held by the caller
     * @param predicate the condition to wait for, evaluated with {@code lock} held
     * @throws IllegalMonitorStateException if the caller does not hold a {@link Mutex} or
     *     {@code ReentrantLock} given as {@code lock}
     * @throws NullPointerException if an argument is null
     */
    public void await(Lock lock, BooleanSupplier predicate) {
        await(lock, predicate, false, 0);
    }

    /**
     * await(lock, timeout, predicate) is {@link #await(Lock, BooleanSupplier)} that gives up after
     * {@code timeout}; returns the predicate's last value, so false means it timed out. A timeout
     * too large to count in nanoseconds waits practically forever.
     *
     * @param lock the lock that guards the predicate's state, held by the caller
     * @param timeout how long to wait at most; zero or negative only evaluates the predicate
     * @param predicate the condition to wait for, evaluated with {@code lock} held
     * @return whether the predicate became true
     * @throws IllegalMonitorStateException if the caller does not hold a {@link Mutex} or
     *     {@code ReentrantLock} given as {@code lock}
     * @throws NullPointerException if an argument is null
     */
    public boolean await(Lock lock, Duration timeout, BooleanSupplier predicate) {
        return await(lock, predicate, true, Fiber.deadlineAfter(timeout));
    }

    private boolean await(Lock lock, BooleanSupplier predicate, boolean timed, long deadline) {
        Objects.requireNonNull(lock, "lock must not be null");
        Objects.requireNonNull(predicate, "predicate must not be null");
        while (!predicate.getAsBoolean()) {
            if (timed && deadline - System.nanoTime() <= 0) {
                return false;
            }
            // A fresh node, not the fiber's own: the wait takes lock (perhaps a Mutex, which uses
            // the fiber's node) again before this node leaves the queue. Refuses before a signal can pick it.
            Waiter waiter = Waiter.forCurrent(lock);
            guard.lock();
            try {
                waiters.add(waiter);
                numWaiting = waiters.size();
            } finally {
                guard.unlock();
            }
            boolean notified = false;
            try {
                notified = awaitReleasingEveryHold(waiter, lock, timed, deadline);
            } finally {
                if (!notified) {
                    guard.lock();
                    try {
                        waiters.leave(waiter); // timed out, woken spuriously, or the wait threw
                        numWaiting = waiters.size();
                    } finally {
                        guard.unlock();
                    }
                }
            }
        }
        return true;
    }

    /** Waits with {@code lock} released completely (see {@link LockHolds}), every hold given back after. */
    private static boolean awaitReleasingEveryHold(Waiter waiter, Lock lock, boolean timed, long deadline) {
        int holds = LockHolds.reduceToOne(lock, "ConditionVariable.await");
        try {
            return waiter.await(lock, timed, deadline);
        } finally {
            LockHolds.restore(lock, holds); // the wait took the lock again, even when it threw
        }
    }
}
