package org.marl4j;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
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
    /** Cancelled by a bounded close that gave up: {@link #isCancelled()} too, and the drop action runs. */
    private static final int DROPPED = 3;
    /** What {@link #dropAction} holds once the drop action ran (or the drop found none yet). */
    private static final Runnable DROP_DONE = () -> {};

    private static final VarHandle DROP_ACTION;

    static {
        try {
            DROP_ACTION = MethodHandles.lookup().findVarHandle(DelayedTask.class, "dropAction", Runnable.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The {@link #onDrop} action: null until set, {@link #DROP_DONE} once the drop has taken it. A
     * field, not an AtomicReference: every delay (each Kotlin {@code delay}) makes one of these.
     */
    @SuppressWarnings("unused") // accessed through DROP_ACTION
    private volatile Runnable dropAction;

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

    /**
     * cancelForClose() is {@link #cancel()} by a bounded close, whose caller takes the task out of
     * the heap itself, and then, outside its lock, calls {@link #dropped()}.
     */
    boolean cancelForClose() {
        return state.compareAndSet(PENDING, DROPPED);
    }

    /**
     * onDrop(action) sets what runs if {@link Scheduler#close(Duration)} gives up and drops this
     * task before it started: the owner of a task that stood for a waiter (a timer that resumes
     * someone) learns that it will never run, and can end that wait instead of leaving it for ever.
     * The action runs once, on the closing thread (at once, on this thread, if the task was already
     * dropped); never if the task starts or {@link #cancel()} cancels it. It runs outside the
     * scheduler's locks, so it may cancel other delayed tasks; it should be short, and an exception
     * it throws goes to the scheduler's uncaught-exception handler, as a task's does.
     *
     * @param action what to run if a bounded close drops this task
     * @throws IllegalStateException if a drop action is already set
     */
    public void onDrop(Runnable action) {
        Objects.requireNonNull(action, "action must not be null: pass what should run if a bounded close drops this task");
        Runnable prior = (Runnable) DROP_ACTION.compareAndExchange(this, (Runnable) null, action);
        if (prior == DROP_DONE) {
            runSafely(action); // dropped before the action was set: the drop found none to run
            return;
        }
        if (prior != null) {
            throw new IllegalStateException("this delayed task already has a drop action: onDrop takes one per task");
        }
        if (state.get() == DROPPED) {
            dropped(); // dropped meanwhile: whichever of this and the close's dropped() comes second finds DROP_DONE
        }
    }

    /**
     * dropped() runs the {@link #onDrop} action, if one is set, once {@link #cancelForClose()} has
     * dropped this task; an action set later finds {@code DROP_DONE} and runs at once.
     */
    void dropped() {
        Runnable action = (Runnable) DROP_ACTION.getAndSet(this, DROP_DONE);
        if (action != null && action != DROP_DONE) {
            runSafely(action);
        }
    }

    /** runSafely(action) runs a drop action, reporting what it throws as a task's exception is, so the close goes on to the next. */
    private void runSafely(Runnable action) {
        try {
            action.run();
        } catch (Throwable thrown) {
            worker.scheduler.reportUncaught(thrown);
        }
    }

    /**
     * isCancelled() returns whether {@link #cancel()} stopped this task before it started.
     *
     * @return whether the task was cancelled before it started
     */
    public boolean isCancelled() {
        int now = state.get();
        return now == CANCELLED || now == DROPPED;
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
