package org.marl4j;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * DelayedTask is the handle of a task enqueued with {@link Scheduler#enqueue(Task, java.time.Duration)}:
 * it lets the task be cancelled until it starts.
 *
 * <pre>{@code
 * DelayedTask retry = scheduler.enqueue(new Task(this::retry), Duration.ofSeconds(5));
 * ...
 * retry.cancel();   // true: it will never run
 * }</pre>
 *
 * <p>The task waits in its worker's deadline heap, the one that times out waiting fibers, so
 * delays cost no timer thread. When due it joins the worker's task queue like any task; it starts
 * no earlier than its delay, and later if its worker is busy or (by up to the spin duration) spinning.
 * If that worker is stuck in one task, the scheduler's monitor moves the due task to its queue within
 * a few milliseconds, where an idle worker takes it.
 */
public final class DelayedTask extends Timed {
    private static final int PENDING = 0;
    private static final int STARTED = 1;
    private static final int CANCELLED = 2;

    private final AtomicInteger state = new AtomicInteger(PENDING);
    private final Worker worker;
    /** What the worker queues when the task is due: runs the user's task unless cancelled first. */
    final Task due;

    DelayedTask(Task task, Worker worker) {
        this.worker = worker;
        this.due = new Task(() -> {
            if (state.compareAndSet(PENDING, STARTED)) {
                task.run();
            }
        }, task.is(Task.Flag.SAME_THREAD), task.priority());
    }

    /** worker() is the worker whose deadline heap holds this task; for tests. */
    Worker worker() {
        return worker;
    }

    /**
     * cancel() stops the task from running if it has not started yet. Returns true if this call
     * cancelled it, false if it had already started (or finished) or was already cancelled.
     *
     * @return whether this call cancelled the task
     */
    public boolean cancel() {
        if (!state.compareAndSet(PENDING, CANCELLED)) {
            return false;
        }
        Deadlines.cancelDelayed(worker.work, this); // wakes a worker whose sleep or drain waits for it
        return true;
    }

    /** cancelForClose() is {@link #cancel()} by a bounded close, whose caller takes the task out of the heap itself. */
    boolean cancelForClose() {
        return state.compareAndSet(PENDING, CANCELLED);
    }

    /**
     * isCancelled() returns whether {@link #cancel()} stopped this task before it started.
     *
     * @return whether the task was cancelled before it started
     */
    public boolean isCancelled() {
        return state.get() == CANCELLED;
    }

    /**
     * hasStarted() returns whether the task has started to run (it may still be running).
     *
     * @return whether the task has started
     */
    public boolean hasStarted() {
        return state.get() == STARTED;
    }

    @Override
    public String toString() {
        return "DelayedTask[" + (isCancelled() ? "cancelled" : hasStarted() ? "started" : "pending") + "]";
    }
}
