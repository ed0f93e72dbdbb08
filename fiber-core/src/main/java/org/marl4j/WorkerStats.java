package org.marl4j;

/**
 * One worker's counters for {@link Scheduler#stats()}. Each is written by one thread only (the
 * worker's, or for {@code tasksBlocking} the scheduler's monitor) and read racily by stats(): a
 * stale value is fine, and plain 64-bit fields do not tear on the JVMs marl4j supports. No fences
 * on the hot path.
 */
final class WorkerStats {
    /** The number of counters {@link #addTo} adds, the length of a totals array. */
    static final int COUNT = 8;

    long tasksRun;
    long tasksStolen;
    long fibersCreated;
    long spinningNanos;
    /** Idle sleeps that blocked (counted as each begins): each ends by a signal, a deadline or the monitor. */
    long idleSleeps;
    /** Tasks seen holding the worker thread, without suspending, for longer than the blocking threshold. */
    volatile long tasksBlocking;

    /**
     * addTo(totals, idleFibers, blockedFibers) adds these counters and the worker's two gauges to
     * totals, in the order of {@link Scheduler.Stats}'s components.
     */
    void addTo(long[] totals, int idleFibers, int blockedFibers) {
        totals[0] += tasksRun;
        totals[1] += tasksStolen;
        totals[2] += fibersCreated;
        totals[3] += idleFibers;
        totals[4] += blockedFibers;
        totals[5] += spinningNanos;
        totals[6] += tasksBlocking;
        totals[7] += idleSleeps;
    }
}
