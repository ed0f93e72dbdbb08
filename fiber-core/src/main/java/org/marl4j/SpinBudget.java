package org.marl4j;

/**
 * SpinBudget is how long one worker spins for work before it sleeps, adapted to how soon work
 * tends to come: a spin pays when work arrives within a few microseconds, and only burns CPU when
 * the worker goes idle for long (IdleBenchmark measures ~0.5 ms of CPU per task with a fixed
 * 1 ms spin). After each idle gap that began with a spin it halves if the gap (from the spin's start
 * until work was found, spinning or after a sleep) was longer than {@link #SHORT_GAP_NANOS}, and
 * doubles if it was shorter, between {@link #MIN_NANOS} and the configured spin duration. Owned by
 * the worker's thread; not thread-safe.
 */
final class SpinBudget {
    /** The least a worker spins (unless the configured duration is smaller). */
    static final long MIN_NANOS = 5_000;
    /** An idle gap up to this long is one a spin should bridge. */
    static final long SHORT_GAP_NANOS = 50_000;

    private final long max;
    private final long min;
    private long budget;
    /** When the spin that began the current idle gap started; 0 when no gap is open. */
    private long gapStart;

    SpinBudget(long maxNanos) {
        this.max = maxNanos;
        this.min = Math.min(MIN_NANOS, maxNanos);
        this.budget = maxNanos;
    }

    /** nanos() is how long the next spin may last. */
    long nanos() {
        return budget;
    }

    /** spinStarted(now) opens an idle gap, unless one is open already (a second spin in the same gap). */
    void spinStarted(long now) {
        if (gapStart == 0) {
            gapStart = now == 0 ? 1 : now;
        }
    }

    /** workFound(now) closes the open gap, if any, and adapts the budget to its length. */
    void workFound(long now) {
        if (gapStart == 0) {
            return;
        }
        long gap = now - gapStart;
        gapStart = 0;
        budget = gap > SHORT_GAP_NANOS ? Math.max(min, budget >> 1) : Math.min(max, budget << 1);
    }

    /** abandon() closes the open gap without adapting: the worker stops, or found no work to measure. */
    void abandon() {
        gapStart = 0;
    }
}
