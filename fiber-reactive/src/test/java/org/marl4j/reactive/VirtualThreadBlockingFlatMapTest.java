package org.marl4j.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.marl4j.FiberEngine;
import org.marl4j.TestSchedulers;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A blocking call in {@code Mono.fromCallable(...).subscribeOn(marlScheduler)} inside a
 * {@code flatMap}, the usual Reactor recipe for wrapping blocking code, on a {@link MarlScheduler}
 * with ONE worker thread: on {@link FiberEngine#VIRTUAL_THREADS} the calls suspend only their
 * fibers, so all of them are inside their {@code Thread.sleep} before any returns; on
 * {@link FiberEngine#CONTINUATIONS} the one thread takes them one at a time.
 */
class VirtualThreadBlockingFlatMapTest {
    private static final int CALLS = 20;
    private static final Duration SLEEP = Duration.ofMillis(50);

    /** @return how many calls had entered their sleep when the first one came out, for each of the calls in order of return */
    private static List<Integer> enteredWhenEachReturned(FiberEngine engine) {
        MarlScheduler scheduler = MarlScheduler.create(TestSchedulers.config(1).setFiberEngine(engine));
        try {
            AtomicInteger entered = new AtomicInteger();
            return Flux.range(0, CALLS)
                    .flatMap(i -> Mono.fromCallable(() -> {
                        entered.incrementAndGet();
                        Thread.sleep(SLEEP); // the blocking call
                        return entered.get();
                    }).subscribeOn(scheduler), CALLS)
                    .collectList()
                    .block(TestSchedulers.PATIENCE);
        } finally {
            scheduler.dispose();
        }
    }

    @Test
    void virtualThreads_blockingCallsInFlatMapOnOneWorker_allRunAtOnce() {
        List<Integer> seen = enteredWhenEachReturned(FiberEngine.VIRTUAL_THREADS);
        assertEquals(CALLS, seen.size());
        assertEquals(CALLS, seen.get(0), () -> "calls inside Thread.sleep when the first returned: " + seen);
    }

    @Test
    void continuations_blockingCallsInFlatMapOnOneWorker_runOneAtATime() {
        List<Integer> seen = enteredWhenEachReturned(FiberEngine.CONTINUATIONS);
        assertEquals(CALLS, seen.size());
        assertEquals(1, seen.get(0), () -> "calls inside Thread.sleep when the first returned: " + seen);
    }
}
