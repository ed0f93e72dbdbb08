package org.marl4j;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Deadlines is everything of one worker that waits for a deadline, ordered by deadline: fibers
 * waiting with a timeout ({@code work.waiting} in marl) and delayed tasks not yet due, in one
 * structure so that no timer thread exists. A binary min-heap whose entries remember their own
 * index, so waking a fiber or cancelling a task before its deadline removes it in O(log n)
 * instead of a scan; and the count of delayed tasks among them (the worker does not stop while any
 * is pending).
 *
 * <p>A plain data structure, not thread-safe: its {@link Work} holds it in a field guarded by the
 * work's lock, so every use is checked to hold that lock; the calls that file, cancel and expire
 * entries, from the owner, other threads and the monitor, are the work's
 * ({@link Work#expireDeadlines}, {@link Work#enqueueDelayed}, {@link Work#cancelDelayed}).
 */
final class Deadlines {
    private Timed[] heap = new Timed[16];
    private int size;
    /** Delayed tasks in the heap. */
    private int numDelayed;

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
