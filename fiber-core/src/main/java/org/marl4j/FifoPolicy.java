package org.marl4j;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * FifoPolicy is marl's own order and the default {@link SchedulingPolicy}: ready fibers first, in
 * the order they were woken, then tasks in the order they were queued; a thief takes the oldest task
 * it may (not a {@link Task.Flag#SAME_THREAD} one), and the rest of its batch from the newest end.
 *
 * <p>A worker configured with a FifoPolicy keeps its ready fibers in a queue of its own, in this
 * same order, as marl's worker does, and asks the policy about tasks only; the fiber methods here
 * serve a policy that wraps this one.
 */
public final class FifoPolicy implements SchedulingPolicy {
    private final ArrayDeque<Fiber> fibers = new ArrayDeque<>();
    private final ArrayDeque<Task> tasks = new ArrayDeque<>();
    /**
     * The SAME_THREAD tasks among {@code tasks}. While there are none, a thief takes the oldest
     * task without reading it: each task it takes is then first touched on the thief's own thread,
     * not while it holds the victim's lock.
     */
    private int sameThreadTasks;

    /** FifoPolicy() creates an empty policy for one worker. */
    public FifoPolicy() {}

    @Override
    public void awakened(Fiber fiber) {
        fibers.addLast(fiber);
    }

    @Override
    public void enqueued(Task task) {
        tasks.addLast(task);
        if (task.is(Task.Flag.SAME_THREAD)) {
            sameThreadTasks++;
        }
    }

    @Override
    public Fiber pickNextFiber() {
        return fibers.pollFirst();
    }

    @Override
    public Task pickNextTask() {
        Task task = tasks.pollFirst();
        if (sameThreadTasks > 0 && task != null && task.is(Task.Flag.SAME_THREAD)) {
            sameThreadTasks--;
        }
        return task;
    }

    /**
     * How far behind the queue's head a thief looks past SAME_THREAD tasks for one it may take:
     * bounded, since a thief asks under the victim's lock and may ask often while it spins.
     */
    private static final int STEAL_SCAN = 32;

    @Override
    public Task steal() {
        if (sameThreadTasks == 0) {
            return tasks.pollFirst();
        }
        Task oldest = tasks.peekFirst();
        if (oldest == null || !oldest.is(Task.Flag.SAME_THREAD)) {
            return tasks.pollFirst();
        }
        // A SAME_THREAD task at the head must not strand the stealable ones behind it.
        return removeFirstStealable(tasks.iterator());
    }

    /**
     * stealNewest() takes the newest task a thief may, or null: the rest of a thief's batch after
     * {@link #steal()}'s oldest ({@code Steals}). The newest tasks of a burst were made moments ago
     * and are still in the caches; the oldest, which the owner runs next, may not be. Taken oldest
     * first, a thief ran tasks made hundreds of thousands of tasks earlier while its victim kept
     * producing, fell behind, and the backlog grew: launching 1,000,000 coroutines from one worker
     * kept a median of ~60,000 tasks queued and took ~10% longer than with the newest taken.
     */
    Task stealNewest() {
        if (sameThreadTasks == 0) {
            return tasks.pollLast();
        }
        return removeFirstStealable(tasks.descendingIterator());
    }

    /** removeFirstStealable(queued) removes the first task not SAME_THREAD among the next STEAL_SCAN, or returns null. */
    private static Task removeFirstStealable(Iterator<Task> queued) {
        for (int i = 0; i < STEAL_SCAN && queued.hasNext(); i++) {
            Task task = queued.next();
            if (!task.is(Task.Flag.SAME_THREAD)) {
                queued.remove();
                return task;
            }
        }
        return null;
    }

    @Override
    public boolean remove(Fiber fiber) {
        return fibers.remove(fiber);
    }
}
