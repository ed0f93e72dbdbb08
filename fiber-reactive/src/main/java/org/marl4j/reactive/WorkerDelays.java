package org.marl4j.reactive;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.Comparator;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * WorkerDelays holds the delayed tasks of one {@link MarlWorker} in the order they fall due
 * (deadline, then the order they were scheduled in), and releases the due ones in that order.
 *
 * <p>Why: each delayed task has its own timer on the marl scheduler's deadline heaps, which belong to
 * different worker threads and fire independently, so the timers of two tasks due microseconds
 * apart fire in either order; queued by their own timers, the tasks would run out of order. A Reactor
 * Worker runs its tasks in order, and operators rely on it: {@code delaySequence} schedules every
 * element and the completion with the same delay, and lost elements behind an early completion.
 * Instead, a firing timer releases every task that is due, in deadline order: a timer fires no
 * earlier than its own task's deadline (taken here, before the timer is armed), so every task due
 * before it is due too, and the releases, serialised by one lock, reach the worker's queue in order.
 */
final class WorkerDelays {
    /** A waiting task, its deadline on the {@code System.nanoTime()} clock, and the timer armed for it. */
    record Entry(long deadline, long sequence, WorkerTask task, OneShot timer) {}

    /** Deadline order, wrap-safe as nanoTime comparisons must be; ties in schedule order. */
    private static final Comparator<Entry> DUE_ORDER = (a, b) -> a.deadline != b.deadline
            ? Long.signum(a.deadline - b.deadline)
            : Long.compare(a.sequence, b.sequence);

    /**
     * The tasks waiting, made at the first delayed task: most Workers (one per publishOn
     * subscription) never get one. It and {@link #sequence} are guarded by this object's monitor,
     * which is held while the due tasks are queued on the worker (so that two releases cannot
     * interleave); that never suspends the fiber, which must not wait holding it.
     */
    @GuardedBy("this")
    private TreeSet<Entry> waiting;
    @GuardedBy("this")
    private long sequence;

    /**
     * add(task, timer, nanos) records a task due in {@code nanos}; call it before arming the timer,
     * so that the timer's deadline is never earlier than the entry's.
     */
    synchronized Entry add(WorkerTask task, OneShot timer, long nanos) {
        // Clamped as the marl scheduler clamps its own deadlines, so that the sum cannot wrap.
        long deadline = System.nanoTime() + Math.min(nanos, Long.MAX_VALUE / 2);
        if (waiting == null) {
            waiting = new TreeSet<>(DUE_ORDER);
        }
        Entry entry = new Entry(deadline, sequence++, task, timer);
        waiting.add(entry);
        return entry;
    }

    /** remove(entry) forgets a cancelled task; nothing if it was released already. */
    synchronized void remove(Entry entry) {
        waiting.remove(entry); // made by the add() that made entry
    }

    /**
     * releaseDue(release) hands every task due by now to {@code release}, in due order, holding the
     * monitor: {@code release} must not suspend (queuing on the worker does not). It may call
     * {@link #remove} (the monitor is reentrant).
     */
    synchronized void releaseDue(Consumer<Entry> release) {
        long now = System.nanoTime();
        while (!waiting.isEmpty() && waiting.first().deadline - now <= 0) {
            release.accept(waiting.pollFirst());
        }
    }
}
