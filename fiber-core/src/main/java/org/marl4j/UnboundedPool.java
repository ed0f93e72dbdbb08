package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * UnboundedPool is a {@link Pool} that makes a new item whenever none is free, so borrowing never
 * waits: marl's {@code marl::UnboundedPool}.
 *
 * <pre>{@code
 * UnboundedPool<StringBuilder> builders = new UnboundedPool<>(Pool.Policy.PRESERVE, StringBuilder::new);
 * try (Pool.Loan<StringBuilder> loan = builders.borrow()) {
 *     StringBuilder sb = loan.get();
 *     sb.setLength(0);    // PRESERVE: the previous borrower's text is still there
 *     render(sb);
 * }
 * }</pre>
 *
 * <p>With {@link Pool.Policy#PRESERVE} the pool keeps every item it ever made and lends idle ones
 * first; it grows one item at a time (marl allocates storage in batches, but constructing a batch
 * of user objects nobody asked for would be surprising in Java). With {@link Pool.Policy#RECONSTRUCT}
 * it keeps nothing: each borrow constructs an item and each return destroys it.
 * {@link #borrow(Duration)} and {@link #tryBorrow()} are the same as {@link #borrow()} and never
 * return null.
 *
 * @param <T> the type of the pooled items
 */
public final class UnboundedPool<T> extends Pool<T> {
    private final ReentrantLock lock = new ReentrantLock();
    /** The idle items of a PRESERVE pool; guarded by lock. Unused with RECONSTRUCT. */
    @GuardedBy("lock")
    private final ArrayDeque<T> idle = new ArrayDeque<>();
    /** How many items a PRESERVE pool has constructed; guarded by lock. */
    @GuardedBy("lock")
    private int size;
    /** Written under lock; read without it by RECONSTRUCT borrows, for which a racing close() is harmless. */
    private volatile boolean closed;

    /**
     * UnboundedPool(constructor) creates a RECONSTRUCT pool (marl's default policy).
     *
     * @param constructor makes an item on each borrow
     */
    public UnboundedPool(Supplier<? extends T> constructor) {
        this(Policy.RECONSTRUCT, constructor, item -> {});
    }

    /**
     * UnboundedPool(policy, constructor) creates a pool whose items need no destructor.
     *
     * @param policy whether an item is made on each borrow or kept for reuse
     * @param constructor makes an item
     */
    public UnboundedPool(Policy policy, Supplier<? extends T> constructor) {
        this(policy, constructor, item -> {});
    }

    /**
     * UnboundedPool(policy, constructor, destructor) creates an empty pool; it constructs items as they are borrowed.
     *
     * @param policy whether an item is made on each borrow or kept for reuse
     * @param constructor makes an item
     * @param destructor disposes of an item when the pool is done with it
     */
    public UnboundedPool(Policy policy, Supplier<? extends T> constructor, Consumer<? super T> destructor) {
        super(policy, constructor, destructor);
    }

    /**
     * size() returns how many items a PRESERVE pool has made (idle or lent); 0 for RECONSTRUCT.
     *
     * @return the number of items made
     */
    public int size() {
        lock.lock();
        try {
            return size;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Loan<T> borrow() {
        if (policy == Policy.RECONSTRUCT) {
            if (closed) {
                throw closedException(this);
            }
            return new Loan<>(this, construct());
        }
        T item;
        lock.lock();
        try {
            if (closed) {
                throw closedException(this);
            }
            item = idle.poll();
            if (item == null) {
                size++; // reserve the slot now; construct() runs without the lock
            }
        } finally {
            lock.unlock();
        }
        if (item == null) {
            try {
                item = construct();
            } catch (Throwable t) {
                lock.lock();
                try {
                    size--;
                } finally {
                    lock.unlock();
                }
                throw t;
            }
        }
        return new Loan<>(this, item);
    }

    /** borrow(timeout) is {@link #borrow()}: an unbounded pool never waits, so it never returns null. */
    @Override
    public Loan<T> borrow(Duration timeout) {
        Fiber.deadlineAfter(timeout); // validates the argument like the bounded pool does
        return borrow();
    }

    /** tryBorrow() is {@link #borrow()}: an unbounded pool never waits, so it never returns null. */
    @Override
    public Loan<T> tryBorrow() {
        return borrow();
    }

    @Override
    void giveBack(T item) {
        if (policy == Policy.PRESERVE) {
            lock.lock();
            try {
                if (!closed) {
                    idle.push(item);
                    return;
                }
            } finally {
                lock.unlock();
            }
        }
        destroy(item);
    }

    @Override
    public void close() {
        List<T> toDestroy;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            toDestroy = new ArrayList<>(idle);
            idle.clear();
        } finally {
            lock.unlock();
        }
        destroyAll(toDestroy);
    }

    @Override
    public String toString() {
        return "UnboundedPool[" + policy + "]";
    }
}
