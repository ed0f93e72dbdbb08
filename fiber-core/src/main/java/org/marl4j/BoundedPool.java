package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.marl4j.WaitQueue.Waiter;

/**
 * BoundedPool is a {@link Pool} of a fixed number of items, {@code capacity}, that never lends more
 * than that at once: marl's {@code marl::BoundedPool}. While every item is out, {@link #borrow()}
 * suspends the calling fiber (its worker thread runs other tasks meanwhile) or blocks a plain thread.
 *
 * <pre>{@code
 * BoundedPool<Connection> connections = new BoundedPool<>(4, Pool.Policy.PRESERVE, db::connect, Connection::close);
 * for (Query q : queries) {
 *     Marl.schedule(() -> {
 *         try (Pool.Loan<Connection> c = connections.borrow()) {   // at most 4 queries at a time
 *             q.run(c.get());
 *         }
 *     });
 * }
 * }</pre>
 *
 * <p>With {@link Pool.Policy#PRESERVE} all {@code capacity} items are constructed by the pool's
 * constructor; with {@link Pool.Policy#RECONSTRUCT} the pool holds only permits and constructs an
 * item on each borrow. A freed item goes to the longest-waiting borrower, but a concurrent
 * {@link #tryBorrow()} may take it first: the pool is not strictly fair.
 *
 * @param <T> the type of the pooled items
 */
public final class BoundedPool<T> extends Pool<T> {
    private final int capacity;
    private final ReentrantLock lock = new ReentrantLock();
    /** Items free to lend; guarded by lock. */
    @GuardedBy("lock")
    private int available;
    /** The idle items of a PRESERVE pool, {@code available} of them; guarded by lock. Unused with RECONSTRUCT. */
    @GuardedBy("lock")
    private final ArrayDeque<T> idle;
    /** Guarded by lock. */
    @GuardedBy("lock")
    private boolean closed;
    /** Borrowers waiting for an item; guarded by lock. */
    @GuardedBy("lock")
    private final WaitQueue waiters = new WaitQueue();

    /**
     * BoundedPool(capacity, constructor) creates a RECONSTRUCT pool (marl's default policy).
     *
     * @param capacity the number of items, at least 1
     * @param constructor makes an item on each borrow
     */
    public BoundedPool(int capacity, Supplier<? extends T> constructor) {
        this(capacity, Policy.RECONSTRUCT, constructor, item -> {});
    }

    /**
     * BoundedPool(capacity, policy, constructor) creates a pool whose items need no destructor.
     *
     * @param capacity the number of items, at least 1
     * @param policy whether an item is made on each borrow or once
     * @param constructor makes an item
     */
    public BoundedPool(int capacity, Policy policy, Supplier<? extends T> constructor) {
        this(capacity, policy, constructor, item -> {});
    }

    /**
     * BoundedPool(capacity, policy, constructor, destructor) creates a pool of {@code capacity}
     * items; with PRESERVE it constructs all of them now.
     *
     * @param capacity the number of items, at least 1
     * @param policy whether an item is made on each borrow or once
     * @param constructor makes an item
     * @param destructor disposes of an item when the pool is done with it
     * @throws IllegalArgumentException if capacity is not positive
     * @throws RuntimeException what {@code constructor} threw, with PRESERVE; the items it had made
     *     by then are passed to {@code destructor} first
     */
    public BoundedPool(int capacity, Policy policy, Supplier<? extends T> constructor, Consumer<? super T> destructor) {
        super(policy, constructor, destructor);
        if (capacity <= 0) {
            throw new IllegalArgumentException("BoundedPool capacity must be positive, was " + capacity);
        }
        this.capacity = capacity;
        this.available = capacity;
        this.idle = new ArrayDeque<>(policy == Policy.PRESERVE ? capacity : 0);
        if (policy == Policy.PRESERVE) {
            try {
                for (int i = 0; i < capacity; i++) {
                    idle.push(construct());
                }
            } catch (RuntimeException | Error failed) {
                // No pool comes out of this constructor to close: unmake what it made, then fail.
                for (T made; (made = idle.poll()) != null; ) {
                    try {
                        destroy(made);
                    } catch (RuntimeException | Error again) {
                        failed.addSuppressed(again);
                    }
                }
                throw failed;
            }
        }
    }

    /**
     * capacity() returns the number of items this pool lends at most at once.
     *
     * @return the pool's capacity
     */
    public int capacity() {
        return capacity;
    }

    /**
     * available() returns how many items could be borrowed now without waiting (a snapshot).
     *
     * @return the number of items free right now
     */
    public int available() {
        lock.lock();
        try {
            return available;
        } finally {
            lock.unlock();
        }
    }

    /** waitingBorrowers() returns how many borrowers are waiting for an item (a snapshot, for tests and diagnostics). */
    int waitingBorrowers() {
        lock.lock();
        try {
            return waiters.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Loan<T> borrow() {
        return take(true, false, 0);
    }

    @Override
    public Loan<T> borrow(Duration timeout) {
        return take(true, true, Fiber.deadlineAfter(timeout));
    }

    @Override
    public Loan<T> tryBorrow() {
        return take(false, false, 0);
    }

    /** take() takes a permit (and an idle item), waiting if asked to, then makes the loan without the lock. */
    private Loan<T> take(boolean wait, boolean timed, long deadline) {
        T item;
        lock.lock();
        try {
            while (true) {
                if (closed) {
                    throw closedException(this);
                }
                // Check for an item before the deadline: a waiter woken by a return just as it timed
                // out must still take that item, or the wake-up would be lost for every other waiter.
                if (available > 0) {
                    break;
                }
                if (!wait || (timed && deadline - System.nanoTime() <= 0)) {
                    return null;
                }
                waiters.await(lock, timed, deadline);
            }
            available--;
            item = policy == Policy.PRESERVE ? idle.pop() : null;
        } finally {
            lock.unlock();
        }
        if (policy == Policy.RECONSTRUCT) {
            try {
                item = construct();
            } catch (Throwable t) {
                release(null);
                throw t;
            }
        }
        return new Loan<>(this, item);
    }

    @Override
    void giveBack(T item) {
        if (policy == Policy.RECONSTRUCT) {
            try {
                destroy(item);
            } finally {
                release(null); // the permit comes back even if the destructor threw
            }
        } else {
            release(item);
        }
    }

    /** release(item) frees a permit (and, with PRESERVE, its item) and wakes the longest-waiting borrower. */
    private void release(T preserved) {
        Waiter wake;
        boolean destroyNow = false;
        lock.lock();
        try {
            available++;
            if (preserved != null) {
                if (closed) {
                    destroyNow = true;
                } else {
                    idle.push(preserved);
                }
            }
            wake = waiters.poll();
        } finally {
            lock.unlock();
        }
        if (wake != null) {
            wake.notifyWaiter();
        }
        if (destroyNow) {
            destroy(preserved);
        }
    }

    @Override
    public void close() {
        Waiter wake;
        List<T> toDestroy;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            toDestroy = new ArrayList<>(idle);
            idle.clear();
            wake = waiters.pollAll();
        } finally {
            lock.unlock();
        }
        WaitQueue.wakeChain(wake);
        destroyAll(toDestroy);
    }

    @Override
    public String toString() {
        return "BoundedPool[" + policy + ", capacity=" + capacity + "]";
    }
}
