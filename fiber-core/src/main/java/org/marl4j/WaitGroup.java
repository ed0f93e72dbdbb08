package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.marl4j.WaitQueue.Waiter;

/**
 * WaitGroup is a synchronization primitive that holds an internal counter, incremented by
 * {@link #add}, decremented by {@link #done}; {@link #await} blocks until the counter reaches zero.
 * On a fiber, waiting suspends only the fiber; on a plain thread it blocks the thread.
 *
 * <pre>{@code
 * WaitGroup wg = new WaitGroup(tasks.size());
 * for (Runnable task : tasks) {
 *     Marl.schedule(() -> { task.run(); wg.done(); });
 * }
 * wg.await();
 * }</pre>
 *
 * <p>Reuse: a wait group may count another round once the previous one has reached zero, as Go's
 * may, but the round's {@code add} must not race with the {@code done} that ends the previous one.
 * In such a race an {@link #onZero} callback registered for the new round may run at the old
 * round's zero, and a waiter of the old round may miss that zero and wait for the new round's (as
 * in marl and Go). Use a new wait group per round when the rounds overlap.
 */
public final class WaitGroup {
    private final AtomicInteger count;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by lock. */
    @GuardedBy("lock")
    private final WaitQueue waiters = new WaitQueue();
    /** Callbacks registered with {@link #onZero}; guarded by lock. */
    private final CallbackQueue callbacks = new CallbackQueue();

    /** WaitGroup() creates a wait group with a count of zero. */
    public WaitGroup() {
        this(0);
    }

    /**
     * WaitGroup(initialCount) creates a wait group with the given count.
     *
     * @param initialCount the starting count, zero or more
     */
    public WaitGroup(int initialCount) {
        if (initialCount < 0) {
            throw new IllegalArgumentException("initial count must not be negative, was " + initialCount);
        }
        count = new AtomicInteger(initialCount);
    }

    /** add() increments the count by one. */
    public void add() {
        add(1);
    }

    /**
     * add(delta) increments the count by {@code delta}.
     *
     * @param delta how much to add, zero or more
     * @throws IllegalArgumentException if delta is negative (use {@link #done()})
     * @throws IllegalStateException if the count would overflow
     */
    public void add(int delta) {
        if (delta < 0) {
            throw new IllegalArgumentException("add() takes a non-negative delta, was " + delta + ": call done() to decrement");
        }
        // Validated before it is published: a refused add changes nothing, so no racing add() sees
        // a count it overflowed, and no racing done() sees a zero it took back.
        int previous;
        do {
            previous = count.get();
            if (previous > Integer.MAX_VALUE - delta) {
                throw new IllegalStateException("WaitGroup count overflows int: " + previous + " + " + delta
                        + ": the count is limited to Integer.MAX_VALUE; call done() before adding more");
            }
        } while (!count.compareAndSet(previous, previous + delta));
    }

    /**
     * done() decrements the count, waking every waiter if it reaches zero. Returns true if it did.
     *
     * @return whether the count reached zero
     * @throws IllegalStateException if the count is already zero: done() was called more times than add()
     */
    public boolean done() {
        int c;
        do {
            c = count.get();
            if (c == 0) {
                throw new IllegalStateException("WaitGroup.done() called more times than the count added "
                        + "(the count is already zero): match each done() with one add()");
            }
        } while (!count.compareAndSet(c, c - 1));
        if (c != 1) {
            return false;
        }
        Waiter first;
        Registration run;
        lock.lock();
        try {
            first = waiters.pollAll();
            run = callbacks.pollAll();
        } finally {
            lock.unlock();
        }
        try {
            WaitQueue.wakeChain(first); // may throw a scheduling policy's exception, after waking every waiter
        } finally {
            CallbackQueue.runChain(run); // taken from the group above: nobody else would ever run them
        }
        return true;
    }

    /**
     * onZero(callback) registers a one-shot callback that runs when the count reaches zero, the
     * callback form of {@link #await()} for code that must not hold a fiber or a thread while it
     * waits (a coroutine, a reactive pipeline). If the count is zero already, the callback runs at
     * once, on the calling thread, before this returns.
     *
     * <p>Otherwise it runs on the thread whose {@link #done()} brings the count to zero, after the
     * wait group's lock is released, so it must be short and must not block: hand longer work to a
     * scheduler. A callback that throws is reported to the uncaught-exception handler (the bound
     * scheduler's, else the thread's). {@link Registration#cancel()} withdraws the callback and
     * unlinks it at once: a withdrawn callback never runs.
     *
     * @param callback what to run once the count is zero
     * @return the handle that withdraws the callback
     * @throws NullPointerException if callback is null
     */
    public Registration onZero(Runnable callback) {
        Objects.requireNonNull(callback, "callback must not be null: onZero runs it when the count reaches zero");
        // Checked under lock: a done() that reaches zero after this takes the lock next and releases
        // the registration; one that reached zero before is seen here.
        return callbacks.register(lock, () -> count.get() == 0, callback);
    }

    /** waiterCount() is how many fibers and threads are queued for the next zero; for tests. */
    int waiterCount() {
        lock.lock();
        try {
            return waiters.size();
        } finally {
            lock.unlock();
        }
    }

    /** callbackCount() is how many {@link #onZero} callbacks wait for zero; for tests. */
    int callbackCount() {
        lock.lock();
        try {
            return callbacks.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * count() returns the current count.
     *
     * @return the count
     */
    public int count() {
        return count.get();
    }

    /**
     * await() blocks until the count is zero. On a fiber it suspends the fiber; on a plain thread
     * it parks the thread. Not interruptible (as every marl4j wait): on a plain or bound thread an
     * interrupt stays pending for the code after the wait (on a worker thread, see {@link Fiber}).
     */
    public void await() {
        Fiber fiber = Fiber.current();
        if (fiber != null) {
            awaitOnFiber(fiber);
        } else {
            await(false, 0);
        }
    }

    /**
     * await(timeout) blocks until the count is zero or the timeout passes; returns false on timeout.
     *
     * @param timeout how long to wait at most
     * @return true if the count reached zero, false if the wait timed out
     */
    public boolean await(Duration timeout) {
        return await(true, Fiber.deadlineAfter(timeout));
    }

    private boolean await(boolean timed, long deadline) {
        if (count.get() == 0) {
            return true;
        }
        lock.lock();
        try {
            while (count.get() != 0) {
                if (timed && deadline - System.nanoTime() <= 0) {
                    return false;
                }
                waiters.await(lock, timed, deadline);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * awaitOnFiber(fiber) is the untimed {@link #await()} of a fiber, as {@code Event}'s: it queues
     * the fiber's own node under the group's lock, releases the lock and suspends holding nothing,
     * so a fiber released by the zero does not take the lock again to leave: it reads the count
     * (volatile) at the top of its loop. Without that, a crowd released by one zero queues on the
     * lock one by one, parking their workers' threads on it. No release is lost: the count is
     * checked again under the lock before the node is queued, and the done() that reaches zero
     * takes the lock after its decrement to take every queued node; the node's notified flag is
     * checked under the worker lock before suspending. A fiber woken while an add() has already
     * raised the count again waits for the next zero, as under the lock (see the class comment). A
     * wait that ends un-notified (spurious wake, cancellation) leaves the queue.
     */
    private void awaitOnFiber(Fiber fiber) {
        while (true) {
            if (count.get() == 0) {
                return;
            }
            Waiter waiter;
            lock.lock();
            try {
                if (count.get() == 0) {
                    return;
                }
                waiter = fiber.waiterForWait();
                fiber.checkMaySuspend(lock);
                waiters.add(waiter);
            } finally {
                lock.unlock();
            }
            try {
                Worker.park(fiber, waiter);
            } catch (RuntimeException | Error ended) { // a bounded close or a FiberCancellation ended the wait
                leave(waiter);
                throw ended;
            }
            if (!waiter.notified) {
                leave(waiter); // a spurious wake: look again
            }
        }
    }

    /** leave(waiter) unlinks a waiter whose wait ended un-notified; see {@link WaitQueue#leave}. */
    private void leave(Waiter waiter) {
        lock.lock();
        try {
            waiters.leave(waiter);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "WaitGroup[count=" + count.get() + "]";
    }
}
