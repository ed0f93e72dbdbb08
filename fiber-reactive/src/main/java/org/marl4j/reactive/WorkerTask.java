package org.marl4j.reactive;

import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.Disposable;

/**
 * WorkerTask is one task of a {@link MarlWorker}, and the Disposable its {@code schedule} returns.
 * States: PENDING → RUNNING → DONE, or PENDING → CANCELLED; a cancelled task stays in the worker's
 * queue and is skipped when reached. A delayed task also holds its timer, which dispose() cancels.
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

    WorkerTask(MarlWorker worker, Runnable body) {
        this.worker = worker;
        this.body = body;
    }

    void timer(Disposable handle) {
        timer = handle;
    }

    @Override
    public void run() {
        if (!state.compareAndSet(PENDING, RUNNING)) {
            return;
        }
        try {
            body.run();
        } catch (Throwable error) {
            worker.taskFailed(error); // the worker carries on with its next task
        } finally {
            state.set(DONE);
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
        }
    }

    @Override
    public boolean isDisposed() {
        return state.get() >= DONE;
    }
}
