package org.marl4j.reactive;

import java.util.concurrent.atomic.AtomicInteger;
import org.marl4j.DelayedTask;
import org.marl4j.FiberCancellation;

/**
 * OneShot is a task of a {@link MarlScheduler} that runs once, now or after a delay, on a marl fiber;
 * it is also the Disposable that {@code schedule} returns.
 *
 * <p>States: PENDING → RUNNING → DONE, or PENDING → CANCELLED. The marl task (this object's
 * {@link #run()}) always reaches the scheduler's ended() exactly once: when it runs (even to skip a
 * cancelled body), or, for a delayed task, when {@code DelayedTask.cancel()} succeeds, because then
 * the marl task never runs. Disposing a RUNNING task cancels its fiber waits through the
 * {@link FiberCancellation} its body runs in (unless disposed from its own fiber), as Reactor
 * interrupts a running task; it still ends through run().
 */
final class OneShot implements Runnable, MarlScheduler.Timed {
    private static final int PENDING = 0;
    private static final int RUNNING = 1;
    private static final int DONE = 2;
    private static final int CANCELLED = 3;

    private final MarlScheduler owner;
    private final Runnable body;
    /** Whether this task waits on the deadline heap (and is in the owner's set of timed tasks). */
    private final boolean timed;
    /**
     * Whether dispose() of the owner skips this task if it has not started: false for a Worker's
     * drain, which must run to drop what it queued (a periodic run there is counted by the owner
     * until its drop ends it), and which skips those tasks itself.
     */
    private final boolean skippable;
    private final AtomicInteger state = new AtomicInteger(PENDING);
    /** The deadline-heap handle of a delayed task, set just after it was enqueued. */
    private volatile DelayedTask delayed;
    /** The scope the body runs in: set before RUNNING is published, so a dispose() that sees RUNNING reads it. */
    private FiberCancellation running;

    OneShot(MarlScheduler owner, Runnable body, boolean timed) {
        this(owner, body, timed, true);
    }

    private OneShot(MarlScheduler owner, Runnable body, boolean timed, boolean skippable) {
        this.owner = owner;
        this.body = body;
        this.timed = timed;
        this.skippable = skippable;
    }

    /** drain(owner, worker) is the task that drains a Worker's queue: it runs even after dispose(). */
    static OneShot drain(MarlScheduler owner, MarlWorker worker) {
        return new OneShot(owner, worker, false, false);
    }

    /** delayed(handle) records the heap handle; a dispose() that came first cancels it now. */
    void delayed(DelayedTask handle) {
        delayed = handle;
        if (state.get() == CANCELLED && handle.cancel()) {
            owner.ended(this);
        }
    }

    @Override
    public void run() {
        try {
            if (skippable && owner.skipsPending()) {
                state.compareAndSet(PENDING, CANCELLED);
                return;
            }
            if (state.get() != PENDING) {
                return; // disposed before it started
            }
            // A Worker's drain is never handed out, so nothing disposes it: no scope for it.
            try (FiberCancellation scope = skippable ? FiberCancellation.open() : null) {
                running = scope;
                if (!state.compareAndSet(PENDING, RUNNING)) {
                    return;
                }
                body.run();
            } catch (Throwable error) {
                owner.taskFailed(error);
            } finally {
                state.compareAndSet(RUNNING, DONE);
            }
        } finally {
            owner.ended(timed ? this : null);
        }
    }

    @Override
    public void dispose() {
        if (state.compareAndSet(PENDING, CANCELLED)) {
            DelayedTask handle = delayed;
            if (handle != null && handle.cancel()) {
                owner.ended(this); // the marl task will never run to do it
            }
        } else if (state.get() == RUNNING) {
            ReactorInterrupt.cancelWaits(running);
        }
    }

    @Override
    public boolean isDisposed() {
        int s = state.get();
        return s >= DONE || (s == RUNNING && running != null && running.isCancelled());
    }
}
