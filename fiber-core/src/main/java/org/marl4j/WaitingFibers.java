package org.marl4j;

import java.util.Arrays;

/**
 * The fibers of one worker that wait with a deadline ({@code work.waiting} in marl), ordered by
 * deadline: a binary min-heap whose entries remember their own index, so waking a fiber before its
 * deadline removes it in O(log n) instead of a scan.
 *
 * <p>Not thread-safe: every method is called with the owning worker's lock held.
 */
final class WaitingFibers {
    private Fiber[] heap = new Fiber[16];
    private int size;

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /** nextDeadline() is the earliest deadline, in {@link System#nanoTime()} units; heap must not be empty. */
    long nextDeadline() {
        return heap[0].deadline;
    }

    void add(Fiber fiber, long deadline) {
        assert fiber.heapIndex < 0 : "fiber is already waiting";
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        fiber.deadline = deadline;
        siftUp(size++, fiber);
    }

    boolean contains(Fiber fiber) {
        return fiber.heapIndex >= 0;
    }

    void remove(Fiber fiber) {
        int i = fiber.heapIndex;
        assert i >= 0 && heap[i] == fiber;
        fiber.heapIndex = -1;
        Fiber last = heap[--size];
        heap[size] = null;
        if (i == size) {
            return;
        }
        siftDown(i, last);
        if (heap[i] == last) {
            siftUp(i, last);
        }
    }

    /** pollExpired(now) removes and returns the earliest fiber whose deadline is at or before now, or null. */
    Fiber pollExpired(long now) {
        if (size == 0 || heap[0].deadline - now > 0) {
            return null;
        }
        Fiber first = heap[0];
        remove(first);
        return first;
    }

    /** forEach visits every waiting fiber in no particular order. */
    void forEach(java.util.function.Consumer<Fiber> action) {
        for (int i = 0; i < size; i++) {
            action.accept(heap[i]);
        }
    }

    private void siftUp(int i, Fiber fiber) {
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Fiber p = heap[parent];
            if (fiber.deadline - p.deadline >= 0) {
                break;
            }
            place(i, p);
            i = parent;
        }
        place(i, fiber);
    }

    private void siftDown(int i, Fiber fiber) {
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && heap[right].deadline - heap[child].deadline < 0) {
                child = right;
            }
            if (fiber.deadline - heap[child].deadline <= 0) {
                break;
            }
            place(i, heap[child]);
            i = child;
        }
        place(i, fiber);
    }

    private void place(int i, Fiber fiber) {
        heap[i] = fiber;
        fiber.heapIndex = i;
    }
}
