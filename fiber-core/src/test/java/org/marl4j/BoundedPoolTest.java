package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TaskErrors.LONG;
import static org.marl4j.TaskErrors.join;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** BoundedPool behaviour, ported from marl's {@code pool_test.cpp} and extended to waiting, timeouts and plain threads. */
class BoundedPoolTest {
    private static final Duration SHORT_TIMEOUT = Duration.ofMillis(50);

    /** Counts constructions and destructions, like marl's CtorDtorCounter. */
    static final class Counted {
        static final class Counters {
            final AtomicInteger constructed = new AtomicInteger();
            final AtomicInteger destroyed = new AtomicInteger();
        }

        int state;
    }

    private static BoundedPool<Counted> countedPool(int capacity, Pool.Policy policy, Counted.Counters c) {
        return new BoundedPool<>(capacity, policy, () -> {
            c.constructed.incrementAndGet();
            return new Counted();
        }, item -> c.destroyed.incrementAndGet());
    }

    // ------------------------------------------------------------------ marl's pool_test.cpp

    @ForEachWorkerCount
    void constructAndClose(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            BoundedPool<Integer> pool = new BoundedPool<>(10, () -> 0);
            assertEquals(10, pool.capacity());
            assertEquals(10, pool.available());
            pool.close();
        });
    }

    @ForEachWorkerCount
    void borrow_upToCapacityWithoutWaiting(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            BoundedPool<Integer> pool = new BoundedPool<>(100, () -> 0);
            List<Pool.Loan<Integer>> loans = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                loans.add(pool.borrow());
            }
            assertEquals(0, pool.available());
            assertNull(pool.tryBorrow(), "a full pool must not lend a 101st item");
            loans.forEach(Pool.Loan::close);
            assertEquals(100, pool.available());
        });
    }

    @ForEachWorkerCount
    void concurrentBorrow_neverLendsMoreThanCapacity(int workers) {
        int capacity = 10;
        int tasks = 10_000;
        int threads = 4;
        int perThread = 500;
        AtomicInteger outstanding = new AtomicInteger();
        AtomicInteger maxOutstanding = new AtomicInteger();
        AtomicInteger borrowed = new AtomicInteger();
        BoundedPool<Integer> pool = new BoundedPool<>(capacity, () -> 0);
        Runnable useOnce = () -> {
            try (Pool.Loan<Integer> loan = pool.borrow()) {
                assertNotNull(loan.get());
                int now = outstanding.incrementAndGet();
                maxOutstanding.accumulateAndGet(now, Math::max);
                if (Fiber.current() != null && ThreadLocalRandom.current().nextInt(4) == 0) {
                    Fiber.yield(); // hold the item across a suspend so other fibers queue up
                }
                outstanding.decrementAndGet();
                borrowed.incrementAndGet();
            }
        };
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            List<Thread> plain = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                plain.add(Thread.ofPlatform().name("pool-borrower-" + t).start(() -> {
                    for (int i = 0; i < perThread; i++) {
                        useOnce.run();
                    }
                }));
            }
            WaitGroup done = new WaitGroup(tasks);
            for (int i = 0; i < tasks; i++) {
                Marl.schedule(() -> {
                    try {
                        useOnce.run();
                    } finally {
                        done.done();
                    }
                });
            }
            done.await();
            plain.forEach(TaskErrors::join);
        });
        assertEquals(tasks + threads * perThread, borrowed.get());
        assertTrue(maxOutstanding.get() <= capacity, "lent " + maxOutstanding.get() + " items at once from a pool of " + capacity);
        assertEquals(capacity, pool.available(), "every item must be back");
    }

    @ForEachWorkerCount
    void policyReconstruct_constructsOnBorrowAndDestroysOnReturn(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Counted.Counters c = new Counted.Counters();
            BoundedPool<Counted> pool = countedPool(10, Pool.Policy.RECONSTRUCT, c);
            assertEquals(0, c.constructed.get());
            assertEquals(0, c.destroyed.get());
            try (Pool.Loan<Counted> loan = pool.borrow()) {
                assertEquals(1, c.constructed.get());
                assertEquals(0, c.destroyed.get());
                loan.get().state = 42;
            }
            assertEquals(1, c.constructed.get());
            assertEquals(1, c.destroyed.get());
            try (Pool.Loan<Counted> loan = pool.borrow()) {
                assertEquals(2, c.constructed.get());
                assertEquals(1, c.destroyed.get());
                assertEquals(0, loan.get().state, "RECONSTRUCT must not carry state between loans");
            }
            assertEquals(2, c.constructed.get());
            assertEquals(2, c.destroyed.get());
            pool.close();
            assertEquals(2, c.destroyed.get());
        });
    }

    @ForEachWorkerCount
    void policyPreserve_constructsOnceAndKeepsState(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Counted.Counters c = new Counted.Counters();
            BoundedPool<Counted> pool = countedPool(1, Pool.Policy.PRESERVE, c);
            int constructed = c.constructed.get();
            assertEquals(1, constructed);
            try (Pool.Loan<Counted> loan = pool.borrow()) {
                assertEquals(0, c.destroyed.get());
                loan.get().state = 42;
            }
            assertEquals(constructed, c.constructed.get());
            assertEquals(0, c.destroyed.get());
            try (Pool.Loan<Counted> loan = pool.borrow()) {
                assertEquals(constructed, c.constructed.get());
                assertEquals(42, loan.get().state, "PRESERVE must keep an item's state between loans");
            }
            assertEquals(0, c.destroyed.get());
            pool.close();
            assertEquals(c.constructed.get(), c.destroyed.get(), "close() must destroy every preserved item");
        });
    }

    // ------------------------------------------------------------------ waiting suspends only the fiber

    /**
     * With one thread running every task, a borrower waiting for the only item must suspend its
     * fiber, not the thread: otherwise the task that makes the holder give the item back never runs.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1})
    void fiberWaitingToBorrow_doesNotBlockItsWorkerThread(int workers) {
        BoundedPool<String> pool = new BoundedPool<>(1, () -> "item");
        AtomicInteger waitingWhenSignalled = new AtomicInteger(-1);
        AtomicReference<String> secondGot = new AtomicReference<>();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Event holding = new Event(Event.Mode.MANUAL);
            Event giveBack = new Event(Event.Mode.MANUAL);
            WaitGroup done = new WaitGroup(3);
            Marl.schedule(() -> {
                try (Pool.Loan<String> loan = pool.borrow()) {
                    holding.signal();
                    giveBack.await();
                }
                done.done();
            });
            holding.await();
            Marl.schedule(() -> {
                try (Pool.Loan<String> loan = pool.borrow()) { // suspends: the item is out
                    secondGot.set(loan.get());
                }
                done.done();
            });
            Marl.schedule(() -> { // queued behind the borrower on the same single thread
                assertNull(pool.tryBorrow());
                waitingWhenSignalled.set(pool.waitingBorrowers());
                giveBack.signal();
                done.done();
            });
            assertTrue(done.await(LONG), "the borrower blocked its worker thread: the releasing task never ran");
        });
        assertEquals(1, waitingWhenSignalled.get(), "the second borrower should have been suspended in borrow()");
        assertEquals("item", secondGot.get());
        assertEquals(1, pool.available());
    }

    @Test
    void preserve_whoseConstructorThrowsPartWay_destroysTheItemsItMade_andThrows() {
        AtomicInteger made = new AtomicInteger();
        List<Integer> destroyed = new ArrayList<>();
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> new BoundedPool<Integer>(5,
                Pool.Policy.PRESERVE, () -> {
                    if (made.get() == 3) {
                        throw new IllegalStateException("no fourth item");
                    }
                    return made.incrementAndGet();
                }, destroyed::add));
        assertEquals("no fourth item", thrown.getMessage());
        assertEquals(List.of(1, 2, 3), destroyed.stream().sorted().toList());
    }

    @Test
    void plainThreadWaitingToBorrow_getsTheItemWhenItIsReturned() {
        BoundedPool<String> pool = new BoundedPool<>(1, () -> "item");
        Pool.Loan<String> held = pool.borrow();
        AtomicReference<String> got = new AtomicReference<>();
        Thread borrower = Thread.ofPlatform().start(() -> {
            try (Pool.Loan<String> loan = pool.borrow()) {
                got.set(loan.get());
            }
        });
        await().atMost(LONG).until(() -> pool.waitingBorrowers() == 1);
        assertNull(got.get());
        held.close();
        join(borrower);
        assertEquals("item", got.get());
    }

    // ------------------------------------------------------------------ timeouts and tryBorrow

    @ForEachWorkerCount
    void borrowWithTimeout_onAFiber_returnsNullWhenNoItemComesBack(int workers) {
        BoundedPool<String> pool = new BoundedPool<>(1, () -> "item");
        AtomicReference<Pool.Loan<String>> result = new AtomicReference<>();
        AtomicLong waitedNanos = new AtomicLong();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            try (Pool.Loan<String> held = pool.borrow()) {
                WaitGroup done = new WaitGroup(1);
                Marl.schedule(() -> {
                    long start = System.nanoTime();
                    result.set(pool.borrow(SHORT_TIMEOUT));
                    waitedNanos.set(System.nanoTime() - start);
                    done.done();
                });
                assertTrue(done.await(LONG));
            }
        });
        assertNull(result.get());
        assertTrue(waitedNanos.get() >= SHORT_TIMEOUT.toNanos(), "gave up after " + waitedNanos.get() + " ns");
        assertEquals(0, pool.waitingBorrowers(), "a timed-out borrower must leave the queue");
        assertEquals(1, pool.available());
    }

    @Test
    void borrowWithTimeout_onAPlainThread_returnsNullWhenNoItemComesBack() {
        BoundedPool<String> pool = new BoundedPool<>(1, () -> "item");
        try (Pool.Loan<String> held = pool.borrow()) {
            long start = System.nanoTime();
            assertNull(pool.borrow(SHORT_TIMEOUT));
            assertTrue(System.nanoTime() - start >= SHORT_TIMEOUT.toNanos());
            assertNull(pool.borrow(Duration.ZERO));
            assertNull(pool.borrow(Duration.ofSeconds(-1)));
        }
        assertEquals(0, pool.waitingBorrowers());
    }

    @ForEachWorkerCount
    void borrowWithTimeout_getsAnItemReturnedInTime(int workers) {
        BoundedPool<String> pool = new BoundedPool<>(1, () -> "item");
        AtomicReference<String> got = new AtomicReference<>();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Pool.Loan<String> held = pool.borrow();
            WaitGroup done = new WaitGroup(1);
            Event waiting = new Event(Event.Mode.MANUAL);
            Marl.schedule(() -> {
                waiting.signal();
                try (Pool.Loan<String> loan = pool.borrow(LONG)) {
                    got.set(loan == null ? null : loan.get());
                }
                done.done();
            });
            waiting.await();
            held.close();
            assertTrue(done.await(LONG));
        });
        assertEquals("item", got.get());
    }

    @Test
    void tryBorrow_neverWaits() {
        BoundedPool<String> pool = new BoundedPool<>(2, () -> "item");
        Pool.Loan<String> a = pool.tryBorrow();
        Pool.Loan<String> b = pool.tryBorrow();
        assertNotNull(a);
        assertNotNull(b);
        assertNull(pool.tryBorrow());
        assertEquals(0, pool.waitingBorrowers());
        a.close();
        try (Pool.Loan<String> c = pool.tryBorrow()) {
            assertNotNull(c);
        }
        b.close();
        assertEquals(2, pool.available());
    }

    @ForEachWorkerCount
    void borrowMany_handsEachLoanToTheConsumer(int workers) {
        BoundedPool<Integer> pool = new BoundedPool<>(3, () -> 7);
        AtomicInteger handed = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup closed = new WaitGroup(10);
            // 10 loans from a pool of 3: each is closed by a task, so the later borrows wait for them.
            pool.borrow(10, loan -> {
                handed.incrementAndGet();
                assertEquals(7, loan.get());
                Marl.schedule(() -> {
                    loan.close();
                    closed.done();
                });
            });
            assertTrue(closed.await(LONG));
        });
        assertEquals(10, handed.get());
        assertEquals(3, pool.available());
    }

    // ------------------------------------------------------------------ close, failures, misuse

    @ForEachWorkerCount
    void close_wakesWaitingBorrowersWithIllegalStateException(int workers) {
        BoundedPool<String> pool = new BoundedPool<>(1, () -> "item");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Pool.Loan<String> held = pool.borrow();
            WaitGroup done = new WaitGroup(1);
            Event started = new Event(Event.Mode.MANUAL);
            Marl.schedule(() -> {
                started.signal();
                try {
                    pool.borrow();
                } catch (Throwable t) {
                    thrown.set(t);
                }
                done.done();
            });
            // With 0 workers the task runs only while this thread waits on a marl primitive: by the
            // time started.await() returns here, the borrower has suspended in the pool's queue.
            started.await();
            await().atMost(LONG).until(() -> pool.waitingBorrowers() == 1);
            pool.close();
            assertTrue(done.await(LONG));
            held.close(); // a loan out at close() stays valid and can still be returned
        });
        assertTrue(thrown.get() instanceof IllegalStateException, "got " + thrown.get());
        assertTrue(thrown.get().getMessage().contains("closed"));
        assertThrows(IllegalStateException.class, pool::borrow);
        assertThrows(IllegalStateException.class, pool::tryBorrow);
    }

    @Test
    void close_destroysIdleItemsNowAndLentItemsWhenReturned() {
        Counted.Counters c = new Counted.Counters();
        BoundedPool<Counted> pool = countedPool(3, Pool.Policy.PRESERVE, c);
        Pool.Loan<Counted> lent = pool.borrow();
        pool.close();
        assertEquals(2, c.destroyed.get());
        pool.close(); // twice: nothing more
        assertEquals(2, c.destroyed.get());
        lent.get().state = 1; // still valid
        lent.close();
        assertEquals(3, c.destroyed.get());
    }

    @Test
    void failingConstructor_givesThePermitBack() {
        AtomicBoolean fail = new AtomicBoolean(true);
        BoundedPool<String> pool = new BoundedPool<>(1, () -> {
            if (fail.get()) {
                throw new IllegalArgumentException("boom");
            }
            return "item";
        });
        assertThrows(IllegalArgumentException.class, pool::borrow);
        assertEquals(1, pool.available());
        fail.set(false);
        try (Pool.Loan<String> loan = pool.tryBorrow()) {
            assertEquals("item", loan.get());
        }
    }

    @Test
    void failingDestructor_stillGivesThePermitBack() {
        BoundedPool<String> pool = new BoundedPool<>(1, Pool.Policy.RECONSTRUCT, () -> "item", item -> {
            throw new IllegalStateException("destructor failed");
        });
        Pool.Loan<String> loan = pool.borrow();
        assertThrows(IllegalStateException.class, loan::close);
        assertEquals(1, pool.available());
    }

    @Test
    void constructorArguments_areChecked() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new BoundedPool<>(0, () -> 1));
        assertTrue(e.getMessage().contains("0"));
        assertThrows(NullPointerException.class, () -> new BoundedPool<>(1, null));
        assertThrows(NullPointerException.class, () -> new BoundedPool<>(1, null, () -> 1));
        assertThrows(NullPointerException.class, () -> new BoundedPool<Integer>(1, () -> null).borrow());
        BoundedPool<Integer> pool = new BoundedPool<>(1, () -> 1);
        assertThrows(IllegalArgumentException.class, () -> pool.borrow(-1, loan -> {}));
        assertThrows(NullPointerException.class, () -> pool.borrow(null));
        assertSame(Pool.Policy.RECONSTRUCT, pool.policy());
        assertFalse(pool.toString().isEmpty());
    }
}
