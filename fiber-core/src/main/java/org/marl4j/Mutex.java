package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import org.marl4j.WaitQueue.Waiter;

/**
 * Mutex is a mutual-exclusion {@link Lock} owned by a fiber (or, off the scheduler, by a thread):
 * the lock to hold across a fiber suspend. Contention suspends the waiting fiber, never its thread.
 * A bound thread's own code (not its tasks) owns a Mutex as that thread, so what it locked before
 * {@link Scheduler#bind()} it still holds after, and a task never counts as its owner, not even one
 * that {@link Scheduler#unbind()} runs on that thread.
 *
 * <pre>{@code
 * mutex.lock();
 * try {
 *     cv.await(mutex, () -> ready);   // fine: the mutex belongs to this fiber, not the thread
 * } finally {
 *     mutex.unlock();
 * }
 * }</pre>
 *
 * <p>Why not {@code ReentrantLock}: the fibers of one worker share its thread, and a
 * {@code ReentrantLock} (like a monitor) belongs to a thread, so two fibers on the same thread would
 * both acquire it. A Mutex excludes them. It is reentrant for its owner and not fair: a released
 * Mutex may be taken by a newcomer before a woken waiter. Waiting is not interruptible: {@link
 * #lockInterruptibly()} only checks the interrupt status on entry. Conditions: use
 * {@link ConditionVariable} with this Mutex.
 */
public final class Mutex implements Lock {
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(Mutex.class, "owner", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The owner (see {@link #currentOwner()}): a Fiber, a Thread, or a pinned wait's inline task run; null when free. */
    @SuppressWarnings("unused") // accessed through OWNER
    private volatile Object owner;
    /** Reentrant holds by the owner; touched only by the owner. */
    private int holds;

    private final ReentrantLock guard = new ReentrantLock();
    /** Guarded by guard. */
    @GuardedBy("guard")
    private final WaitQueue waiters = new WaitQueue();
    /**
     * waiters.size(), written under guard. A waiter publishes itself here before its last look at
     * {@code owner}, and unlock() clears {@code owner} before it reads this (both volatile), so at
     * least one of them sees the other: no waiter sleeps through a release.
     */
    private volatile int numWaiting;

    /** Mutex() creates an unlocked mutex. */
    public Mutex() {}

    /** lock() acquires the mutex, suspending the calling fiber (or blocking the thread) while another owns it. */
    @Override
    public void lock() {
        acquire(false, 0);
    }

    /** lockInterruptibly() is {@link #lock()} after checking the thread's interrupt status. */
    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        lock();
    }

    /** tryLock() acquires the mutex only if it is free (or already owned by the caller). */
    @Override
    public boolean tryLock() {
        Object me = currentOwner();
        if (OWNER.compareAndSet(this, null, me)) {
            holds = 1;
            return true;
        }
        if (owner == me) {
            holds++;
            return true;
        }
        return false;
    }

    /**
     * tryLock(time, unit) waits up to the given time for the mutex; not interruptible while waiting.
     * A time too large to count in nanoseconds ({@code Long.MAX_VALUE} days) waits practically
     * forever, as the JDK's locks do.
     *
     * @param time how long to wait at most, in {@code unit}s; zero or negative does not wait
     * @param unit the unit of {@code time}
     * @return whether the mutex was acquired
     * @throws InterruptedException if the thread was interrupted on entry
     * @throws NullPointerException if unit is null
     */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit must not be null");
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        // TimeUnit.toNanos saturates at Long.MAX_VALUE; Duration.of(time, unit) would overflow instead.
        return tryLock(Duration.ofNanos(unit.toNanos(time)));
    }

    /**
     * tryLock(timeout) waits up to {@code timeout} for the mutex; returns whether it was acquired.
     *
     * @param timeout how long to wait at most
     * @return whether the mutex was acquired
     */
    public boolean tryLock(Duration timeout) {
        return acquire(true, Fiber.deadlineAfter(timeout));
    }

    /**
     * unlock() releases one hold; the last one frees the mutex and wakes the longest waiter.
     *
     * @throws IllegalMonitorStateException if the caller does not own the mutex
     */
    @Override
    public void unlock() {
        Object me = currentOwner();
        if (owner != me) {
            throw new IllegalMonitorStateException("Mutex.unlock() by " + me + ", which does not own it (owner: "
                    + owner + ")");
        }
        if (--holds > 0) {
            return;
        }
        OWNER.setVolatile(this, null);
        if (numWaiting > 0) {
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
    }

    /** Conditions are not supported: use {@link ConditionVariable} with this Mutex. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException(
                "Mutex has no Condition objects: use org.marl4j.ConditionVariable.await(mutex, predicate)");
    }

    /**
     * isHeldByCurrentFiber() returns whether the caller owns the mutex: the calling fiber, or the
     * calling thread off the scheduler or in a bound thread's own code (see the class comment).
     *
     * @return whether the caller owns the mutex
     */
    public boolean isHeldByCurrentFiber() {
        return owner == currentOwner();
    }

    /**
     * holdCount() returns how many times the caller (as {@link #isHeldByCurrentFiber()} names it)
     * holds the mutex: 0 if it does not own it.
     *
     * @return the caller's holds, 0 if it does not own the mutex
     */
    public int holdCount() {
        return owner == currentOwner() ? holds : 0;
    }

    /**
     * Called by the owner before a condition wait: keeps one hold, for the wait to release, and
     * returns how many it had, for {@link #restoreHolds} once the wait has taken the mutex again.
     */
    int reduceToOneHold() {
        int had = holds;
        holds = 1;
        return had;
    }

    /** Called by the owner after a condition wait re-took the mutex (one hold): restores its holds. */
    void restoreHolds(int had) {
        holds = had;
    }

    /**
     * isLocked() returns whether some fiber or thread owns the mutex.
     *
     * @return whether the mutex is owned
     */
    public boolean isLocked() {
        return owner != null;
    }

    /**
     * currentOwner() is what owns a {@link Mutex} the caller takes: its continuation fiber; else its
     * thread, also on a bound thread's main fiber (the thread's own code keeps what it locked before
     * bind() and after unbind()); and for a task a pinned wait runs inline, that run of the task (it
     * shares the thread with the pinned fiber and perhaps a bound thread's suspended code).
     */
    private static Object currentOwner() {
        Worker worker = Worker.current();
        if (worker == null) {
            return Thread.currentThread();
        }
        Fiber fiber = worker.current;
        if (fiber == null) {
            Object inline = worker.inlineOwner;
            return inline != null ? inline : Thread.currentThread(); // never a null owner, whatever the state
        }
        return fiber.isMain() ? Thread.currentThread() : fiber;
    }

    private boolean acquire(boolean timed, long deadline) {
        if (tryLock()) {
            return true;
        }
        Object me = currentOwner();
        guard.lock();
        try {
            while (true) {
                // A fiber's own node (see Waiter): guard is held from here until the wait, so the
                // removes below always find it queued, and leave() handles a node a notifier took.
                // Safe to share with no other wait: a Mutex is taken only where no other wait of
                // the fiber has its node queued (ConditionVariable gives each wait a fresh node,
                // because its wait takes the lock again before it leaves its queue).
                Waiter waiter = Waiter.reusableForCurrent();
                waiters.add(waiter);
                numWaiting = waiters.size();
                // Last look after publishing numWaiting: see the field's comment.
                if (OWNER.compareAndSet(this, null, me)) {
                    waiters.remove(waiter);
                    numWaiting = waiters.size();
                    holds = 1;
                    return true;
                }
                if (timed && deadline - System.nanoTime() <= 0) {
                    waiters.remove(waiter);
                    numWaiting = waiters.size();
                    return false;
                }
                boolean notified = false;
                try {
                    notified = waiter.await(guard, timed, deadline);
                } finally {
                    if (!notified) {
                        waiters.leave(waiter); // timed out, woken spuriously, or the wait threw
                        numWaiting = waiters.size();
                    }
                }
            }
        } finally {
            guard.unlock();
        }
    }

    @Override
    public String toString() {
        Object o = owner;
        return "Mutex[" + (o == null ? "unlocked" : "owned by " + o) + "]";
    }
}
