package org.marl4j;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The holds of a reentrant lock across a wait that releases it: a wait must release every hold,
 * since keeping one would shut out the very fiber (or thread) that is to wake it, and the caller
 * gets them all back when the wait returns, as {@code ReentrantLock}'s own {@code Condition} does.
 * A {@link Mutex}, a {@code ReentrantLock} or a {@code ReentrantReadWriteLock}'s write lock held n
 * times keeps one hold for the wait to release and take again; the other n - 1 are put aside here.
 * Any other lock must be held once (a lock whose holds cannot be counted would keep the extra ones
 * through the wait, shutting out its waker).
 */
final class LockHolds {
    private LockHolds() {}

    /**
     * reduceToOne(lock, waitName) leaves the caller with one hold of {@code lock} and returns how
     * many it had, for {@link #restore}. Throws, naming {@code waitName}, if the caller does not hold
     * a Mutex or ReentrantLock given as lock.
     */
    static int reduceToOne(Lock lock, String waitName) {
        if (lock instanceof Mutex mutex) {
            if (!mutex.isHeldByCurrentFiber()) {
                throw new IllegalMonitorStateException(waitName + " needs " + mutex
                        + " held by the caller: lock it before awaiting");
            }
            return mutex.reduceToOneHold();
        }
        if (lock instanceof ReentrantLock reentrant) {
            return keepOneHold(reentrant, reentrant.getHoldCount(), waitName);
        }
        if (lock instanceof ReentrantReadWriteLock.WriteLock write) {
            return keepOneHold(write, write.getHoldCount(), waitName);
        }
        return 1;
    }

    /** keepOneHold(lock, holds, waitName) releases all but one of the calling thread's holds of lock. */
    private static int keepOneHold(Lock lock, int holds, String waitName) {
        if (holds == 0) {
            throw new IllegalMonitorStateException(waitName + " needs " + lock
                    + " held by the calling thread: lock it before awaiting");
        }
        for (int i = 1; i < holds; i++) {
            lock.unlock();
        }
        return holds;
    }

    /** restore(lock, holds) gives back the holds reduceToOne put aside; called holding lock once. */
    static void restore(Lock lock, int holds) {
        if (lock instanceof Mutex mutex) {
            if (mutex.isHeldByCurrentFiber()) { // it is, unless the wait failed to take it again (a bug)
                mutex.restoreHolds(holds);
            }
        } else if (lock instanceof ReentrantLock || lock instanceof ReentrantReadWriteLock.WriteLock) {
            for (int i = 1; i < holds; i++) {
                lock.lock();
            }
        }
    }
}
