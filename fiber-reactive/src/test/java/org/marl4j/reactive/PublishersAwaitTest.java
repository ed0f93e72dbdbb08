package org.marl4j.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.marl4j.ForEachWorkerCount;
import org.marl4j.TestSchedulers;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** Publishers.await*: kotlinx.coroutines' semantics, on fibers (every worker count) and off them. */
class PublishersAwaitTest {
    @ForEachWorkerCount
    void awaitOnAFiber_waitsForElementsThatArriveLater(int workers) {
        TestSchedulers.withScheduler(workers, scheduler -> {
            Flux<Integer> later = Flux.range(1, 3).delayElements(Duration.ofMillis(2), Schedulers.parallel());
            List<Object> results = TestSchedulers.runOnFiber(scheduler, () -> {
                List<Object> r = new ArrayList<>();
                r.add(Publishers.awaitFirst(later));
                r.add(Publishers.awaitLast(later));
                r.add(Publishers.awaitList(later));
                r.add(Publishers.awaitSingle(later.take(1)));
                r.add(Publishers.awaitSingleOrNull(Mono.empty()));
                r.add(Publishers.awaitFirstOrNull(Flux.empty()));
                return r;
            });
            assertEquals(java.util.Arrays.asList(1, 3, List.of(1, 2, 3), 1, null, null), results);
        });
    }

    @Test
    void offAFiber_theCallsBlockTheThread() {
        Flux<Integer> later = Flux.range(1, 3).delayElements(Duration.ofMillis(2));
        assertEquals(1, Publishers.awaitFirst(later));
        assertEquals(3, Publishers.awaitLast(later));
        assertEquals(List.of(1, 2, 3), Publishers.awaitList(later));
        assertEquals(7, Publishers.awaitSingle(Mono.just(7).delayElement(Duration.ofMillis(2))));
    }

    @Test
    void empty_throwsNoSuchElement_exceptForTheOrNullForms() {
        assertThrows(NoSuchElementException.class, () -> Publishers.awaitFirst(Flux.empty()));
        assertThrows(NoSuchElementException.class, () -> Publishers.awaitSingle(Flux.empty()));
        assertThrows(NoSuchElementException.class, () -> Publishers.awaitLast(Flux.empty()));
        assertNull(Publishers.awaitFirstOrNull(Flux.empty()));
        assertNull(Publishers.awaitSingleOrNull(Flux.empty()));
        assertEquals(List.of(), Publishers.awaitList(Flux.empty()));
    }

    @Test
    void awaitSingle_ofTwoOrMore_throwsIllegalArgument_andCancelsTheUpstream() {
        for (boolean orNull : new boolean[] {false, true}) {
            AtomicBoolean cancelled = new AtomicBoolean();
            AtomicLong emitted = new AtomicLong();
            Flux<Long> endless = Flux.interval(Duration.ofMillis(1)).doOnNext(x -> emitted.incrementAndGet())
                    .doOnCancel(() -> cancelled.set(true));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> { if (orNull) Publishers.awaitSingleOrNull(endless); else Publishers.awaitSingle(endless); });
            assertTrue(e.getMessage().contains("more than one"), e.getMessage());
            assertTrue(cancelled.get(), "the upstream was not cancelled");
            assertEquals(2, emitted.get(), "awaitSingle asks for no more than it needs to see a second element");
        }
    }

    @Test
    void awaitFirst_cancelsAfterTheFirstElement_andRequestsOnlyOne() {
        AtomicBoolean cancelled = new AtomicBoolean();
        List<Long> requests = new ArrayList<>();
        Flux<Integer> source = Flux.range(1, 1_000).doOnRequest(requests::add).doOnCancel(() -> cancelled.set(true));
        assertEquals(1, Publishers.awaitFirst(source));
        assertTrue(cancelled.get());
        assertEquals(List.of(1L), requests);
        AtomicBoolean cancelled2 = new AtomicBoolean();
        assertEquals(1, Publishers.awaitFirstOrNull(Flux.range(1, 5).doOnCancel(() -> cancelled2.set(true))));
        assertTrue(cancelled2.get());
    }

    @Test
    void theUpstreamError_arrivesAsItself_evenAChecked_andAfterElements() {
        IllegalStateException runtime = new IllegalStateException("runtime");
        Flux<Integer> failing = Flux.concat(Flux.just(1, 2), Flux.error(runtime));
        assertSame(runtime, assertThrows(IllegalStateException.class, () -> Publishers.awaitList(failing)));
        assertSame(runtime, assertThrows(IllegalStateException.class, () -> Publishers.awaitLast(failing)));
        assertSame(runtime, assertThrows(IllegalStateException.class, () -> Publishers.awaitFirst(Flux.error(runtime))));
        IOException checked = new IOException("checked");
        Exception thrown = assertThrows(Exception.class, () -> Publishers.awaitSingle(Mono.error(checked)));
        assertSame(checked, thrown);
        assertEquals(1, Publishers.awaitFirst(failing), "awaitFirst never sees an error after the first element");
    }

    @Test
    void nullPublisher_isRejected() {
        assertThrows(NullPointerException.class, () -> Publishers.awaitFirst(null));
        assertThrows(NullPointerException.class, () -> Publishers.awaitList(null));
    }
}
