package org.marl4j;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * The lock of one worker ({@code work.mutex} in marl): exclusive and not reentrant, like marl's.
 *
 * <p>It is a class of its own rather than a {@code ReentrantLock} for two reasons. The worker's
 * fibers pass it to one another across fiber switches (all on the worker's one OS thread), so a
 * reentrant hold count would only hide bugs. And the lock-checking mode ({@link LockCheck}) must
 * recognise this lock among the synchronizers a thread holds when a fiber suspends: the JVM
 * reports a synchronizer by the class of its AQS, which here is this class. It is a {@link Lock}
 * so that Error Prone's GuardedBy check sees {@code lock(); try { ... } finally { unlock(); }}.
 */
final class WorkerLock extends AbstractQueuedSynchronizer implements Lock {
    private static final long serialVersionUID = 1L;

    /**
     * lock() takes the lock, waiting for it if another thread holds it. A thread that already holds
     * it gets an IllegalStateException instead of waiting for itself forever: see {@link #reentered}.
     */
    @Override
    public void lock() {
        if (!compareAndSetState(0, 1)) {
            Thread self = Thread.currentThread();
            if (getExclusiveOwnerThread() == self) { // read only when contended
                throw reentered();
            }
            if (self.isVirtual()) {
                spinToAcquire();
            } else {
                acquire(1);
            }
        } else {
            setExclusiveOwnerThread(Thread.currentThread());
        }
    }

    /**
     * spinToAcquire() takes the lock for a virtual thread, which must never park for it: a fiber of
     * the virtual-thread engine would unmount, its worker's trampoline would then queue behind it for
     * this lock, and nothing would be left to run the fiber when the lock is handed to it. Every
     * other holder keeps the lock for a few bookkeeping steps, so the spin is short.
     */
    private void spinToAcquire() {
        while (!tryAcquire(1)) {
            Thread.onSpinWait();
        }
    }

    /**
     * handOver(from, to) passes a hold of {@code from} on to {@code to}, if {@code from} holds the
     * lock; otherwise does nothing. The virtual-thread engine's trampoline hands the lock to the
     * fiber it resumes and takes it back when the fiber yields (see {@link VirtualFiber}): the same
     * OS thread, but a different {@code Thread} while the fiber is mounted.
     */
    void handOver(Thread from, Thread to) {
        if (getExclusiveOwnerThread() == from && getState() == 1) {
            setExclusiveOwnerThread(to);
        }
    }

    /**
     * reentered() is the error for a thread that asks again for the worker lock it holds, which only
     * code run under that lock can do: a {@link SchedulingPolicy} callback that enqueues, waits or
     * otherwise calls into the scheduler, against its contract. Waiting would hang the worker for
     * good (the lock is not reentrant), and retrying a tryLock elsewhere would spin forever, so the
     * call fails, naming the likely culprit; the policy's caller reports it as any policy error.
     */
    static IllegalStateException reentered() {
        return new IllegalStateException("a marl4j worker's lock was asked for again by the thread that holds it, "
                + "which would hang that worker: a SchedulingPolicy callback (enqueued, awakened, pickNextTask, "
                + "pickNextFiber, steal, remove) called into the scheduler (an enqueue, a wait, a signal that wakes a "
                + "fiber). Policy callbacks run under the worker's lock and may only order the tasks and fibers they "
                + "are given: enqueue follow-up work from a task instead");
    }

    /** Not supported: the worker lock is held for a few bookkeeping steps, never waited for interruptibly. */
    @Override
    public void lockInterruptibly() {
        throw new UnsupportedOperationException("the worker lock is taken with lock() or tryLock() only");
    }

    @Override
    public boolean tryLock() {
        return tryAcquire(1);
    }

    /** Not supported, as {@link #lockInterruptibly()}. */
    @Override
    public boolean tryLock(long time, TimeUnit unit) {
        throw new UnsupportedOperationException("the worker lock is taken with lock() or tryLock() only");
    }

    @Override
    public void unlock() {
        release(1);
    }

    /** isHeldByCurrentThread() says whether the calling thread holds this lock. */
    boolean isHeldByCurrentThread() {
        return isHeldExclusively();
    }

    @Override
    public Condition newCondition() {
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
