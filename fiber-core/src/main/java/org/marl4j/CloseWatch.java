package org.marl4j;

/**
 * The timetable of one {@link Scheduler#close()}: when it has waited long enough to log the
 * suspended fibers it waits for (once, at WARNING through {@link System.Logger}), and, for
 * {@link Scheduler#close(java.time.Duration)}, when it gives up on them and cancels their waits.
 * A plain {@link Scheduler#unbind()} has one too, which only logs. The reports and the cancelling
 * are {@link Closing}'s; this class only says when.
 *
 * <p>Used by the closing (or unbinding) thread only: while it waits for bound threads and worker
 * threads, and while it drains its own bound worker (close on a bound thread unbinds it first).
 */
final class CloseWatch {
    static final System.Logger LOG = System.getLogger(Scheduler.class.getName());

    private final Scheduler scheduler;
    /** The close this watch times, which reports and cancels; null for a plain {@link Scheduler#unbind()}. */
    private final Closing closing;
    /** For a plain {@link Scheduler#unbind()}: the bound worker it drains; null for a close. */
    private final Worker unbinding;
    private final long start;
    private final long warnAfter;
    /** When to log what close waits for: warnAfter from the start, then again warnAfter after a cancellation. */
    private long warnAt;
    private final long cancelAt;
    private final boolean bounded;
    private boolean warned;
    private boolean cancelled;

    /** CloseWatch(closing, scheduler, warnAfterNanos, timeoutNanos) starts the clock of a close; a negative timeoutNanos means no timeout. */
    CloseWatch(Closing closing, Scheduler scheduler, long warnAfterNanos, long timeoutNanos) {
        this(scheduler, closing, null, warnAfterNanos, timeoutNanos);
    }

    /**
     * forUnbind(worker, warnAfterNanos) watches a plain unbind() of worker, which waits as long as
     * it takes (as close() does) and says so after warnAfterNanos, naming only that worker's fibers.
     */
    static CloseWatch forUnbind(Worker worker, long warnAfterNanos) {
        return new CloseWatch(worker.scheduler, null, worker, warnAfterNanos, -1);
    }

    private CloseWatch(Scheduler scheduler, Closing closing, Worker unbinding, long warnAfterNanos, long timeoutNanos) {
        this.scheduler = scheduler;
        this.closing = closing;
        this.unbinding = unbinding;
        this.start = System.nanoTime();
        this.warnAfter = warnAfterNanos;
        this.warnAt = start + warnAfterNanos;
        this.bounded = timeoutNanos >= 0;
        this.cancelAt = bounded ? start + timeoutNanos : 0;
    }

    /** nanosUntilDue() is how long a wait may sleep before {@link #act} has something to do; Long.MAX_VALUE if never. */
    long nanosUntilDue() {
        long now = System.nanoTime();
        long until = Long.MAX_VALUE;
        if (!warned) {
            until = Math.max(1, warnAt - now);
        }
        if (bounded && !cancelled) {
            until = Math.min(until, Math.max(1, cancelAt - now));
        }
        return until;
    }

    /** due() says whether {@link #act} has something to do now. */
    boolean due() {
        long now = System.nanoTime();
        return (!warned && now - warnAt >= 0) || (bounded && !cancelled && now - cancelAt >= 0);
    }

    /**
     * act() logs the suspended fibers once the warning is due, and cancels every wait once the
     * timeout has passed. Called by the closing thread holding no worker lock.
     */
    void act() {
        long now = System.nanoTime();
        if (bounded && !cancelled && now - cancelAt >= 0) {
            cancelled = true;
            String done = closing.cancelAllWaits();
            if (done != null) { // nothing suspended or delayed was left to cancel: nothing to warn of
                LOG.log(System.Logger.Level.WARNING, "close(" + (cancelAt - start) / 1_000_000 + " ms) of " + scheduler
                        + " timed out: " + done + "; it now waits for the tasks to unwind");
            }
            warned = false; // if that takes long too, say what it waits for
            warnAt = now + warnAfter;
            return;
        }
        if (!warned && now - warnAt >= 0) {
            warned = true;
            if (unbinding != null) {
                String report = Closing.waitReport(unbinding);
                LOG.log(System.Logger.Level.WARNING, "unbind() of thread " + Thread.currentThread().getName() + " from "
                        + scheduler + " has waited " + (now - start) / 1_000_000 + " ms for the tasks of its worker "
                        + "to finish. It waits for:\n"
                        + (report.isEmpty() ? "(nothing found: a task may be between two steps)\n" : report)
                        + "Wake the suspended fibers, or give up on them by closing the scheduler with "
                        + "Scheduler.close(Duration) from another thread.");
                return;
            }
            String report = closing.closeReport();
            LOG.log(System.Logger.Level.WARNING, "close() of " + scheduler + " has waited "
                    + (now - start) / 1_000_000 + " ms for its tasks to finish. It waits for:\n"
                    + (report.isEmpty() ? "(nothing found: a task may be between two steps)\n" : report)
                    // After the cancel, what is left is what cancelling cannot end: say how to end both kinds.
                    + (cancelled ? "Cancelling ends neither a task that holds its thread without a marl4j wait nor the "
                                    + "binding of a thread: end such a task, and call unbind() on each thread still bound."
                            : "Wake the suspended fibers, unbind the bound threads, or close with "
                                    + "Scheduler.close(Duration) to cancel waits and delayed tasks."));
        }
    }
}
