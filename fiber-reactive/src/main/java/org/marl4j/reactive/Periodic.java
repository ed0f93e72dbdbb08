package org.marl4j.reactive;

import java.util.concurrent.atomic.AtomicBoolean;
import org.marl4j.DelayedTask;
import org.marl4j.FiberCancellation;

/**
 * Periodic is a fixed-rate periodic task of a {@link MarlScheduler} (worker == null: each run on
 * the fiber of its due timer) or of a {@link MarlWorker} (each run queued on the worker, so it stays
 * serial with the worker's other tasks); it is also the Disposable the caller gets.
 *
 * <p>Runs never overlap because the next run is armed only after the current one returned. The
 * schedule is fixed-rate: the k-th run is due k periods after the first was due, so a late run is
 * followed at once by the next. The scheduler counts the task once, from start to {@link #finish()},
 * which happens exactly once: after a dispose (by whichever of dispose and the run sees the other),
 * after a run that threw, or when the next run cannot be armed.
 */
final class Periodic implements Runnable, MarlScheduler.Timed {
    private final MarlScheduler owner;
    private final MarlWorker worker;
    private final Runnable body;
    private final long periodNanos;
    /** Due time of the run in progress or armed; written only by the run, and runs never overlap. */
    private long nextDue;
    private volatile boolean cancelled;
    /** The armed timer (due now when the next run is late or the period non-positive); null before the first. */
    private volatile DelayedTask next;
    private final AtomicBoolean finished = new AtomicBoolean();
    /** The scope of the run in progress, which dispose() cancels; null between runs. */
    private volatile FiberCancellation runScope;
    /** What a worker queues: one run, or, if the worker drops it, the end of this task. */
    private final MarlWorker.Queued queuedRun = new MarlWorker.Queued() {
        @Override
        public void run() {
            runOnce();
        }

        @Override
        public void drop() {
            finish();
        }
    };

    Periodic(MarlScheduler owner, MarlWorker worker, Runnable body, long periodNanos) {
        this.owner = owner;
        this.worker = worker;
        this.body = body;
        // Capped so that nextDue + periodNanos - now cannot wrap round to a negative delay (a run
        // due at once, again and again) should a run begin a little before its due time.
        this.periodNanos = Math.min(periodNanos, Long.MAX_VALUE / 2);
    }

    /** start(initialDelayNanos) arms the first run; throws if the marl scheduler rejects it. */
    void start(long initialDelayNanos) {
        nextDue = System.nanoTime() + Math.max(0, initialDelayNanos);
        arm(initialDelayNanos);
    }

    private void arm(long nanos) {
        DelayedTask handle = owner.enqueue(this, nanos);
        next = handle;
        if (cancelled && handle.cancel()) {
            finish(); // dispose() came while arming and missed this handle
        }
    }

    /** The timer: runs now on this fiber, or queues the run on the worker. */
    @Override
    public void run() {
        if (worker == null) {
            runOnce();
        } else if (worker.submit(queuedRun, false) != null) {
            finish();
        }
    }

    private void runOnce() {
        try (FiberCancellation scope = FiberCancellation.open()) {
            runScope = scope; // before reading cancelled, which dispose() writes before reading this
            if (cancelled || owner.skipsPending()) {
                finish();
                return;
            }
            body.run();
        } catch (Throwable error) {
            owner.taskFailed(error);
            finish(); // as ScheduledExecutorService does: a periodic task that throws runs no more
            return;
        } finally {
            runScope = null;
        }
        if (cancelled) {
            finish();
            return;
        }
        long now = System.nanoTime();
        nextDue = periodNanos > 0 ? nextDue + periodNanos : now;
        try {
            arm(nextDue - now);
        } catch (RuntimeException rejected) {
            finish(); // the marl scheduler closed under us
        }
    }

    /** finish() ends this task once: uncounted from its scheduler, forgotten by its worker. */
    void finish() {
        if (finished.compareAndSet(false, true)) {
            cancelled = true;
            if (worker != null) {
                worker.forget(this);
            }
            owner.ended(this);
        }
    }

    @Override
    public void dispose() {
        if (cancelled) {
            return;
        }
        cancelled = true;
        DelayedTask handle = next;
        if (handle != null && handle.cancel()) {
            finish(); // the timer will never fire to do it
        }
        // Otherwise a run is due, queued or in progress: it sees cancelled and finishes. One in
        // progress has its fiber waits cancelled, as Reactor interrupts it (not from its own thread).
        ReactorInterrupt.cancelWaits(runScope);
    }

    @Override
    public boolean isDisposed() {
        return cancelled;
    }
}
