package org.marl4j.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.marl4j.ForEachWorkerCount;
import org.marl4j.TestSchedulers;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/** Publishers.iterate: real backpressure, errors after buffered elements, cancellation on close. */
class IterateTest {
    @ForEachWorkerCount
    void onAFiber_iteratesEveryElementInOrder(int workers) {
        TestSchedulers.withScheduler(workers, scheduler -> {
            Flux<Integer> source = Flux.range(0, 500).publishOn(Schedulers.parallel(), 8);
            List<Integer> seen = TestSchedulers.runOnFiber(scheduler, () -> {
                List<Integer> out = new ArrayList<>();
                try (FiberIterator<Integer> it = Publishers.iterate(source, 16)) {
                    while (it.hasNext()) {
                        out.add(it.next());
                    }
                }
                return out;
            });
            assertEquals(java.util.stream.IntStream.range(0, 500).boxed().toList(), seen);
        });
    }

    @ParameterizedTest(name = "prefetch {0}")
    @ValueSource(ints = {1, 2, 3, 4, 7, 64})
    void neverRequestsMoreThanPrefetchAheadOfConsumption(int prefetch) {
        AtomicLong requested = new AtomicLong();
        AtomicLong consumed = new AtomicLong();
        AtomicLong worstAhead = new AtomicLong();
        Flux<Integer> source = Flux.range(0, 300).doOnRequest(n -> {
            long ahead = requested.addAndGet(n) - consumed.get();
            worstAhead.accumulateAndGet(ahead, Math::max);
        });
        try (FiberIterator<Integer> it = Publishers.iterate(source, prefetch)) {
            int expected = 0;
            while (it.hasNext()) {
                consumed.incrementAndGet(); // taken by the next() below, which may request more
                assertEquals(expected++, it.next());
            }
            assertEquals(300, expected);
        }
        assertTrue(worstAhead.get() <= prefetch, "requested " + worstAhead.get() + " ahead with prefetch " + prefetch);
        assertTrue(worstAhead.get() >= 1);
    }

    @Test
    void bufferedElementsComeFirst_thenTheErrorItself() {
        IllegalStateException boom = new IllegalStateException("boom");
        try (FiberIterator<Integer> it = Publishers.iterate(Flux.concat(Flux.just(1, 2, 3), Flux.error(boom)), 8)) {
            assertEquals(1, it.next());
            assertEquals(2, it.next());
            assertEquals(3, it.next());
            assertSame(boom, assertThrows(IllegalStateException.class, it::hasNext));
            assertSame(boom, assertThrows(IllegalStateException.class, it::next), "the error is thrown again");
        }
    }

    @Test
    void closeOrLeavingTheLoopEarly_cancelsTheUpstream() {
        AtomicBoolean cancelled = new AtomicBoolean();
        Flux<Long> endless = Flux.interval(Duration.ofMillis(1)).onBackpressureDrop().doOnCancel(() -> cancelled.set(true));
        try (FiberIterator<Long> it = Publishers.iterate(endless, 4)) {
            for (int i = 0; i < 3; i++) {
                it.next();
            }
        }
        assertTrue(cancelled.get(), "close() did not cancel the subscription");
    }

    @Test
    void afterClose_thereIsNoNextElement() {
        FiberIterator<Integer> it = Publishers.iterate(Flux.range(0, 10), 4);
        assertEquals(0, it.next());
        it.close();
        it.close(); // idempotent
        assertFalse(it.hasNext());
        assertThrows(NoSuchElementException.class, it::next);
    }

    @Test
    void endOfStream_nextThrowsNoSuchElement() {
        try (FiberIterator<Integer> it = Publishers.iterate(Flux.just(1), 1)) {
            assertEquals(1, it.next());
            assertFalse(it.hasNext());
            assertThrows(NoSuchElementException.class, it::next);
        }
    }

    @ParameterizedTest(name = "prefetch {0}")
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void prefetchBelowOne_isRejected(int prefetch) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Publishers.iterate(Flux.just(1), prefetch));
        assertTrue(e.getMessage().contains("prefetch"), e.getMessage());
        assertThrows(NullPointerException.class, () -> Publishers.iterate(null, 1));
    }
}
