package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * Deadlines is everything of one worker that waits for a deadline, ordered by deadline: fibers
 * waiting with a timeout ({@code work.waiting} in marl) and delayed tasks not yet due, in one
 * structure so that no timer thread exists; and the calls that file, cancel and expire them. One
 * per {@link Work}, which holds it. A binary min-heap whose entries remember their own index, so
 * waking a fiber or cancelling a task before its deadline removes it in O(log n) instead of a scan.
 *
 * <p>What comes due goes into the work's policy ({@link #expireDeadlines}): a timed-out fiber is
 * made ready ({@link Work#addReadyFiber}, which also takes a fiber woken before its deadline out of
 * the heap), a due delayed task is queued like any task. The owner expires deadlines at each turn
 * of its loop and around each sleep ({@link Sleeping}); the monitor does it for an owner stalled in
 * a task ({@link #expireDeadlinesFor}).
 *
 * <p>Lock discipline: {@code lock} is the work's lock ({@link Work#lock}); it guards every field
 * here. Methods marked {@link Excludes} take it themselves (enqueuers, a cancelling thread, the
 * monitor, close()), methods marked {@link GuardedBy} are called with it held, and so are the
 * heap's own operations below them. A custom policy's exception reaches the caller before any
 * state here changes, as in Work.
 */
final class Deadlines {
    private final Work work;
    /** The work's lock, not one of this class's own. */
    private final WorkerLock lock;
    /** The work's policy, which a due delayed task joins; called only under the lock. */
    private final SchedulingPolicy policy;
    @GuardedBy("lock")
    private Timed[] heap = new Timed[16];
    @GuardedBy("lock")
    private int size;
    /** Delayed tasks in the deadline heap: the worker does not stop while any is pending. */
    @GuardedBy("lock")
    private int numDelayed;

    Deadlines(Work work, SchedulingPolicy policy) {
        this.work = work;
        this.lock = work.lock;
        this.policy = policy;
    }

    // ---------------------------------------------------------------- calls from other threads

    /** enqueueDelayed(task, deadline) parks a delayed task in the deadline heap until it is due. */
    @Excludes("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that work.lock, work.ownerSleep.lock name
    void enqueueDelayed(DelayedTask task, long deadline, Worker owner) {
        lock.lock();
        try {
            if (work.stopped) {
                throw new RejectedExecutionException(owner + " has stopped");
            }
            add(task, deadline);
            numDelayed++;
            if (nextDeadline() == deadline) {
                work.ownerSleep.wakeOwner(); // if it sleeps, the owner must wake sooner than it planned
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * cancelDelayed(task) drops a cancelled delayed task from the heap if it is not due yet, and
     * wakes a sleeping owner: its sleep may have been sized by this task's deadline, and a draining
     * owner (close(), unbind()) may now be free to stop.
     */
    @Excludes("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that work.ownerSleep.lock names
    void cancelDelayed(DelayedTask task) {
        lock.lock();
        try {
            if (contains(task)) {
                remove(task);
                numDelayed--;
                work.ownerSleep.wakeOwner();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * expireDeadlinesFor(now) is the monitor's help for an owner stalled in one task (see {@link
     * Monitor}): if the lock is free, it files the due delayed tasks (and timed-out fibers) as the
     * owner would, so that idle workers may steal the tasks instead of leaving them to wait for the
     * owner. A contended lock means the owner is not stalled after all: it is left alone. A custom
     * policy's exception reaches the caller (the monitor); the entry it failed on stays due, for the
     * owner.
     */
    @Excludes("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that work.lock names
    void expireDeadlinesFor(long now) {
        if (!lock.tryLock()) {
            return;
        }
        try {
            if (!work.stopped && hasDeadlines()) {
                expireDeadlines(now);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * dropDelayed() is a bounded close giving up: it cancels every delayed task still pending here,
     * as {@code ScheduledThreadPoolExecutor.shutdownNow()} drops its queue, and returns how many.
     */
    @Excludes("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that work.ownerSleep.lock names
    int dropDelayed() {
        lock.lock();
        try {
            int dropped = 0;
            for (DelayedTask task : removeDelayedTasks()) {
                numDelayed--;
                if (task.cancelForClose()) {
                    dropped++;
                }
            }
            work.ownerSleep.wakeOwner(); // it may have been sleeping until the first of them was due
            return dropped;
        } finally {
            lock.unlock();
        }
    }

    /**
     * delayedSummary() is, for close()'s warning, how many delayed tasks are pending here and when
     * the first is due ("" if none). Takes the lock.
     */
    @Excludes("lock")
    String delayedSummary() {
        lock.lock();
        try {
            if (numDelayed == 0) {
                return "";
            }
            long now = System.nanoTime();
            long first = Long.MAX_VALUE;
            for (DelayedTask task : delayedTasks()) {
                first = Math.min(first, task.deadline - now);
            }
            return numDelayed + " delayed task(s), the first due in " + Math.max(0, first / 1_000_000) + " ms";
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- deadlines (lock held)

    @GuardedBy("lock")
    boolean hasDeadlines() {
        return !isEmpty();
    }

    @GuardedBy("lock")
    int numDelayed() {
        return numDelayed;
    }

    /** addWaiting(fiber, deadline) files a fiber suspended with a timeout. */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that fiber.worker.lock names
    void addWaiting(Fiber fiber, long deadline) {
        add(fiber.timer(), deadline);
    }

    /**
     * expireDeadlines(now) makes timed-out fibers ready and queues delayed tasks that are due. Each
     * entry leaves the heap only once the policy took it, so a throwing policy loses nothing.
     */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that work.lock names
    void expireDeadlines(long now) {
        Timed entry;
        while ((entry = peekExpired(now)) != null) {
            if (entry instanceof FiberTimer timer) {
                work.addReadyFiber(timer.fiber); // removes it from the heap
            } else {
                policy.enqueued(((DelayedTask) entry).due);
                remove(entry);
                numDelayed--;
                work.addedTask();
            }
        }
    }

    // ---------------------------------------------------------------- the heap (lock held)

    @GuardedBy("lock")
    private boolean isEmpty() {
        return size == 0;
    }

    /** nextDeadline() is the earliest deadline, in {@link System#nanoTime()} units; hasDeadlines() must be true. */
    @GuardedBy("lock")
    long nextDeadline() {
        return heap[0].deadline;
    }

    @GuardedBy("lock")
    private void add(Timed entry, long deadline) {
        assert entry.heapIndex < 0 : "already in the heap";
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        entry.deadline = deadline;
        siftUp(size++, entry);
    }

    /**
     * removeDelayedTasks() takes every {@link DelayedTask} out of the heap (timed-out fibers stay)
     * and returns them: for a bounded close that gives up.
     */
    @GuardedBy("lock")
    private List<DelayedTask> removeDelayedTasks() {
        List<DelayedTask> removed = delayedTasks();
        removed.forEach(this::remove);
        return removed;
    }

    /** delayedTasks() lists the {@link DelayedTask}s in the heap, in no order. */
    @GuardedBy("lock")
    private List<DelayedTask> delayedTasks() {
        List<DelayedTask> tasks = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            if (heap[i] instanceof DelayedTask task) {
                tasks.add(task);
            }
        }
        return tasks;
    }

    private boolean contains(Timed entry) {
        return entry.heapIndex >= 0;
    }

    /** remove(entry) takes an entry out of the heap: a fiber woken before its deadline, a task cancelled or due. */
    @GuardedBy("lock")
    void remove(Timed entry) {
        int i = entry.heapIndex;
        assert i >= 0 && heap[i] == entry;
        entry.heapIndex = -1;
        Timed last = heap[--size];
        heap[size] = null;
        if (i == size) {
            return;
        }
        siftDown(i, last);
        if (heap[i] == last) {
            siftUp(i, last);
        }
    }

    /** peekExpired(now) returns, without removing it, the earliest entry whose deadline is at or before now, or null. */
    @GuardedBy("lock")
    private Timed peekExpired(long now) {
        return size == 0 || heap[0].deadline - now > 0 ? null : heap[0];
    }

    @GuardedBy("lock")
    private void siftUp(int i, Timed entry) {
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Timed p = heap[parent];
            if (entry.deadline - p.deadline >= 0) {
                break;
            }
            place(i, p);
            i = parent;
        }
        place(i, entry);
    }

    @GuardedBy("lock")
    private void siftDown(int i, Timed entry) {
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && heap[right].deadline - heap[child].deadline < 0) {
                child = right;
            }
            if (entry.deadline - heap[child].deadline <= 0) {
                break;
            }
            place(i, heap[child]);
            i = child;
        }
        place(i, entry);
    }

    @GuardedBy("lock")
    private void place(int i, Timed entry) {
        heap[i] = entry;
        entry.heapIndex = i;
    }
}
