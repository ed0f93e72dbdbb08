package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The {@link Pool.Loan} contract, checked on every pool kind and policy. */
class PoolTest {

    /** A pool under test, built from a constructor and a destructor. */
    interface PoolFactory {
        Pool<Object> create(Supplier<Object> constructor, Consumer<Object> destructor);
    }

    static Stream<Arguments> pools() {
        List<Arguments> all = new ArrayList<>();
        for (Pool.Policy policy : Pool.Policy.values()) {
            all.add(Arguments.of("BoundedPool " + policy,
                    (PoolFactory) (c, d) -> new BoundedPool<>(4, policy, c, d)));
            all.add(Arguments.of("UnboundedPool " + policy,
                    (PoolFactory) (c, d) -> new UnboundedPool<>(policy, c, d)));
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void closingALoanTwice_returnsTheItemOnce(String name, PoolFactory factory) {
        AtomicInteger destroyed = new AtomicInteger();
        List<Object> returned = new ArrayList<>();
        Pool<Object> pool = factory.create(Object::new, item -> {
            destroyed.incrementAndGet();
            returned.add(item);
        });
        Pool.Loan<Object> loan = pool.borrow();
        Object item = loan.get();
        assertFalse(loan.isClosed());
        loan.close();
        loan.close();
        assertTrue(loan.isClosed());
        if (pool.policy() == Pool.Policy.RECONSTRUCT) {
            assertEquals(1, destroyed.get(), "the item was returned more than once");
        }
        pool.close(); // PRESERVE: destroys the idle items, among them ours exactly once
        assertEquals(1, returned.stream().filter(i -> i == item).count());
        if (pool instanceof BoundedPool<Object> bounded) {
            int expected = pool.policy() == Pool.Policy.PRESERVE ? bounded.capacity() : 1;
            assertEquals(expected, destroyed.get(), "a double close() must not add a phantom item");
            assertEquals(bounded.capacity(), bounded.available(), "a double close() must not add a phantom permit");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void getAfterClose_throwsIllegalStateException(String name, PoolFactory factory) {
        Pool<Object> pool = factory.create(Object::new, item -> {});
        Pool.Loan<Object> loan = pool.borrow();
        loan.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, loan::get);
        assertTrue(e.getMessage().contains("borrow again"), e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void racingCloses_returnTheItemExactlyOnce(String name, PoolFactory factory) throws Exception {
        AtomicInteger destroyed = new AtomicInteger();
        Pool<Object> pool = factory.create(Object::new, item -> destroyed.incrementAndGet());
        int rounds = 200;
        int threads = 4;
        for (int round = 0; round < rounds; round++) {
            Pool.Loan<Object> loan = pool.borrow();
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Thread> closers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                closers.add(Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                    loan.close();
                }));
            }
            closers.forEach(TaskErrors::join);
        }
        if (pool.policy() == Pool.Policy.RECONSTRUCT) {
            assertEquals(rounds, destroyed.get());
        }
        if (pool instanceof BoundedPool<Object> bounded) {
            assertEquals(bounded.capacity(), bounded.available());
        }
        if (pool instanceof UnboundedPool<Object> unbounded && pool.policy() == Pool.Policy.PRESERVE) {
            assertEquals(1, unbounded.size(), "one item, returned once per round, is all the pool needs");
        }
    }
}
