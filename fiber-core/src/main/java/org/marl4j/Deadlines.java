package org.marl4j;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * Deadlines is everything of one worker that waits for a deadline, ordered by deadline: fibers
 * waiting with a timeout ({@code work.waiting} in marl) and delayed tasks not yet due, in one
 * structure so that no timer thread exists. A binary min-heap whose entries remember their own
 * index, so waking a fiber or cancelling a task before its deadline removes it in O(log n)
 * instead of a scan; and the count of delayed tasks among them (the worker does not stop while any
 * is pending).
 *
 * <p>A data structure, not thread-safe: its {@link Work} holds it in a field guarded by the work's
 * lock, so every use is checked to hold that lock. The owner expires what came due under that
 * lock ({@link Work#expireDeadlines}); the calls of other threads (an enqueuer of a delayed task, a
 * cancelling thread, the monitor, close()) are the static methods here, which take the lock of
 * the work they are given, so this class keeps no reference to its work.
 */
final class Deadlines {
    private Timed[] heap = new Timed[16];
    private int size;
    /** Delayed tasks in the heap. */
    private int numDelayed;

    // ---------------------------------------------------------------- the work's calls from other threads, which take its lock

    /** enqueueDelayed(work, task, deadline, owner) files a delayed task in the deadline heap until it is due. */
    @Excludes("work.lock")
    static void enqueueDelayed(Work work, DelayedTask task, long deadline, Worker owner) {
        work.lock.lock();
        try {
            if (work.stopped) {
                throw new RejectedExecutionException(owner + " has work.stopped");
            }
            work.deadlines.addDelayed(task, deadline);
            if (work.deadlines.nextDeadline() == deadline) {
                work.wakeOwner(); // if it sleeps, the owner must wake sooner than it planned
            }
        } finally {
            work.lock.unlock();
        }
    }

    /**
     * cancelDelayed(work, task) drops a cancelled delayed task from the heap if it is not due yet, and
     * wakes a sleeping owner: its sleep may have been sized by this task's deadline, and a draining
     * owner (close(), unbind()) may now be free to stop.
     */
    @Excludes("work.lock")
    static void cancelDelayed(Work work, DelayedTask task) {
        work.lock.lock();
        try {
            if (work.deadlines.removeDelayed(task)) {
                work.wakeOwner();
            }
        } finally {
            work.lock.unlock();
        }
    }

    /**
     * expireDeadlinesFor(work, now) is the monitor's help for an owner stalled in one task (see {@link
     * Monitor}): if the lock is free, it files the due delayed tasks (and timed-out fibers) as the
     * owner would, so that idle workers may steal the tasks instead of leaving them to wait for the
     * owner. A contended lock means the owner is not stalled after all: it is left alone. A custom
     * policy's exception reaches the caller (the monitor); the entry it failed on stays due, for the
     * owner.
     */
    @Excludes("work.lock")
    static void expireDeadlinesFor(Work work, long now) {
        if (!work.lock.tryLock()) {
            return;
        }
        try {
            if (!work.stopped && work.deadlines.hasDeadlines()) {
                work.expireDeadlines(now);
            }
        } finally {
            work.lock.unlock();
        }
    }

    /**
     * dropDelayed(work) is a bounded close giving up: it cancels every delayed task still pending here,
     * as {@code ScheduledThreadPoolExecutor.shutdownNow()} drops its queue, runs their
     * {@link DelayedTask#onDrop} actions, and returns how many.
     */
    @Excludes("work.lock")
    static int dropDelayed(Work work) {
        List<DelayedTask> dropped = new ArrayList<>();
        work.lock.lock();
        try {
            for (DelayedTask task : work.deadlines.removeDelayedTasks()) {
                if (task.cancelForClose()) {
                    dropped.add(task);
                }
            }
            work.wakeOwner(); // it may have been sleeping until the first of them was due
        } finally {
            work.lock.unlock();
        }
        // Outside the lock: a drop action may cancel other delayed tasks, which takes it.
        for (DelayedTask task : dropped) {
            task.dropped();
        }
        return dropped.size();
    }

    /** delayedSummary(work) is, for close()'s warning, how many delayed tasks are pending here and when the first is due ("" if none). */
    @Excludes("work.lock")
    static String delayedSummary(Work work) {
        work.lock.lock();
        try {
            if (work.deadlines.numDelayed() == 0) {
                return "";
            }
            long now = System.nanoTime();
            long first = Long.MAX_VALUE;
            for (DelayedTask task : work.deadlines.delayedTasks()) {
                first = Math.min(first, task.deadline - now);
            }
            return work.deadlines.numDelayed() + " delayed task(s), the first due in " + Math.max(0, first / 1_000_000) + " ms";
        } finally {
            work.lock.unlock();
        }
    }

    // ---------------------------------------------------------------- the heap (its work's lock held)

    boolean hasDeadlines() {
        return size != 0;
    }

    int numDelayed() {
        return numDelayed;
    }

    /** addDelayed(task, deadline) files a delayed task until it is due. */
    void addDelayed(DelayedTask task, long deadline) {
        add(task, deadline);
        numDelayed++;
    }

    /** removeDelayed(task) takes a delayed task out of the heap if it is in; returns whether it was. */
    boolean removeDelayed(DelayedTask task) {
        if (!contains(task)) {
            return false;
        }
        remove(task);
        numDelayed--;
        return true;
    }

    /** nextDeadline() is the earliest deadline, in {@link System#nanoTime()} units; hasDeadlines() must be true. */
    long nextDeadline() {
        return heap[0].deadline;
    }

    /** add(entry, deadline) files an entry: a fiber suspended with a timeout, or a delayed task. */
    void add(Timed entry, long deadline) {
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
    List<DelayedTask> removeDelayedTasks() {
        List<DelayedTask> removed = delayedTasks();
        removed.forEach(this::remove);
        numDelayed -= removed.size();
        return removed;
    }

    /** delayedTasks() lists the {@link DelayedTask}s in the heap, in no order. */
    List<DelayedTask> delayedTasks() {
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
    Timed peekExpired(long now) {
        return size == 0 || heap[0].deadline - now > 0 ? null : heap[0];
    }

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

    private void place(int i, Timed entry) {
        heap[i] = entry;
        entry.heapIndex = i;
    }
}
