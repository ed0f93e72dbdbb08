package org.marl4j;

/**
 * FreshTaskRule is a thief's memory of the workers it steals from, so it leaves alone a busy
 * worker's only queued task, which that worker most likely just made for itself and will run in
 * a moment (a coroutine resuming its peer, a task handing on to the next). Stealing it would send
 * each such hop to another thread, and the two workers would pass every message between their
 * caches. kotlinx does not steal the last-scheduled task for about 100 µs; Go waits ~3 µs before
 * taking a running P's {@code runnext}.
 *
 * <p>The rule: a victim's only task is left if the victim has made progress (started a task or
 * switched fibers, {@link Work#progress()}) since this thief last looked at it, for at most
 * {@link #PATIENCE_NANOS} in a row. A victim that made no progress since the last look may be
 * blocked in a task (a JDBC call, a latch), so its task is taken at once: no task strands behind
 * a blocked worker. A victim with two or more tasks is stolen from at once (a burst).
 *
 * <p>Owned by one thief (a worker thread), touched only by that thread: no synchronization.
 */
final class FreshTaskRule {
    /** How long a thief leaves a progressing victim's only task before taking it anyway. */
    static final long PATIENCE_NANOS = 100_000;
    /** How long a thief woken to steal once (spinning off) waits before its second look. */
    static final long SECOND_LOOK_NANOS = 3_000;

    /** The victim's progress counter when this thief last looked, by worker id. */
    private final long[] seenProgress;
    /** When this thief began leaving the victim's only task, by worker id; meaningful while leaving[i]. */
    private final long[] leftSince;
    private final boolean[] leaving;

    FreshTaskRule(int workers) {
        seenProgress = new long[workers];
        leftSince = new long[workers];
        leaving = new boolean[workers];
        java.util.Arrays.fill(seenProgress, -1); // no look yet: the first look always sees "progress"
    }

    /**
     * leave(victim, queued) is true if the thief should not take the victim's task now, given how
     * many tasks the victim holds ({@link Work#tasksQueued()}: 0, 1, or 2 for two or more). Only a
     * sole task may be left; a look at none or several remembers the victim's progress, so a sole
     * task that comes later counts as fresh.
     */
    boolean leave(Worker victim, int queued) {
        if (queued != 1) {
            looked(victim);
            return false;
        }
        int i = victim.id;
        long progress = victim.work.progress();
        if (progress == seenProgress[i]) {
            leaving[i] = false;
            return false; // no progress since the last look: perhaps blocked, so take it
        }
        seenProgress[i] = progress;
        long now = System.nanoTime();
        if (!leaving[i]) {
            leaving[i] = true;
            leftSince[i] = now;
            return true;
        }
        return now - leftSince[i] < PATIENCE_NANOS;
    }

    /** looked(victim) records a look at a victim with no task or several: its only task, if one comes, is fresh. */
    private void looked(Worker victim) {
        int i = victim.id;
        seenProgress[i] = victim.work.progress();
        leaving[i] = false;
    }
}
