package org.marl4j.reactive;

import java.util.concurrent.atomic.AtomicInteger;
import org.marl4j.FiberCancellation;
import reactor.core.Disposable;

/**
 * WorkerTask is one task of a {@link MarlWorker}, and the Disposable its {@code schedule} returns.
 * States: PENDING → RUNNING → DONE, or PENDING → CANCELLED; a cancelled task stays in the worker's
 * queue and is skipped when reached. A delayed task also holds its timer, which dispose() cancels.
 * A running task is disposed as Reactor interrupts one, unless from its own fiber: its body runs in
 * a {@link FiberCancellation}, which dispose() cancels, so its fiber waits throw and it unwinds.
 */
final class WorkerTask implements MarlWorker.Queued, Disposable {
    private static final int PENDING = 0;
    private static final int RUNNING = 1;
    private static final int DONE = 2;
    private static final int CANCELLED = 3;

    private final MarlWorker worker;
    private final Runnable body;
    private final AtomicInteger state = new AtomicInteger(PENDING);
    /** The deadline-heap timer of a delayed task, or null. */
    private volatile Disposable timer;
    /** The scope the body runs in: set before RUNNING is published, so a dispose() that sees RUNNING reads it. */
    private FiberCancellation running;

    WorkerTask(MarlWorker worker, Runnable body) {
        this.worker = worker;
        this.body = body;
    }

    void timer(Disposable handle) {
        timer = handle;
    }

    @Override
    public void run() {
        if (state.get() != PENDING) {
            return;
        }
        try (FiberCancellation scope = FiberCancellation.open()) {
            running = scope;
            if (!state.compareAndSet(PENDING, RUNNING)) {
                return;
            }
            worker.running(this);
            if (!worker.isDisposed()) { // else dispose() may have missed this task as it started
                body.run();
            }
        } catch (Throwable error) {
            worker.taskFailed(error); // the worker carries on with its next task
        } finally {
            worker.running(null);
            state.compareAndSet(RUNNING, DONE);
        }
    }

    @Override
    public void drop() {
        dispose();
    }

    @Override
    public void dispose() {
        if (state.compareAndSet(PENDING, CANCELLED)) {
            Disposable handle = timer;
            if (handle != null) {
                handle.dispose();
                worker.forget(this);
            }
        } else if (state.get() == RUNNING) {
            ReactorInterrupt.cancelWaits(running);
        }
    }

    @Override
    public boolean isDisposed() {
        int s = state.get();
        return s >= DONE || (s == RUNNING && running.isCancelled());
    }
}
