package org.marl4j;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;

/**
 * Work is one worker's queue of work and the lock that guards it: marl's {@code Worker::Work}. It
 * is the part of a worker that other threads touch: enqueuers add tasks, wakers add ready fibers,
 * thieves take tasks, timers come due. The worker's own run loop lives in {@link Worker}.
 *
 * <p>What it holds, all guarded by {@link #lock}: the {@link SchedulingPolicy}, with the queued
 * tasks and the ready fibers in the order it decides; the {@link Deadlines} heap of fibers waiting
 * with a timeout and of delayed tasks not yet due; and {@code num}, the count of tasks and fibers
 * in the policy, written under the lock and read without it by a spinning owner and by thieves.
 *
 * <p>Signalling: the owner sleeps on {@code added} only inside {@link #sleep()}, and adders signal
 * it only then ({@code notifyAdded}), so a busy or spinning owner costs adders no signal.
 *
 * <p>Unless a method says otherwise, it is called with {@link #lock} held.
 */
final class Work {
    private static final VarHandle NUM;

    static {
        try {
            NUM = MethodHandles.lookup().findVarHandle(Work.class, "num", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final WorkerLock lock = new WorkerLock();
    private final Condition added = lock.newCondition();
    private final SchedulingPolicy policy;
    private final Deadlines deadlines = new Deadlines();
    /** Wakes other threads left for the owner to apply, without the lock (see WakeInbox). */
    final WakeInbox inbox = new WakeInbox();
    /**
     * True while the owner sleeps in sleep(): adders must signal. Volatile for pushers to the inbox,
     * which read it without the lock after their push (a Dekker pair with sleep()'s inbox check).
     */
    private volatile boolean notifyAdded;
    /** Set by the first inbox pusher that signals a sleep, so the rest do not queue on the lock. */
    private final AtomicBoolean sleepSignalled = new AtomicBoolean();
    /** Delayed tasks in the deadline heap: the worker does not stop while any is pending. */
    private int numDelayed;
    /** Set once the worker has drained and stopped: adders then pick another worker. */
    boolean stopped;

    @SuppressWarnings("unused") // accessed through NUM
    private volatile int num;

    Work(SchedulingPolicy policy) {
        this.policy = policy;
    }

    /** num() counts the queued tasks and ready fibers. */
    int num() {
        return (int) NUM.get(this);
    }

    /** numAcquire() is num() for callers without the lock: a spinning owner, a thief. */
    int numAcquire() {
        return (int) NUM.getAcquire(this);
    }

    // ---------------------------------------------------------------- tasks and ready fibers

    void addTask(Task task) {
        policy.enqueued(task);
        added();
    }

    /** addReadyFiber(fiber) queues a woken fiber, already marked QUEUED, to resume. */
    void addReadyFiber(Fiber fiber) {
        policy.awakened(fiber);
        added();
    }

    /** takeReadyFiber() removes the fiber the policy resumes next, or returns null if a task goes first. */
    Fiber takeReadyFiber() {
        Fiber fiber = policy.pickNextFiber();
        if (fiber != null) {
            removed();
        }
        return fiber;
    }

    /** takeTask() removes the task the policy starts next; called when num() is positive and no fiber goes first. */
    Task takeTask() {
        Task task = policy.pickNextTask();
        if (task == null) {
            throw new IllegalStateException("scheduling policy " + policy
                    + " holds work it does not hand out: see SchedulingPolicy's contract");
        }
        removed();
        return task;
    }

    /** removeReadyFiber(fiber) takes a particular ready fiber out of the policy. */
    void removeReadyFiber(Fiber fiber) {
        if (policy.remove(fiber)) {
            removed();
        }
    }

    void propertyChanged(Fiber fiber) {
        policy.propertyChanged(fiber);
    }

    /** steal() takes a task for a spinning thief, or returns null. Called without the lock. */
    Task steal() {
        if (numAcquire() == 0 || !lock.tryLock()) {
            return null;
        }
        try {
            Task task = policy.steal();
            if (task != null) {
                assert !task.is(Task.Flag.SAME_THREAD) : "policy " + policy + " gave away a SAME_THREAD task";
                removed();
            }
            return task;
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- deadlines

    boolean hasDeadlines() {
        return !deadlines.isEmpty();
    }

    /** nextDeadline() is the earliest deadline; hasDeadlines() must be true. */
    long nextDeadline() {
        return deadlines.nextDeadline();
    }

    int numDelayed() {
        return numDelayed;
    }

    /** addWaiting(fiber, deadline) files a fiber suspended with a timeout. */
    void addWaiting(Fiber fiber, long deadline) {
        deadlines.add(fiber, deadline);
    }

    /** removeWaiting(fiber) takes a fiber woken before its deadline out of the heap. */
    void removeWaiting(Fiber fiber) {
        deadlines.remove(fiber);
    }

    /** addDelayed(task, deadline) files a delayed task until it is due. */
    void addDelayed(DelayedTask task, long deadline) {
        deadlines.add(task, deadline);
        numDelayed++;
        if (notifyAdded && deadlines.nextDeadline() == deadline) {
            added.signal(); // the sleeping owner must wake sooner than it planned
        }
    }

    /** cancelDelayed(task) drops a cancelled delayed task from the heap if it is not due yet. */
    void cancelDelayed(DelayedTask task) {
        if (deadlines.contains(task)) {
            deadlines.remove(task);
            numDelayed--;
        }
    }

    /** expireDeadlines(now) makes timed-out fibers ready and queues delayed tasks that are due. */
    void expireDeadlines(long now) {
        Timed entry;
        while ((entry = deadlines.pollExpired(now)) != null) {
            if (entry instanceof Fiber fiber) {
                assert fiber.state == Fiber.State.WAITING : fiber;
                fiber.state = Fiber.State.QUEUED;
                policy.awakened(fiber);
            } else {
                numDelayed--;
                policy.enqueued(((DelayedTask) entry).due);
            }
            NUM.setRelease(this, num() + 1);
        }
    }

    // ---------------------------------------------------------------- sleeping

    /**
     * sleep() releases the lock until something is added, {@link #wakeOwner()} is called, or the
     * earliest deadline passes; it may also return spuriously. Called by the owner.
     */
    void sleep() throws InterruptedException {
        sleepSignalled.set(false);
        notifyAdded = true;
        try {
            if (!inbox.isEmpty()) {
                return; // a wake was pushed before notifyAdded was visible to its pusher
            }
            if (deadlines.isEmpty()) {
                added.await();
            } else {
                long nanos = deadlines.nextDeadline() - System.nanoTime();
                if (nanos > 0) {
                    added.awaitNanos(nanos);
                }
            }
        } finally {
            notifyAdded = false;
        }
    }

    /** wakeOwner() ends the owner's sleep(), if it sleeps: for a change outside this class, like shutdown. */
    void wakeOwner() {
        if (notifyAdded) {
            added.signal();
        }
    }

    /**
     * signalIfAsleep() ends the owner's sleep() after a push to the inbox, if it sleeps. Called
     * without the lock; takes it only when the owner sleeps (the lock is then free), and only the
     * first pusher per sleep does.
     */
    void signalIfAsleep() {
        if (notifyAdded && sleepSignalled.compareAndSet(false, true)) {
            lock.lock();
            try {
                if (notifyAdded) {
                    added.signal();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    private void added() {
        NUM.setRelease(this, num() + 1);
        if (notifyAdded) {
            added.signal();
        }
    }

    private void removed() {
        NUM.setRelease(this, num() - 1);
    }

    @Override
    public String toString() {
        return "Work[num=" + numAcquire() + ", policy=" + policy + "]";
    }
}
