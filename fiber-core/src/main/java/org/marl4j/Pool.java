package org.marl4j;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Pool is a thread-safe pool of reusable items of type {@code T} that lends them out as
 * {@link Loan}s: marl's {@code marl::Pool}, the common base of {@link BoundedPool} (fixed number of
 * items; borrowers wait) and {@link UnboundedPool} (grows; never waits).
 *
 * <pre>{@code
 * Pool<ByteBuffer> buffers = new BoundedPool<>(8, Pool.Policy.PRESERVE, () -> ByteBuffer.allocate(64 * 1024));
 * Marl.schedule(() -> {
 *     try (Pool.Loan<ByteBuffer> loan = buffers.borrow()) {   // suspends the fiber while all 8 are out
 *         ByteBuffer buffer = loan.get().clear();
 *         fill(buffer);
 *     }                                                      // close() hands the buffer back
 * });
 * }</pre>
 *
 * <p>The {@link Policy} says when items are made and unmade: {@link Policy#RECONSTRUCT} (marl's
 * default) calls the pool's constructor on every borrow and its destructor on every return, so no
 * state survives a loan; {@link Policy#PRESERVE} constructs each item once and keeps it, state and
 * all, from loan to loan, calling the destructor only when the pool is {@link #close() closed}.
 * Constructor and destructor are called without any pool lock held; they may suspend.
 *
 * <p>The methods that can come back empty-handed, {@link #tryBorrow()} and
 * {@link #borrow(Duration)}, return {@code null} as {@link java.util.concurrent.BlockingQueue#poll}
 * does; try-with-resources accepts a null resource. Waiting borrowers are not interruptible (like
 * every marl4j wait): an interrupt stays pending on a plain thread and the wait goes on.
 *
 * <p>Unlike marl, where a loan is reference counted and copied, a {@link Loan} has one owner and is
 * returned by its {@link Loan#close()}; a loan that is never closed keeps its item out for good.
 *
 * @param <T> the type of the pooled items
 */
public abstract sealed class Pool<T> implements AutoCloseable permits BoundedPool, UnboundedPool {

    /** Policy says whether pool items are re-made for every loan or kept between loans. */
    public enum Policy {
        /** RECONSTRUCT: the constructor runs on every borrow and the destructor on every return. */
        RECONSTRUCT,
        /** PRESERVE: each item is constructed once, keeps its state between loans, and is destroyed on close(). */
        PRESERVE
    }

    final Policy policy;
    private final Supplier<? extends T> constructor;
    private final Consumer<? super T> destructor;

    Pool(Policy policy, Supplier<? extends T> constructor, Consumer<? super T> destructor) {
        this.policy = Objects.requireNonNull(policy, "policy must not be null");
        this.constructor = Objects.requireNonNull(constructor, "constructor must not be null");
        this.destructor = Objects.requireNonNull(destructor, "destructor must not be null (pass item -> {} for none)");
    }

    /**
     * policy() returns this pool's policy.
     *
     * @return RECONSTRUCT or PRESERVE
     */
    public final Policy policy() {
        return policy;
    }

    /**
     * borrow() lends an item, waiting while none is free (a {@link BoundedPool} suspends the calling
     * fiber, or blocks a plain thread; an {@link UnboundedPool} grows instead).
     *
     * @return the loan; close it to return the item
     * @throws IllegalStateException if the pool is closed, or is closed while the caller waits
     */
    public abstract Loan<T> borrow();

    /**
     * borrow(timeout) is {@link #borrow()} giving up after {@code timeout}.
     *
     * @param timeout how long to wait at most
     * @return the loan, or {@code null} if no item became free in time
     * @throws IllegalStateException if the pool is closed, or is closed while the caller waits
     */
    public abstract Loan<T> borrow(Duration timeout);

    /**
     * tryBorrow() lends an item if one is free now; it never waits.
     *
     * @return the loan, or {@code null} if every item is out
     * @throws IllegalStateException if the pool is closed
     */
    public abstract Loan<T> tryBorrow();

    /**
     * borrow(count, consumer) borrows {@code count} items one after another, handing each loan to
     * {@code consumer} as soon as it is borrowed (marl's {@code borrow(n, f)}). On a bounded pool it
     * waits for each item in turn, so the consumer must arrange for loans to be closed (for example
     * by scheduling a task that closes its loan) when {@code count} exceeds the free items, or it
     * waits for ever.
     *
     * @param count how many items to borrow
     * @param consumer receives each loan, which it must close
     * @throws IllegalArgumentException if count is negative
     * @throws IllegalStateException if the pool is closed, or is closed while the caller waits
     */
    public void borrow(int count, Consumer<? super Loan<T>> consumer) {
        if (count < 0) {
            throw new IllegalArgumentException("borrow count must not be negative, was " + count);
        }
        Objects.requireNonNull(consumer, "consumer must not be null");
        for (int i = 0; i < count; i++) {
            consumer.accept(borrow());
        }
    }

    /**
     * close() closes the pool: later borrows throw {@link IllegalStateException}, waiting borrowers
     * are woken and throw it too, and with {@link Policy#PRESERVE} every idle item is destroyed now.
     * Loans still out stay valid; their items are destroyed when they are returned. Closing twice
     * does nothing.
     */
    @Override
    public abstract void close();

    /**
     * destroyAll(items) destroys every item, even if some destructors throw; the first exception is
     * then rethrown with the others suppressed. Called without the pool's lock.
     */
    final void destroyAll(Iterable<T> items) {
        RuntimeException first = null;
        for (T item : items) {
            try {
                destroy(item);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** giveBack(item) takes back the item of a loan being closed; called once per loan, by Loan.close(). */
    abstract void giveBack(T item);

    /** construct() makes a new item with the pool's constructor; called without the pool's lock. */
    final T construct() {
        return Objects.requireNonNull(constructor.get(), "the pool's constructor returned null");
    }

    /** destroy(item) unmakes an item with the pool's destructor; called without the pool's lock. */
    final void destroy(T item) {
        destructor.accept(item);
    }

    static IllegalStateException closedException(Pool<?> pool) {
        return new IllegalStateException(pool + " is closed: borrow from a pool before closing it, or make a new pool");
    }

    /**
     * Loan is one item lent by a {@link Pool}, returned to it exactly once by {@link #close()}.
     *
     * <pre>{@code
     * try (Pool.Loan<Matrix> loan = pool.borrow()) {
     *     multiply(a, b, loan.get());
     * }
     * }</pre>
     *
     * <p>A loan has one owner: it may be passed to another fiber or thread, but must not be used by
     * two at once.
     *
     * @param <T> the type of the lent item
     */
    public static final class Loan<T> implements AutoCloseable {
        private final Pool<T> pool;
        private final T item;
        private final AtomicBoolean returned = new AtomicBoolean();

        Loan(Pool<T> pool, T item) {
            this.pool = pool;
            this.item = item;
        }

        /**
         * get() returns the borrowed item.
         *
         * @return the item
         * @throws IllegalStateException if the loan was already closed: the item belongs to the pool again
         */
        public T get() {
            if (returned.get()) {
                throw new IllegalStateException("this loan was closed and its item returned to " + pool
                        + ": keep the loan open while using the item, or borrow again");
            }
            return item;
        }

        /**
         * isClosed() returns whether the item has been returned to the pool.
         *
         * @return whether the loan was closed
         */
        public boolean isClosed() {
            return returned.get();
        }

        /**
         * close() returns the item to the pool. Only the first call does anything; later calls, from
         * any thread, return at once.
         */
        @Override
        public void close() {
            if (returned.compareAndSet(false, true)) {
                pool.giveBack(item);
            }
        }

        @Override
        public String toString() {
            return "Loan[" + (returned.get() ? "returned" : item) + "]";
        }
    }
}
