package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.marl4j.WaitQueue.Waiter;

/**
 * WaitQueue's bookkeeping, on plain-thread waiter nodes (nothing here waits): {@code pollAll()}
 * detaches a crowd without visiting it, and a node of the detached chain is never again taken for a
 * member of the queue, whatever joins the queue meanwhile.
 */
class WaitQueueTest {

    @Test
    void pollAll_returnsEveryWaiterInOrder_andEmptiesTheQueue() {
        WaitQueue queue = new WaitQueue();
        List<Waiter> added = addThreadWaiters(queue, 3);

        Waiter first = queue.pollAll();

        assertEquals(0, queue.size());
        assertNull(queue.poll());
        List<Waiter> chain = new ArrayList<>();
        for (Waiter w = first; w != null; w = w.next) {
            chain.add(w);
        }
        assertEquals(added, chain);
        assertNull(new WaitQueue().pollAll(), "an empty queue has no chain");
    }

    /**
     * A wait that ends (times out) after a notifier detached its node, before the notifier has
     * visited it, must find the node not queued: unlinking it from the live queue would corrupt the
     * newcomers' links, since the node's own links still point into the detached chain.
     */
    @Test
    void aDetachedWaiter_isNotQueued_evenBeforeItsNotifierReachesIt() {
        WaitQueue queue = new WaitQueue();
        List<Waiter> crowd = addThreadWaiters(queue, 3);
        queue.pollAll(); // the notifier has not walked the chain yet
        List<Waiter> newcomers = addThreadWaiters(queue, 2);

        assertFalse(queue.remove(crowd.get(1)), "a detached node was unlinked from the live queue");
        assertFalse(queue.remove(crowd.get(0)));
        assertFalse(queue.remove(crowd.get(2)));

        assertEquals(2, queue.size());
        assertSame(newcomers.get(0), queue.poll());
        assertSame(newcomers.get(1), queue.poll());
        assertNull(queue.poll());
    }

    /** A detached waiter that leaves reports itself taken and passes the notification on (see WaitRefusalTest). */
    @Test
    void aDetachedWaiterThatLeaves_passesItsNotificationToTheNextWaiter() {
        WaitQueue queue = new WaitQueue();
        List<Waiter> crowd = addThreadWaiters(queue, 2);
        queue.pollAll();
        Waiter newcomer = addThreadWaiters(queue, 1).get(0);

        assertTrue(queue.leave(crowd.get(0)), "leave must report the node as taken by a notifier");

        assertTrue(newcomer.notified);
        assertEquals(0, queue.size());
    }

    /** wakeChain notifies every node and clears it, so each can join a queue again (add asserts it is in none). */
    @Test
    void wakeChain_notifiesEveryNode_andFreesItForAnotherWait() {
        WaitQueue queue = new WaitQueue();
        List<Waiter> crowd = addThreadWaiters(queue, 3);

        WaitQueue.wakeChain(queue.pollAll());

        for (Waiter w : crowd) {
            assertTrue(w.notified);
            assertNull(w.next);
            assertNull(w.prev);
            assertEquals(0, w.queuedIn);
        }
        WaitQueue other = new WaitQueue();
        for (Waiter w : crowd) {
            w.notified = false;
            other.add(w);
        }
        assertEquals(3, other.size());
        assertTrue(other.remove(crowd.get(1)));
        assertSame(crowd.get(0), other.poll());
        assertSame(crowd.get(2), other.poll());
    }

    /** Nodes that join after a pollAll are members of the queue like any other, through several generations. */
    @Test
    void waitersAddedAfterPollAll_areQueuedNormally() {
        WaitQueue queue = new WaitQueue();
        for (int round = 0; round < 3; round++) {
            List<Waiter> waiters = addThreadWaiters(queue, 3);
            assertTrue(queue.remove(waiters.get(1)));
            assertEquals(2, queue.size());
            Waiter first = queue.pollAll();
            assertSame(waiters.get(0), first);
            assertSame(waiters.get(2), first.next);
            assertNull(first.next.next);
        }
    }

    /** After Integer.MAX_VALUE the generation starts again at 1, never 0 (the mark of a node in no queue). */
    @Test
    void theGenerationWrapsToOne_andADetachedWaiterStaysUnqueued() {
        WaitQueue queue = new WaitQueue(Integer.MAX_VALUE);
        List<Waiter> crowd = addThreadWaiters(queue, 2);
        assertEquals(Integer.MAX_VALUE, crowd.get(0).queuedIn);
        queue.pollAll();
        Waiter newcomer = addThreadWaiters(queue, 1).get(0);

        assertEquals(1, newcomer.queuedIn);
        assertFalse(queue.remove(crowd.get(0)));
        assertTrue(queue.remove(newcomer));
        assertEquals(0, queue.size());
    }

    /**
     * A wake that throws (a scheduling policy's, when the notifier is the waiter's own worker) does
     * not strand the rest of the crowd: every node is woken and cleared, then the exception thrown.
     */
    @Test
    void wakeChain_wakesTheWholeCrowd_whenOneWakeThrows_thenThrowsIt() {
        WaitQueue queue = new WaitQueue();
        Waiter before = new Waiter.ThreadWaiter(Thread.currentThread());
        Waiter throwing = new ThrowingWaiter();
        Waiter after = new Waiter.ThreadWaiter(Thread.currentThread());
        queue.add(before);
        queue.add(throwing);
        queue.add(after);

        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> WaitQueue.wakeChain(queue.pollAll()));

        assertEquals("policy failed", thrown.getMessage());
        for (Waiter w : List.of(before, throwing, after)) {
            assertTrue(w.notified);
            assertEquals(0, w.queuedIn);
            assertNull(w.next);
        }
    }

    /** A waiter whose wake fails, as a throwing scheduling policy makes a fiber's wake fail. */
    private static final class ThrowingWaiter extends Waiter {
        @Override
        Fiber fiber() {
            return null;
        }

        @Override
        void resume() {
            throw new IllegalStateException("policy failed");
        }
    }

    private static List<Waiter> addThreadWaiters(WaitQueue queue, int count) {
        List<Waiter> added = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Waiter w = new Waiter.ThreadWaiter(Thread.currentThread());
            queue.add(w);
            added.add(w);
        }
        return added;
    }
}
