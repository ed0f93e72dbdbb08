package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;

/**
 * OwnerSleep is a worker's sleep for want of work (or in a pinned fiber's wait), and how other
 * threads end it: an adder's signal, an inbox pusher's, the monitor sending the sleeping owner to
 * steal ({@link #sendToSteal}), an enqueuer waking it to look for work anywhere ({@link
 * #wakeToSteal}). One per {@link Work}, which holds it.
 *
 * <p>Signalling: the owner sleeps on {@code added} only inside {@link #sleep(boolean, long)}, and
 * adders signal it only then ({@code notifyAdded}), so a busy or spinning owner costs adders no
 * signal. An inbox pusher reads {@code notifyAdded} after its push, and the owner checks the inboxes
 * after setting it, so one of them sees the other ({@link #signalIfAsleep()}).
 *
 * <p>Lock discipline: {@code lock} is the work's lock ({@link Work#lock}), of which {@code added}
 * is a condition; it guards the fields marked with it. Methods marked {@link Excludes} take it
 * themselves (other threads call them), methods marked {@link GuardedBy} are called with it held.
 */
final class OwnerSleep {
    /** The work's lock, not one of this class's own. */
    private final WorkerLock lock;
    private final Condition added;
    private final Work work;
    /** The owner's counters; only the owner writes them (here, its idle sleeps). */
    private final WorkerStats stats;
    /**
     * True while the owner sleeps in sleep(): adders must signal. Written under the lock; volatile
     * for a pusher onto the inbox, which reads it without the lock (see {@link #signalIfAsleep()}).
     */
    private volatile boolean notifyAdded;
    /** Set by the one inbox pusher that signals the owner's current sleep; cleared as each sleep begins. */
    private final AtomicBoolean sleepSignalled = new AtomicBoolean();
    /**
     * When a pusher last signalled the sleeping owner ({@link System#nanoTime()}), or 0: the moment
     * the work arrived, which the owner's {@link SpinBudget} must judge by rather than the moment it
     * woke, or the wake-up's own latency makes every gap look long.
     */
    @GuardedBy("lock")
    private long signalledAt;
    /** True while the owner sleeps in sleep(true), idle: the monitor may send it to steal. */
    @GuardedBy("lock")
    private boolean idleAsleep;
    /** The worker the monitor asked the sleeping owner to steal from, or null. */
    @GuardedBy("lock")
    private Worker stealFrom;
    /**
     * Set when an enqueuer woke the sleeping owner to look for work on every worker (Go's wakep):
     * the owner then holds one count of the scheduler's spinning workers, and gives it back.
     */
    @GuardedBy("lock")
    private boolean stealAny;

    OwnerSleep(Work work, WorkerStats stats) {
        this.work = work;
        this.lock = work.lock;
        this.added = lock.newCondition();
        this.stats = stats;
    }

    /** asleep() is true while the owner sleeps in sleep(), when an adder must signal; read after an inbox push (see {@link #signalIfAsleep()}). */
    boolean asleep() {
        return notifyAdded;
    }

    /**
     * sleep(idle, maxNanos) releases the lock until something is added, {@link #wakeOwner()} is
     * called, the earliest deadline passes or {@code maxNanos} have passed; it may also return
     * spuriously. Called by the owner, with lock held; {@code idle} says it sleeps for want of work
     * (so the monitor may send it to steal) rather than in a pinned fiber's wait; such a sleep that
     * blocks is counted in {@link WorkerStats#idleSleeps}. It returns at once if the inboxes hold
     * anything undrained ({@link Inboxes#hasUndrained()}).
     */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that work.deadlines.lock, work.inboxes.work.lock name
    void sleep(boolean idle, long maxNanos) throws InterruptedException {
        sleepSignalled.set(false);
        signalledAt = 0; // a signal of an earlier sleep (a pinned wait's, say) is not this gap's arrival
        notifyAdded = true; // before the inbox check below: see signalIfAsleep()
        idleAsleep = idle;
        if (idle) {
            work.setActivity(Work.IDLE);
        }
        try {
            if (work.inboxes.hasUndrained()) {
                return; // a fiber was woken or a task enqueued meanwhile: the caller drains the inboxes
            }
            long nanos = maxNanos;
            if (work.deadlines.hasDeadlines()) {
                nanos = Math.min(nanos, work.deadlines.nextDeadline() - System.nanoTime());
            }
            if (idle && nanos > 0) {
                stats.idleSleeps++; // counted as it begins, so a sleep still going on shows
            }
            if (nanos == Long.MAX_VALUE) {
                added.await();
            } else if (nanos > 0) {
                added.awaitNanos(nanos);
            }
        } finally {
            notifyAdded = false;
            idleAsleep = false;
            if (idle) {
                work.setActivity(Work.ACTIVE);
            }
        }
    }

    /**
     * arrivedAt(now) is when the work that ended the owner's idle gap arrived: when a pusher last
     * signalled it asleep, or now if none did; and forgets that signal. Called by the owner.
     */
    @GuardedBy("lock")
    long arrivedAt(long now) {
        long at = signalledAt;
        signalledAt = 0;
        return at != 0 ? at : now;
    }

    /** takeStealHint() returns, and clears, the worker the monitor sent the owner to steal from. */
    @GuardedBy("lock")
    Worker takeStealHint() {
        Worker victim = stealFrom;
        stealFrom = null;
        return victim;
    }

    /** takeStealAny() returns, and clears, whether an enqueuer woke the owner to look for work anywhere. */
    @GuardedBy("lock")
    boolean takeStealAny() {
        boolean any = stealAny;
        stealAny = false;
        return any;
    }

    /** wakeOwner() ends the owner's sleep(), if it sleeps: for a task or fiber added, or a change like shutdown or a nearer deadline. */
    @GuardedBy("lock")
    void wakeOwner() {
        if (notifyAdded) {
            added.signal();
        }
    }

    /**
     * signalIfAsleep() wakes the owner if it sleeps, for a fiber just pushed onto the inbox; only the
     * first pusher of a sleep takes the lock to signal. The pusher's push and its read of
     * notifyAdded, and the owner's write of notifyAdded and its check of the inbox in sleep(), are
     * each ordered by volatile accesses, so either the owner sees the fiber or the pusher signals.
     */
    @Excludes("lock")
    void signalIfAsleep() {
        if (notifyAdded && sleepSignalled.compareAndSet(false, true)) {
            lock.lock();
            try {
                signalledAt = System.nanoTime();
                added.signal();
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * sendToSteal(victim) wakes the owner, if it sleeps idle, to steal from {@code victim}; returns
     * whether it did. Called by the scheduler's monitor, which holds no worker lock.
     */
    @Excludes("lock")
    boolean sendToSteal(Worker victim) {
        if (!lock.tryLock()) {
            return false;
        }
        try {
            if (!idleAsleep || stealFrom != null) {
                return false;
            }
            stealFrom = victim;
            added.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * wakeToSteal() wakes the owner, if it sleeps idle and was not woken so already, to look for a
     * task on every worker; returns whether it did. Called by an enqueuer that holds one count of
     * the scheduler's spinning workers, which passes to the owner when this returns true.
     */
    @Excludes("lock")
    boolean wakeToSteal() {
        if (!lock.tryLock()) {
            return false;
        }
        try {
            if (!idleAsleep || stealAny) {
                return false;
            }
            stealAny = true;
            added.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }
}
