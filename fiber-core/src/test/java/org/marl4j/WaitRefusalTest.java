package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TestSchedulers.joinQuietly;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.marl4j.WaitQueue.Waiter;

/**
 * Waits that release a reentrant lock held several times, and waits that end without using the
 * notification they were given (refused, cancelled, timed out): none keeps a hold its waker needs,
 * and none swallows a notification meant for another waiter.
 */
class WaitRefusalTest {

    /** Fiber.await with a Mutex held twice releases both holds while suspended, and gives both back. */
    @ForEachWorkerCount
    void fiberAwait_mutexHeldTwice_releasesEveryHoldWhileWaiting(int workers) {
        Mutex mutex = new Mutex();
        AtomicBoolean ready = new AtomicBoolean();
        TestSchedulers.withScheduler(workers, scheduler -> {
            int holdsAfter = TestSchedulers.runOnFiber(scheduler, () -> {
                Fiber self = Fiber.current();
                mutex.lock();
                mutex.lock();
                try {
                    Marl.schedule(() -> { // takes the mutex: only possible if the wait released both holds
                        mutex.lock();
                        try {
                            ready.set(true);
                        } finally {
                            mutex.unlock();
                        }
                        self.wake();
                    });
                    self.await(mutex, Duration.ofSeconds(30), ready::get);
                    return mutex.holdCount();
                } finally {
                    mutex.unlock();
                    mutex.unlock();
                }
            });
            assertTrue(ready.get(), "the waker never got the mutex: the wait kept a hold");
            assertEquals(2, holdsAfter);
            assertFalse(mutex.isLocked());
        });
    }

    /** The same for a ReentrantLock held twice by a bound thread's main fiber. */
    @Test
    void fiberAwait_reentrantLockHeldTwice_releasesEveryHoldWhileWaiting() {
        ReentrantLock lock = new ReentrantLock();
        AtomicBoolean ready = new AtomicBoolean();
        TestSchedulers.withBoundScheduler(1, scheduler -> {
            Fiber self = Fiber.current();
            lock.lock();
            lock.lock();
            try {
                Thread waker = TestSchedulers.startThread("waker", () -> {
                    lock.lock();
                    try {
                        ready.set(true);
                    } finally {
                        lock.unlock();
                    }
                    self.wake();
                });
                assertTrue(self.await(lock, Duration.ofSeconds(30), ready::get), "timed out: the wait kept a hold");
                assertEquals(2, lock.getHoldCount());
                joinQuietly(waker);
            } finally {
                lock.unlock();
                lock.unlock();
            }
        });
    }

    /**
     * A fiber handed a Mutex by unlock() whose wait is then cancelled by a bounded close passes the
     * hand-off on: the next waiter (a plain thread, which no close cancels) gets the mutex. The
     * order is forced: the owner fiber suspends after the contender, so the close resumes the owner
     * first (the most recently suspended first, FIFO), and its finally block's unlock() hands the
     * mutex to the contender, which is about to throw FiberCancelledException.
     */
    @Test
    void mutex_handOffToAWaitThatIsCancelled_passesToTheNextWaiter() throws Exception {
        Mutex mutex = new Mutex();
        Event never = new Event(Event.Mode.MANUAL);
        AtomicReference<Throwable> contenderThrew = new AtomicReference<>();
        AtomicInteger suspended = new AtomicInteger();
        Scheduler scheduler = new Scheduler(TestSchedulers.config(1));
        scheduler.enqueue(new Task(() -> {
            mutex.lock();
            try {
                Marl.schedule(() -> {
                    suspended.incrementAndGet();
                    try {
                        mutex.lock(); // suspends: the owner holds it
                        mutex.unlock();
                    } catch (Throwable t) {
                        contenderThrew.set(t);
                    }
                });
                Fiber.yield(); // lets the contender queue on the mutex first
                suspended.incrementAndGet();
                never.await(); // cancelled by close(Duration); finally then unlocks
            } finally {
                mutex.unlock();
            }
        }));
        Awaitility.await().atMost(TestSchedulers.PATIENCE).until(() -> suspended.get() == 2
                && scheduler.suspendedFibers().size() == 2);
        CompletableFuture<Boolean> threadGotIt = new CompletableFuture<>();
        Thread thread = TestSchedulers.startThread("last-waiter", () -> {
            mutex.lock(); // queued behind the contender fiber
            mutex.unlock();
            threadGotIt.complete(true);
        });
        Awaitility.await().atMost(TestSchedulers.PATIENCE).until(() -> thread.getState() == Thread.State.WAITING);
        scheduler.close(Duration.ofMillis(20));
        assertInstanceOf(FiberCancelledException.class, contenderThrew.get());
        assertTrue(threadGotIt.get(30, TimeUnit.SECONDS), "the hand-off was swallowed by the cancelled waiter");
        joinQuietly(thread);
    }

    /**
     * A waiter that a notifier already took off the queue, and that then leaves without using the
     * notification (timed out, refused, cancelled), passes it to the next waiter.
     */
    @Test
    void waitQueue_takenWaiterThatLeaves_passesTheNotificationOn() {
        WaitQueue queue = new WaitQueue();
        Waiter first = Waiter.forCurrent();
        Waiter second = Waiter.forCurrent();
        queue.add(first);
        queue.add(second);
        assertEquals(first, queue.poll()); // a notifier takes the first waiter...
        queue.leave(first); // ...which leaves without using it
        assertEquals(0, queue.size(), "the notification was not passed to the second waiter");
        assertTrue(second.notified);
        queue.leave(second); // already notified and unlinked: nobody left to pass to
        assertEquals(0, queue.size());
    }

    /**
     * A fiber's own waiter node (the fiber itself) that a notifier took but has not yet notified is
     * not reused: the next wait gets a fresh node, and the own node is reused once notified.
     */
    @Test
    void fiberOwnWaiter_takenByANotifier_isReusedOnlyOnceNotified() {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(1));
        scheduler.bind();
        try {
            Fiber me = Fiber.current();
            Waiter own = Waiter.reusableForCurrent();
            assertSame(me, own);
            WaitQueue queue = new WaitQueue();
            queue.add(own);
            assertSame(own, queue.poll()); // a notifier takes it: its notification is on the way
            assertTrue(queue.leave(own), "leave must report the waiter as taken");
            Waiter fresh = Waiter.reusableForCurrent();
            assertNotSame(me, fresh, "the own node was reused while a notifier could still write to it");
            assertSame(me, fresh.fiber());
            own.notifyWaiter(); // the notifier finishes with it
            assertSame(me, Waiter.reusableForCurrent());
            assertFalse(me.notified, "a reused node starts un-notified");
        } finally {
            scheduler.unbind();
            scheduler.close();
        }
    }
}
