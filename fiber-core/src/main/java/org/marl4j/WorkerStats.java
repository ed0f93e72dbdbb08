package org.marl4j;

/**
 * One worker's counters for {@link Scheduler#stats()}. Each is written by one thread only (the
 * worker's, or for {@code tasksBlocking} the scheduler's monitor) and read racily by stats(): a
 * stale value is fine, and plain 64-bit fields do not tear on the JVMs marl4j supports. No fences
 * on the hot path.
 */
final class WorkerStats {
    long tasksRun;
    /** Tasks whose body has returned (or thrown): {@code tasksRun} minus these are started and not done. */
    long tasksCompleted;
    long tasksStolen;
    long fibersCreated;
    long spinningNanos;
    /** Idle sleeps that blocked (counted as each begins): each ends by a signal, a deadline or the monitor. */
    long idleSleeps;
    /** Tasks seen holding the worker thread, without suspending, for longer than the blocking threshold. */
    volatile long tasksBlocking;
    /**
     * True while a bound thread's own code (its main fiber, which runs no task) waits in a marl4j
     * wait: that fiber is then among the suspended ones, but not a task's.
     */
    boolean mainFiberWaits;

    /**
     * addTo(totals, idleFibers, suspendedFibers, tasksWaiting) adds these counters and the worker's
     * gauges to totals. A worker's thread runs at most one task at a time: the started tasks that
     * have neither completed nor suspended, read racily, are clamped to that.
     */
    void addTo(StatsTotals totals, int idleFibers, int suspendedFibers, int tasksWaiting) {
        long run = tasksRun;
        long completed = tasksCompleted;
        int blockedTasks = suspendedFibers - (mainFiberWaits ? 1 : 0);
        totals.tasksRun += run;
        totals.tasksCompleted += completed;
        totals.tasksStolen += tasksStolen;
        totals.fibersCreated += fibersCreated;
        totals.spinningNanos += spinningNanos;
        totals.tasksBlocking += tasksBlocking;
        totals.idleSleeps += idleSleeps;
        totals.fibersIdle += idleFibers;
        totals.fibersBlocked += suspendedFibers;
        totals.tasksQueued += tasksWaiting;
        totals.tasksRunning += (int) Math.clamp(run - completed - blockedTasks, 0, 1);
    }
}
