package org.marl4j;

import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * PriorityPolicy is a {@link SchedulingPolicy} that runs higher-priority work first: the ready
 * fiber or queued task with the highest {@link Fiber#priority()} / {@link Task#priority()} goes
 * next, ties in arrival order, and a ready fiber goes before a task of equal priority (as in marl).
 *
 * <pre>{@code
 * Scheduler scheduler = new Scheduler(Scheduler.Config.allCores().setSchedulingPolicy(PriorityPolicy::new));
 * scheduler.enqueue(new Task(this::urgent).withPriority(10));
 * Fiber.current().setPriority(5);   // re-orders this fiber whenever it is ready
 * }</pre>
 *
 * <p>A fiber runs at the priority of the task it runs, unless {@link Fiber#setPriority} changes
 * it; changing the priority of a ready fiber re-orders it at once (Boost's {@code property_change}),
 * of a suspended one when it is woken. Priorities order work within one worker: tasks are spread
 * over workers as usual, and an idle worker steals the highest-priority stealable task. Operations
 * cost O(log n); re-ordering a ready fiber costs O(n).
 */
public final class PriorityPolicy implements SchedulingPolicy {
    /** A queued fiber or task with the priority it was queued at and its arrival number. */
    private record Entry(Object item, int priority, long sequence) {}

    /** Highest priority first (compared, not negated: -Integer.MIN_VALUE overflows), then FIFO. */
    private static final Comparator<Entry> ORDER = ((Comparator<Entry>) (a, b) -> Integer.compare(b.priority, a.priority))
            .thenComparingLong(Entry::sequence);

    private final PriorityQueue<Entry> fibers = new PriorityQueue<>(ORDER);
    /** Stealable tasks; SAME_THREAD ones wait apart, so a thief never finds one blocking the way. */
    private final PriorityQueue<Entry> tasks = new PriorityQueue<>(ORDER);
    private final PriorityQueue<Entry> sameThreadTasks = new PriorityQueue<>(ORDER);
    private final Map<Fiber, Entry> queuedFibers = new IdentityHashMap<>();
    private long arrivals;

    /** PriorityPolicy() creates an empty policy for one worker. */
    public PriorityPolicy() {}

    @Override
    public void awakened(Fiber fiber) {
        Entry entry = new Entry(fiber, fiber.priority(), arrivals++);
        fibers.add(entry);
        queuedFibers.put(fiber, entry);
    }

    @Override
    public void enqueued(Task task) {
        (task.is(Task.Flag.SAME_THREAD) ? sameThreadTasks : tasks).add(new Entry(task, task.priority(), arrivals++));
    }

    /** The queue whose head is the task to start next (the higher priority, then the older). */
    private PriorityQueue<Entry> nextTasks() {
        Entry stealable = tasks.peek();
        Entry sameThread = sameThreadTasks.peek();
        return sameThread != null && (stealable == null || ORDER.compare(sameThread, stealable) < 0) ? sameThreadTasks : tasks;
    }

    @Override
    public Fiber pickNextFiber() {
        Entry fiber = fibers.peek();
        Entry task = nextTasks().peek();
        if (fiber == null || (task != null && task.priority > fiber.priority)) {
            return null;
        }
        fibers.poll();
        queuedFibers.remove((Fiber) fiber.item);
        return (Fiber) fiber.item;
    }

    @Override
    public Task pickNextTask() {
        Entry task = nextTasks().poll();
        return task == null ? null : (Task) task.item;
    }

    @Override
    public Task steal() {
        Entry top = tasks.poll();
        return top == null ? null : (Task) top.item;
    }

    @Override
    public boolean remove(Fiber fiber) {
        Entry entry = queuedFibers.remove(fiber);
        return entry != null && fibers.remove(entry);
    }

    @Override
    public void propertyChanged(Fiber fiber) {
        Entry entry = queuedFibers.get(fiber);
        if (entry != null && entry.priority != fiber.priority()) {
            fibers.remove(entry);
            Entry moved = new Entry(fiber, fiber.priority(), entry.sequence);
            fibers.add(moved);
            queuedFibers.put(fiber, moved);
        }
    }
}
