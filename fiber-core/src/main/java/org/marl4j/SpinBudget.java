package org.marl4j;

/**
 * SpinBudget is how long an idle multi-threaded worker spins for work before it sleeps, adapted to
 * how long work has recently taken to arrive (marl spins a fixed 1 ms after every task).
 *
 * <p>Why: spinning only pays when work comes back sooner than a sleep and a wake-up would cost (a
 * condition signal, an unpark and a context switch: tens of microseconds). Under a light, steady
 * stream — one task per millisecond — a fixed 1 ms spin keeps every worker busy between tasks, so a
 * server at light load burns both cores (IdleBenchmark: ~0.5–1 ms of CPU per tiny task against
 * ForkJoinPool's ~0.07). So each time the worker finds work, it records the gap since it ran out:
 * a short gap ({@link #WORTH_NANOS} or less) doubles the budget, up to the configured spin duration;
 * a long one, or a spin that ended with nothing, halves it, down to {@link #MIN_NANOS}. A busy
 * worker (ping-pong, fan-out, task floods) keeps spinning the full duration; an idle one spins a
 * few microseconds and sleeps.
 *
 * <p>Touched only by its worker's thread: no synchronisation.
 */
final class SpinBudget {
    /** Gaps up to this long are worth spinning through rather than sleeping. */
    static final long WORTH_NANOS = 50_000;
    /** The least a worker still spins, to catch a burst's next task without a wake-up. */
    static final long MIN_NANOS = 5_000;

    private final long maxNanos;
    private final long minNanos;
    private long nanos;

    SpinBudget(long maxNanos) {
        this.maxNanos = maxNanos;
        this.minNanos = Math.min(MIN_NANOS, maxNanos);
        this.nanos = maxNanos;
    }

    /** nanos() is how long to spin next time. */
    long nanos() {
        return nanos;
    }

    /** workArrived(gapNanos) records that work came gapNanos after the worker ran out of it. */
    void workArrived(long gapNanos) {
        if (gapNanos <= WORTH_NANOS) {
            nanos = Math.min(maxNanos, Math.max(nanos * 2, minNanos));
        } else {
            nanos = Math.max(minNanos, nanos / 2);
        }
    }
}
