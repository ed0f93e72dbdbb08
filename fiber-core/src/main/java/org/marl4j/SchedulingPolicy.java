package org.marl4j;

/**
 * SchedulingPolicy decides the order in which one worker resumes its ready fibers and starts its
 * queued tasks: Boost.Fiber's {@code sched_algorithm} (awakened / pick_next / has_ready_fibers),
 * extended to marl's tasks. Waiting for work, timeouts and notification stay the worker's job, as
 * {@code suspend_until} and {@code notify} are in Boost.
 *
 * <pre>{@code
 * Scheduler.Config config = Scheduler.Config.allCores().setSchedulingPolicy(PriorityPolicy::new);
 * scheduler.enqueue(new Task(this::render).withPriority(10));   // starts before priority-0 tasks
 * }</pre>
 *
 * <p>Each worker gets its own instance from the configured factory. Every method is called by that
 * worker, by a thread enqueueing to or stealing from it, or by the scheduler's monitor thread
 * filing the due delayed tasks of a worker stalled in one task, always with the worker's lock
 * held: implementations need no synchronization of their own, but must be quick and must not
 * block, wait or call into the scheduler (a call that needs the lock it runs under, such as an
 * enqueue onto the same worker, a wait or a wake there, throws an {@code IllegalStateException}
 * saying so where it would hang the worker; it is reported as any exception a policy throws; a
 * policy that blocks in the JDK on the virtual-thread engine hangs its worker for good). The
 * default is {@link FifoPolicy}, marl's order. A custom policy may keep per-fiber data in an
 * {@code IdentityHashMap}; fibers are reused for many tasks, and {@link Fiber#priority()} is the
 * priority of the task a fiber is running.
 *
 * <p>A custom policy, say newest task first (ready fibers still first, nothing stealable):
 *
 * <pre>{@code
 * final class LifoPolicy implements SchedulingPolicy {
 *     private final ArrayDeque<Fiber> fibers = new ArrayDeque<>();
 *     private final ArrayDeque<Task> tasks = new ArrayDeque<>();
 *     public void awakened(Fiber fiber) { fibers.addLast(fiber); }
 *     public void enqueued(Task task) { tasks.addLast(task); }
 *     public Fiber pickNextFiber() { return fibers.pollFirst(); }
 *     public Task pickNextTask() { return tasks.pollLast(); }
 *     public Task steal() { return null; }
 *     public boolean remove(Fiber fiber) { return fibers.remove(fiber); }
 * }
 * new Scheduler(Scheduler.Config.allCores().setSchedulingPolicy(LifoPolicy::new));
 * }</pre>
 *
 * <p>A policy must hand back exactly what it was given: every fiber passed to {@link #awakened}
 * exactly once through {@link #pickNextFiber} or {@link #remove}, every task passed to
 * {@link #enqueued} exactly once through {@link #pickNextTask} or {@link #steal}.
 */
public interface SchedulingPolicy {
    /**
     * awakened(fiber) is called when a suspended fiber is woken (or times out) and is ready to resume.
     *
     * @param fiber the fiber that is ready to resume
     */
    void awakened(Fiber fiber);

    /**
     * enqueued(task) is called when a task is queued on this worker.
     *
     * @param task the queued task
     */
    void enqueued(Task task);

    /**
     * pickNextFiber() removes and returns the ready fiber to resume next, if one should go before
     * any queued task; otherwise null (the worker then calls {@link #pickNextTask()}). marl resumes
     * every ready fiber before it starts a new task.
     *
     * @return the fiber to resume next, or null
     */
    Fiber pickNextFiber();

    /**
     * pickNextTask() removes and returns the task to start next, or null if none is queued.
     *
     * @return the task to start next, or null
     */
    Task pickNextTask();

    /**
     * steal() removes and returns a task that an idle worker may run instead, or null. It must never
     * return a task flagged {@link Task.Flag#SAME_THREAD}. Fibers are never stolen.
     *
     * @return a task another worker may run, or null
     */
    Task steal();

    /**
     * remove(fiber) removes a ready fiber the worker resumes by other means; returns whether it was queued.
     *
     * @param fiber the fiber to take out of the ready queue
     * @return whether it was queued
     */
    boolean remove(Fiber fiber);

    /**
     * propertyChanged(fiber) is called when the priority of a fiber of this worker changes
     * (Boost's {@code property_change}); a policy that orders by priority re-orders the fiber if it
     * is ready. The fiber may not be queued here at all: then there is nothing to do.
     *
     * @param fiber the fiber whose priority changed
     */
    default void propertyChanged(Fiber fiber) {}
}
