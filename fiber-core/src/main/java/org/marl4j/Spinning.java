package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;

/**
 * Spinning is how one {@link Worker} out of work looks for more before it sleeps (marl's
 * {@code spinForWork}): it spins for its {@link SpinBudget}, polling its own queues and now and
 * then trying to steal from another worker ({@link IdleWorkers} picks the victim, minding the
 * {@link FreshTaskRule}); and it makes the steals a sleeping worker is sent on. A steal's first
 * task and the rest of its batch, waiting in the steal buffer, go into the worker's own policy
 * ({@link Steals#addStolen}). The why of spinning and stealing is in {@link Worker}'s overview.
 *
 * <p>Owned by the worker's thread: nothing here is shared. Its entry points are called with the
 * worker's lock held and release it while they spin or wait for a victim's lock, so no thread ever
 * holds two worker locks.
 */
final class Spinning {
    /**
     * How many times a spinning worker polls {@code num} between steal attempts. marl picked 256
     * polls of 30 nops each empirically; one {@link Thread#onSpinWait()} is a PAUSE of ~40 cycles on
     * recent x86, so 256 polls of one each keep roughly marl's cadence.
     */
    private static final int SPIN_POLLS_PER_STEAL = 256;

    private final Worker worker;
    private final Work work;
    /** worker.lock, held on entry to {@link #spin} and {@link #steal} and released meanwhile. */
    private final WorkerLock lock;
    private final IdleWorkers idle;
    private final WorkerStats stats;
    private final int id;
    /** How long the worker spins before sleeping, at most the configured spin duration. */
    final SpinBudget budget;
    private long rng;
    /** What this worker, as a thief, last saw of each victim; made at its first steal. */
    private FreshTaskRule freshTaskRule;

    Spinning(Worker worker) {
        this.worker = worker;
        this.work = worker.work;
        this.lock = worker.lock;
        this.idle = worker.scheduler.idle;
        this.stats = worker.stats;
        this.id = worker.id;
        this.budget = new SpinBudget(worker.scheduler.spinNanos);
        this.rng = 0x9E3779B97F4A7C15L * (worker.id + 2);
    }

    /**
     * spin() spins for work, stealing, for this worker's {@link SpinBudget}; returns true if it
     * found some. Called with lock held.
     */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that work.deadlines.lock, work.inboxes.work.lock name
    boolean spin() {
        long spinStart = System.nanoTime();
        budget.spinStarted(spinStart);
        long spinUntil = spinStart + budget.nanos();
        if (work.deadlines.hasDeadlines() && work.deadlines.nextDeadline() - spinUntil < 0) {
            spinUntil = work.deadlines.nextDeadline();
        }
        idle.onBeginSpinning(id);
        work.setActivity(Work.SPINNING);
        lock.unlock();
        Task stolen;
        long spinEnd = spinStart;
        try {
            stolen = spinForWork(spinUntil);
        } finally {
            spinEnd = System.nanoTime();
            stats.spinningNanos += spinEnd - spinStart;
            idle.onEndSpinning();
            lock.lock();
            work.setActivity(Work.ACTIVE);
        }
        keepStolen(stolen);
        work.inboxes.drainInbox();
        if (work.num() > 0) {
            budget.workFound(spinEnd);
            return true;
        }
        return false;
    }

    /**
     * steal(victim) takes tasks (the oldest, and up to half the rest: see Steals.addStolen) from
     * victim, the worker the monitor sent us to, or with a null victim from any other worker,
     * waiting for their locks. Called with lock held; releases it meanwhile.
     */
    @GuardedBy("lock")
    void steal(Worker victim) {
        lock.unlock();
        Task stolen;
        try {
            stolen = victim == null ? idle.stealFromAny(worker, nextRandom()) : victim.work.stealWaiting(work);
        } finally {
            lock.lock();
        }
        keepStolen(stolen);
    }

    /** keepStolen(stolen) queues what a steal took, if anything, with the rest of its batch. Called with lock held. */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that work.steals.lock names
    private void keepStolen(Task stolen) {
        if (stolen != null) {
            stats.tasksStolen++;
            work.steals.addStolen(stolen);
        }
    }

    /** spinForWork() is called without the lock; returns a stolen task, or null when work arrived or time is up. */
    @Excludes("lock")
    private Task spinForWork(long spinUntil) {
        do {
            for (int i = 0; i < SPIN_POLLS_PER_STEAL; i++) {
                Thread.onSpinWait();
                if (work.hasArrivals()) {
                    return null;
                }
            }
            Task stolen = idle.steal(worker, nextRandom());
            if (stolen != null) {
                return stolen;
            }
            Thread.yield();
        } while (System.nanoTime() - spinUntil < 0);
        return null;
    }

    /** freshTaskRule(workers) is this thief's memory of its victims (see {@link FreshTaskRule}). Owner only. */
    FreshTaskRule freshTaskRule(int workers) {
        FreshTaskRule rule = freshTaskRule;
        if (rule == null) {
            rule = new FreshTaskRule(workers);
            freshTaskRule = rule;
        }
        return rule;
    }

    private long nextRandom() {
        long x = rng;
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        rng = x;
        return x;
    }
}
