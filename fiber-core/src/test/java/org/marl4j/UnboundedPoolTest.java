package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TaskErrors.LONG;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.marl4j.BoundedPoolTest.Counted;

/** UnboundedPool behaviour, ported from marl's {@code pool_test.cpp}. */
class UnboundedPoolTest {

    private static UnboundedPool<Counted> countedPool(Pool.Policy policy, Counted.Counters c) {
        return new UnboundedPool<>(policy, () -> {
            c.constructed.incrementAndGet();
            return new Counted();
        }, item -> c.destroyed.incrementAndGet());
    }

    @ForEachWorkerCount
    void borrow_growsWithoutWaiting(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            UnboundedPool<Object> pool = new UnboundedPool<>(Pool.Policy.PRESERVE, Object::new);
            List<Pool.Loan<Object>> loans = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                loans.add(pool.borrow()); // none returned: each borrow must grow the pool
            }
            assertEquals(100, pool.size());
            assertEquals(100, loans.stream().map(Pool.Loan::get).distinct().count(), "an item was lent twice");
            loans.forEach(Pool.Loan::close);
            try (Pool.Loan<Object> again = pool.borrow()) {
                assertNotNull(again.get());
            }
            assertEquals(100, pool.size(), "a returned item must be reused before the pool grows");
        });
    }

    @ForEachWorkerCount
    void concurrentBorrow_fromManyTasks(int workers) {
        int tasks = 10_000;
        AtomicInteger outstanding = new AtomicInteger();
        AtomicInteger maxOutstanding = new AtomicInteger();
        UnboundedPool<int[]> pool = new UnboundedPool<>(Pool.Policy.PRESERVE, () -> new int[1]);
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup done = new WaitGroup(tasks);
            for (int i = 0; i < tasks; i++) {
                Marl.schedule(() -> {
                    // Counted from before borrow() to after close(): an upper bound on the items out.
                    maxOutstanding.accumulateAndGet(outstanding.incrementAndGet(), Math::max);
                    try (Pool.Loan<int[]> loan = pool.borrow()) {
                        // Exclusive use: nobody else may touch this item while we hold it.
                        loan.get()[0]++;
                        Fiber.yield();
                        assertEquals(1, loan.get()[0], "an item was lent to two borrowers at once");
                        loan.get()[0]--;
                    }
                    outstanding.decrementAndGet();
                    done.done();
                });
            }
            assertTrue(done.await(LONG));
        });
        assertTrue(pool.size() <= maxOutstanding.get(), "grew to " + pool.size() + " with at most "
                + maxOutstanding.get() + " items out at once");
    }

    @Test
    void policyReconstruct_constructsOnBorrowAndDestroysOnReturn() {
        Counted.Counters c = new Counted.Counters();
        UnboundedPool<Counted> pool = countedPool(Pool.Policy.RECONSTRUCT, c);
        assertEquals(0, c.constructed.get());
        Counted first;
        try (Pool.Loan<Counted> loan = pool.borrow()) {
            assertEquals(1, c.constructed.get());
            assertEquals(0, c.destroyed.get());
            first = loan.get();
            first.state = 42;
        }
        assertEquals(1, c.destroyed.get());
        try (Pool.Loan<Counted> loan = pool.borrow()) {
            assertEquals(2, c.constructed.get());
            assertEquals(1, c.destroyed.get());
            assertNotSame(first, loan.get());
            assertEquals(0, loan.get().state);
        }
        assertEquals(2, c.destroyed.get());
        assertEquals(0, pool.size());
    }

    @Test
    void policyPreserve_constructsOnceAndKeepsState() {
        Counted.Counters c = new Counted.Counters();
        UnboundedPool<Counted> pool = countedPool(Pool.Policy.PRESERVE, c);
        Counted first;
        try (Pool.Loan<Counted> loan = pool.borrow()) {
            assertNotEquals(0, c.constructed.get());
            assertEquals(0, c.destroyed.get());
            first = loan.get();
            first.state = 42;
        }
        int constructed = c.constructed.get();
        assertEquals(0, c.destroyed.get());
        try (Pool.Loan<Counted> loan = pool.borrow()) {
            assertEquals(constructed, c.constructed.get());
            assertSame(first, loan.get());
            assertEquals(42, loan.get().state);
        }
        assertEquals(0, c.destroyed.get());
        pool.close();
        assertEquals(c.constructed.get(), c.destroyed.get());
    }

    @Test
    void tryBorrowAndTimedBorrow_neverReturnNull() {
        UnboundedPool<Object> pool = new UnboundedPool<>(Object::new);
        List<Pool.Loan<Object>> loans = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            loans.add(pool.tryBorrow());
            loans.add(pool.borrow(Duration.ZERO));
        }
        loans.forEach(loan -> assertNotNull(loan.get()));
        assertThrows(NullPointerException.class, () -> pool.borrow((Duration) null));
        AtomicInteger handed = new AtomicInteger();
        pool.borrow(5, loan -> {
            handed.incrementAndGet();
            loan.close();
        });
        assertEquals(5, handed.get());
    }

    @Test
    void close_rejectsBorrowsAndDestroysReturnedItems() {
        Counted.Counters c = new Counted.Counters();
        UnboundedPool<Counted> pool = countedPool(Pool.Policy.PRESERVE, c);
        Pool.Loan<Counted> a = pool.borrow();
        pool.borrow().close();
        pool.close();
        assertEquals(1, c.destroyed.get(), "the idle item is destroyed at close()");
        IllegalStateException e = assertThrows(IllegalStateException.class, pool::borrow);
        assertTrue(e.getMessage().contains("closed"));
        UnboundedPool<Object> reconstructing = new UnboundedPool<>(Object::new);
        reconstructing.close();
        assertThrows(IllegalStateException.class, reconstructing::borrow);
        a.close();
        assertEquals(2, c.destroyed.get(), "an item returned after close() is destroyed");
    }

    @Test
    void failingConstructor_doesNotCountAnItem() {
        UnboundedPool<Object> pool = new UnboundedPool<>(Pool.Policy.PRESERVE, () -> {
            throw new IllegalArgumentException("boom");
        });
        assertThrows(IllegalArgumentException.class, pool::borrow);
        assertEquals(0, pool.size());
    }
}
