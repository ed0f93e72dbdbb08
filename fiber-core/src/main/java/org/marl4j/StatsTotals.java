package org.marl4j;

import java.time.Duration;

/**
 * StatsTotals sums workers' counters and gauges into one {@link Scheduler.Stats}: each worker adds
 * its own ({@link Worker#addStatsTo}), a register of bound threads keeps the counters of those that
 * have unbound ({@link #addCountersOf}). Not thread-safe: one caller fills one instance.
 */
final class StatsTotals {
    long tasksRun;
    long tasksCompleted;
    long tasksStolen;
    long fibersCreated;
    long spinningNanos;
    long tasksBlocking;
    long idleSleeps;
    // Gauges: what is true now, which a worker that has gone takes with it.
    int tasksQueued;
    int tasksRunning;
    int fibersIdle;
    int fibersBlocked;

    /** addCountersOf(other) adds other's counters, not its gauges, to these. */
    void addCountersOf(StatsTotals other) {
        tasksRun += other.tasksRun;
        tasksCompleted += other.tasksCompleted;
        tasksStolen += other.tasksStolen;
        fibersCreated += other.fibersCreated;
        spinningNanos += other.spinningNanos;
        tasksBlocking += other.tasksBlocking;
        idleSleeps += other.idleSleeps;
    }

    /** toStats(workerThreads, boundThreads) is the snapshot of these totals for a scheduler with that many threads. */
    Scheduler.Stats toStats(int workerThreads, int boundThreads) {
        return new Scheduler.Stats(tasksRun, tasksCompleted, tasksQueued, tasksRunning, tasksStolen, tasksBlocking,
                fibersCreated, fibersIdle, fibersBlocked, idleSleeps, Duration.ofNanos(spinningNanos), workerThreads,
                boundThreads);
    }
}
