package org.marl4j;

import java.util.ArrayDeque;

/**
 * FifoPolicy is marl's own order and the default {@link SchedulingPolicy}: ready fibers first, in
 * the order they were woken, then tasks in the order they were queued; thieves take the oldest task.
 */
public final class FifoPolicy implements SchedulingPolicy {
    private final ArrayDeque<Fiber> fibers = new ArrayDeque<>();
    private final ArrayDeque<Task> tasks = new ArrayDeque<>();

    /** FifoPolicy() creates an empty policy for one worker. */
    public FifoPolicy() {}

    @Override
    public void awakened(Fiber fiber) {
        fibers.addLast(fiber);
    }

    @Override
    public void enqueued(Task task) {
        tasks.addLast(task);
    }

    @Override
    public Fiber pickNextFiber() {
        return fibers.pollFirst();
    }

    @Override
    public Task pickNextTask() {
        return tasks.pollFirst();
    }

    @Override
    public Task steal() {
        Task oldest = tasks.peekFirst();
        return oldest == null || oldest.is(Task.Flag.SAME_THREAD) ? null : tasks.pollFirst();
    }

    @Override
    public boolean remove(Fiber fiber) {
        return fibers.remove(fiber);
    }
}
