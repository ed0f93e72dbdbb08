package org.marl4j;

/**
 * Spinning is how one {@link Worker} out of work looks for more before it sleeps (marl's
 * {@code spinForWork}): it spins for its {@link SpinBudget}, polling its own queues and now and
 * then trying to steal from another worker ({@link IdleWorkers} picks the victim, minding the
 * {@link FreshTaskRule}); and it makes the steals a sleeping worker is sent on. A steal's first
 * task and the rest of its batch, waiting in the steal buffer, go into the worker's own policy
 * ({@link Steals#addStolen}).
 *
 * <p><b>Why spin and steal.</b> An MTW out of work first spins for the configured duration,
 * checking {@code num} and trying to steal tasks (never a fiber: fibers stay on their worker's
 * thread) from a random other worker, then sleeps: half of that worker's queue at once, but not a
 * busy worker's only fresh task ({@link FreshTaskRule}), which is most likely the next hop of what
 * that worker runs. A spinning worker advertises itself in the scheduler's spinning-workers ring,
 * which {@link Scheduler#enqueue} prefers. Beyond marl, two things take a task queued behind a busy
 * or blocked worker while another sleeps, whatever the spin duration. First, as Go's {@code wakep}:
 * an enqueue onto a worker that is awake, when no worker spins, wakes one sleeping worker to spin
 * (or, with spinning off, to try every worker once) and steal it ({@link Work#wakeToSteal}).
 * Second, as Go's {@code sysmon} retakes a P stuck in a syscall, the scheduler's {@link Monitor}
 * sends a sleeping worker to steal from a worker that has made no progress for a few milliseconds
 * with tasks queued (a task blocking its thread; {@link Work#sendToSteal}); it covers the enqueue
 * that raced with a worker going to sleep. Both requests are answered in the worker's
 * sleepForWork, which every idle sleep goes through.
 *
 * <p>Owned by the worker's thread: nothing here is shared, and what it needs of the worker comes
 * as an argument. Its entry points are called with the worker's lock held and release it while
 * they spin or wait for a victim's lock, so no thread ever holds two worker locks.
 */
final class Spinning {
    /**
     * How many times a spinning worker polls {@code num} between steal attempts. marl picked 256
     * polls of 30 nops each empirically; one {@link Thread#onSpinWait()} is a PAUSE of ~40 cycles on
     * recent x86, so 256 polls of one each keep roughly marl's cadence.
     */
    private static final int SPIN_POLLS_PER_STEAL = 256;

    /** How long the worker spins before sleeping, at most the configured spin duration. */
    final SpinBudget budget;
    private long rng;
    /** What this worker, as a thief, last saw of each victim; made at its first steal. */
    private FreshTaskRule freshTaskRule;

    Spinning(long spinNanos, int workerId) {
        this.budget = new SpinBudget(spinNanos);
        this.rng = 0x9E3779B97F4A7C15L * (workerId + 2);
    }

    /**
     * spin(worker) spins for work, stealing, for the worker's {@link SpinBudget}; returns true if it
     * found some. Called with the worker's lock held, which it releases while it spins.
     */
    @SuppressWarnings("GuardedBy") // entered with worker.work.lock held, which the checker cannot carry over from the caller's argument
    boolean spin(Worker worker) {
        Work work = worker.work;
        IdleWorkers idle = worker.scheduler.idle;
        long spinStart = System.nanoTime();
        budget.spinStarted(spinStart);
        long spinUntil = work.nextDeadlineBefore(spinStart + budget.nanos());
        idle.onBeginSpinning(worker.id);
        work.setActivity(Work.SPINNING);
        work.lock.unlock();
        Task stolen;
        long spinEnd = spinStart;
        try {
            stolen = spinForWork(worker, spinUntil);
        } finally {
            spinEnd = System.nanoTime();
            worker.stats.spinningNanos += spinEnd - spinStart;
            idle.onEndSpinning();
            work.lock.lock();
            work.setActivity(Work.ACTIVE);
        }
        if (stolen != null) {
            worker.stats.tasksStolen++;
            work.addStolen(stolen);
        }
        work.drainInbox();
        if (work.num() > 0) {
            budget.workFound(spinEnd);
            return true;
        }
        return false;
    }

    /**
     * steal(worker, victim) takes tasks (the oldest, and up to half the rest: see Steals.addStolen)
     * from victim, the worker the monitor sent us to, or with a null victim from any other worker,
     * waiting for their locks. Called with the worker's lock held; releases it meanwhile.
     */
    @SuppressWarnings("GuardedBy") // entered with worker.work.lock held, which the checker cannot carry over from the caller's argument
    void steal(Worker worker, Worker victim) {
        Work work = worker.work;
        IdleWorkers idle = worker.scheduler.idle;
        work.lock.unlock();
        Task stolen;
        try {
            stolen = victim == null ? idle.stealFromAny(worker, nextRandom()) : victim.work.stealWaiting(work);
        } finally {
            work.lock.lock();
        }
        if (stolen != null) { // queued with the rest of its batch
            worker.stats.tasksStolen++;
            work.addStolen(stolen);
        }
    }

    /** spinForWork(worker, spinUntil) is called without the lock; returns a stolen task, or null when work arrived or time is up. */
    @Excludes("worker.work.lock")
    private Task spinForWork(Worker worker, long spinUntil) {
        Work work = worker.work;
        IdleWorkers idle = worker.scheduler.idle;
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
