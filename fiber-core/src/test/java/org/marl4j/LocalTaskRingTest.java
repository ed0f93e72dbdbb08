package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/** The owner's ring of its own tasks: FIFO, bounded, and safe with one producer and lock-holding consumers. */
class LocalTaskRingTest {

    private static Task task() {
        return new Task(() -> {});
    }

    @Test
    void pollsInOfferOrder_acrossTheWrapAround() {
        LocalTaskRing ring = new LocalTaskRing();
        for (int round = 0; round < 5; round++) { // 5 x 200 slots: wraps the 256 slots several times
            List<Task> offered = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                Task t = task();
                offered.add(t);
                assertTrue(ring.offer(t));
            }
            assertEquals(200, ring.size());
            for (Task t : offered) {
                assertSame(t, ring.poll());
            }
            assertNull(ring.poll());
            assertTrue(ring.isEmpty());
        }
    }

    @Test
    void aFullRing_refusesUntilATaskIsTaken() {
        LocalTaskRing ring = new LocalTaskRing();
        Task first = task();
        assertTrue(ring.offer(first));
        for (int i = 1; i < LocalTaskRing.CAPACITY; i++) {
            assertTrue(ring.offer(task()));
        }
        assertFalse(ring.offer(task()), "a full ring took one more task");
        assertEquals(LocalTaskRing.CAPACITY, ring.size());
        assertSame(first, ring.poll());
        assertTrue(ring.offer(task()), "a slot freed by poll() was not reused");
        assertFalse(ring.offer(task()));
    }

    @Test
    void anEmptyRing_pollsNull_andCountsZero() {
        LocalTaskRing ring = new LocalTaskRing();
        assertNull(ring.poll());
        assertEquals(0, ring.size());
        assertTrue(ring.isEmpty());
    }

    /**
     * One producer offers while two consumers, serialized by a lock as a worker's lock serializes
     * its owner and thieves, poll: every task arrives once, in the order offered. Bounded: 200,000
     * tasks, and a producer that finds the ring full retries.
     */
    @Test
    void oneProducer_andConsumersUnderALock_loseAndReorderNothing() throws Exception {
        int count = 200_000;
        LocalTaskRing ring = new LocalTaskRing();
        Task[] tasks = new Task[count];
        for (int i = 0; i < count; i++) {
            tasks[i] = task();
        }
        ReentrantLock lock = new ReentrantLock();
        int[] next = {0}; // guarded by lock: the index the next polled task must have
        Thread[] consumers = new Thread[2];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int c = 0; c < consumers.length; c++) {
            consumers[c] = new Thread(() -> {
                while (true) {
                    lock.lock();
                    try {
                        if (next[0] == count) {
                            return;
                        }
                        Task t = ring.poll();
                        if (t != null) {
                            if (t != tasks[next[0]]) {
                                failure.set(new AssertionError("task " + next[0] + " polled out of order"));
                                next[0] = count;
                                return;
                            }
                            next[0]++;
                        }
                    } finally {
                        lock.unlock();
                    }
                    Thread.onSpinWait();
                }
            }, "consumer-" + c);
            consumers[c].start();
        }
        for (int i = 0; i < count; i++) {
            while (!ring.offer(tasks[i])) {
                if (failure.get() != null) {
                    break;
                }
                Thread.onSpinWait();
            }
        }
        for (Thread c : consumers) {
            c.join(TaskErrors.LONG.toMillis());
            assertFalse(c.isAlive(), "a consumer did not finish");
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertTrue(ring.isEmpty());
    }
}
