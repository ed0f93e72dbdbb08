package org.marl4j;

import java.util.Objects;

/**
 * A Task is a unit of work for a {@link Scheduler}: a {@link Runnable} plus scheduling flags.
 *
 * <pre>{@code
 * scheduler.enqueue(new Task(() -> render(tile)));
 * scheduler.enqueue(new Task(this::flush, Task.Flag.SAME_THREAD));  // stays on this worker
 * }</pre>
 *
 * <p>A task runs inline on a worker's current fiber: one that never blocks costs no fiber switch.
 * A task that blocks on a marl4j primitive suspends its fiber and the worker carries on with other
 * work. A task that throws is reported to the scheduler's uncaught-exception handler.
 */
public final class Task implements Runnable {
    /** Flags that change where a task may run. */
    public enum Flag {
        /**
         * SAME_THREAD keeps the task on the worker of the thread that enqueues it: it is never
         * handed to another worker nor stolen. Only a thread bound to the scheduler, or one of its
         * worker threads, may enqueue such a task.
         */
        SAME_THREAD
    }

    private final Runnable body;
    private final boolean sameThread;
    private final int priority;

    /**
     * Task(body) creates a task with no flags.
     *
     * @param body the task's code
     */
    public Task(Runnable body) {
        this.body = Objects.requireNonNull(body, "task body must not be null");
        this.sameThread = false;
        this.priority = 0;
    }

    /**
     * Task(body, flag) creates a task with the given flag.
     *
     * @param body the task's code
     * @param flag how the task is scheduled
     */
    public Task(Runnable body, Flag flag) {
        this.body = Objects.requireNonNull(body, "task body must not be null");
        this.sameThread = Objects.requireNonNull(flag, "task flag must not be null") == Flag.SAME_THREAD;
        this.priority = 0;
    }

    Task(Runnable body, boolean sameThread, int priority) {
        this.body = body;
        this.sameThread = sameThread;
        this.priority = priority;
    }

    /**
     * withPriority(priority) returns a copy of this task with the given priority: higher runs
     * sooner under {@link PriorityPolicy}, and the fiber running the task takes it as its
     * {@link Fiber#priority()}. The default {@link FifoPolicy} ignores priorities. Default 0.
     *
     * @param priority the priority; higher runs sooner under {@link PriorityPolicy}
     * @return the new task
     */
    public Task withPriority(int priority) {
        return new Task(body, sameThread, priority);
    }

    /**
     * priority() returns this task's priority (0 unless set with {@link #withPriority}).
     *
     * @return the priority
     */
    public int priority() {
        return priority;
    }

    /**
     * is(flag) returns true if this task was created with {@code flag}.
     *
     * @param flag the flag to test
     * @return whether the task has that flag
     */
    public boolean is(Flag flag) {
        return flag == Flag.SAME_THREAD && sameThread;
    }

    /** body() is the runnable this task runs; the worker calls it directly. */
    Runnable body() {
        return body;
    }

    /** run() runs the task's body on the calling thread. */
    @Override
    public void run() {
        body.run();
    }

    @Override
    public String toString() {
        return "Task[" + body + (sameThread ? ", SAME_THREAD" : "") + (priority != 0 ? ", priority " + priority : "") + "]";
    }
}
