package org.marl4j;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Everything of one worker that waits for a deadline, ordered by deadline: fibers waiting with a
 * timeout ({@code work.waiting} in marl) and delayed tasks not yet due, in one structure so that no
 * timer thread exists. A binary min-heap whose entries remember their own index, so waking a fiber
 * or cancelling a task before its deadline removes it in O(log n) instead of a scan.
 *
 * <p>Not thread-safe: every method is called with the owning worker's lock held.
 */
final class Deadlines {
    private Timed[] heap = new Timed[16];
    private int size;

    boolean isEmpty() {
        return size == 0;
    }

    /** nextDeadline() is the earliest deadline, in {@link System#nanoTime()} units; heap must not be empty. */
    long nextDeadline() {
        return heap[0].deadline;
    }

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

    boolean contains(Timed entry) {
        return entry.heapIndex >= 0;
    }

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
