package org.marl4j;

import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import java.util.concurrent.locks.Condition;

/**
 * The lock of one worker ({@code work.mutex} in marl): exclusive and not reentrant, like marl's.
 *
 * <p>It is a class of its own rather than a {@code ReentrantLock} for two reasons. The worker's
 * fibers pass it to one another across fiber switches (all on the worker's one thread), so a
 * reentrant hold count would only hide bugs. And the lock-checking mode ({@link LockCheck}) must
 * recognise this lock among the synchronizers a thread holds when a fiber suspends: the JVM
 * reports a synchronizer by the class of its AQS, which here is this class.
 */
final class WorkerLock extends AbstractQueuedSynchronizer {
    private static final long serialVersionUID = 1L;

    void lock() {
        if (!compareAndSetState(0, 1)) {
            acquire(1);
        } else {
            setExclusiveOwnerThread(Thread.currentThread());
        }
    }

    boolean tryLock() {
        return tryAcquire(1);
    }

    void unlock() {
        release(1);
    }

    /** isHeldByCurrentThread() says whether the calling thread holds this lock. */
    boolean isHeldByCurrentThread() {
        return isHeldExclusively();
    }

    Condition newCondition() {
        return new ConditionObject();
    }

    @Override
    protected boolean tryAcquire(int ignored) {
        if (compareAndSetState(0, 1)) {
            setExclusiveOwnerThread(Thread.currentThread());
            return true;
        }
        return false;
    }

    @Override
    protected boolean tryRelease(int ignored) {
        if (getExclusiveOwnerThread() != Thread.currentThread()) {
            throw new IllegalMonitorStateException("worker lock released by a thread that does not hold it");
        }
        setExclusiveOwnerThread(null);
        setState(0);
        return true;
    }

    @Override
    protected boolean isHeldExclusively() {
        return getExclusiveOwnerThread() == Thread.currentThread();
    }
}
