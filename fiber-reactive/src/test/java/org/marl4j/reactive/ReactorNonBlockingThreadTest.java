package org.marl4j.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.marl4j.TestSchedulers;
import org.marl4j.futures.Futures;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * Off a fiber, on a thread Reactor marks non-blocking, await and iterate (Publishers' and Futures')
 * refuse to block, as {@code Mono.block()} does there, but only when they would have to wait.
 */
class ReactorNonBlockingThreadTest {
    private static final String THREAD = "marl4j-nonblocking-test";
    private Scheduler parallel;

    @BeforeEach
    void startParallel() {
        parallel = Schedulers.newParallel(THREAD, 1);
    }

    @AfterEach
    void stopParallel() {
        parallel.dispose();
    }

    /** onParallel(body) runs body on the non-blocking thread and returns a Mono of its result. */
    private <T> Mono<T> onParallel(Callable<T> body) {
        return Mono.fromCallable(body).subscribeOn(parallel);
    }

    private static void expectRefusal(Mono<?> onParallel, AtomicBoolean upstreamCancelled) {
        StepVerifier.create(onParallel)
                .expectErrorSatisfies(e -> {
                    assertTrue(e instanceof IllegalStateException, "expected IllegalStateException, got " + e);
                    assertTrue(e.getMessage().contains(THREAD), "names the thread: " + e.getMessage());
                    assertTrue(e.getMessage().contains("MarlScheduler"), "says where to run it: " + e.getMessage());
                })
                .verify(TestSchedulers.PATIENCE);
        assertTrue(upstreamCancelled.get(), "the refused wait cancels its subscription");
    }

    @Test
    void monoBlock_isRefusedThere_whichIsWhatWeMatch() {
        StepVerifier.create(onParallel(() -> Mono.never().block()))
                .expectError(IllegalStateException.class)
                .verify(TestSchedulers.PATIENCE);
    }

    @Test
    void await_thatWouldWait_throwsIllegalState_andCancelsTheSubscription() {
        AtomicBoolean cancelled = new AtomicBoolean();
        expectRefusal(onParallel(() -> Publishers.awaitFirst(Mono.never().doOnCancel(() -> cancelled.set(true)))),
                cancelled);
        AtomicBoolean listCancelled = new AtomicBoolean();
        expectRefusal(onParallel(() -> Publishers.awaitList(Flux.never().doOnCancel(() -> listCancelled.set(true)))),
                listCancelled);
    }

    @Test
    void await_ofAResultAlreadyThere_returnsIt_asMonoBlockDoes() {
        StepVerifier.create(onParallel(() -> Publishers.awaitSingle(Mono.just(7))))
                .expectNext(7)
                .expectComplete()
                .verify(TestSchedulers.PATIENCE);
        StepVerifier.create(onParallel(() -> Publishers.awaitList(Flux.range(1, 3))))
                .expectNext(List.of(1, 2, 3))
                .expectComplete()
                .verify(TestSchedulers.PATIENCE);
    }

    @Test
    void iterate_thatWouldWait_throwsIllegalState_andCancelsTheSubscription() {
        AtomicBoolean cancelled = new AtomicBoolean();
        expectRefusal(onParallel(() -> {
            try (FiberIterator<Object> it = Publishers.iterate(Flux.never().doOnCancel(() -> cancelled.set(true)), 4)) {
                return it.hasNext();
            }
        }), cancelled);
        StepVerifier.create(onParallel(() -> {
            try (FiberIterator<Integer> it = Publishers.iterate(Flux.range(1, 2), 4)) {
                int sum = 0;
                while (it.hasNext()) {
                    sum += it.next();
                }
                return sum; // every element was there already: no wait, no refusal
            }
        })).expectNext(3).expectComplete().verify(TestSchedulers.PATIENCE);
    }

    @Test
    void futuresAwaits_thatWouldWait_throwIllegalState_namingTheThreadAndTheFix() {
        CompletableFuture<Integer> never = new CompletableFuture<>();
        CompletionStage<Integer> minimal = never.minimalCompletionStage();
        List<Callable<?>> awaits = List.of(
                () -> Futures.await(never),
                () -> Futures.await(minimal),
                () -> Futures.await(never, Duration.ofSeconds(30)),
                () -> Futures.awaitAll(CompletableFuture.completedFuture(1), never),
                () -> Futures.awaitAny(never, new CompletableFuture<Integer>()));
        for (Callable<?> await : awaits) {
            StepVerifier.create(onParallel(await))
                    .expectErrorSatisfies(e -> {
                        assertTrue(e instanceof IllegalStateException, "expected IllegalStateException, got " + e);
                        assertTrue(e.getMessage().startsWith("Futures.await"), "names the call: " + e.getMessage());
                        assertTrue(e.getMessage().contains(THREAD), "names the thread: " + e.getMessage());
                        assertTrue(e.getMessage().contains("MarlScheduler"), "says where to run it: " + e.getMessage());
                    })
                    .verify(TestSchedulers.PATIENCE);
        }
    }

    @Test
    void futuresAwaits_ofResultsAlreadyThere_returnThem_orTimeOutAtOnce() {
        CompletableFuture<Integer> done = CompletableFuture.completedFuture(4);
        StepVerifier.create(onParallel(() -> Futures.await(done) + Futures.await(done.minimalCompletionStage())
                        + Futures.awaitAll(done, done).size() + Futures.awaitAny(new CompletableFuture<Integer>(), done)))
                .expectNext(14)
                .expectComplete()
                .verify(TestSchedulers.PATIENCE);
        StepVerifier.create(onParallel(() -> Futures.await(new CompletableFuture<>(), Duration.ZERO)))
                .expectError(TimeoutException.class)
                .verify(TestSchedulers.PATIENCE);
    }

    @Test
    void futuresAwait_onAMarlSchedulerFiber_suspendsTheFiber() {
        MarlScheduler marl = MarlScheduler.create(TestSchedulers.config(1));
        try {
            CompletableFuture<Integer> later = new CompletableFuture<>();
            parallel.schedule(() -> later.complete(6), 5, TimeUnit.MILLISECONDS);
            StepVerifier.create(Mono.fromCallable(() -> Futures.await(later)).subscribeOn(marl))
                    .expectNext(6)
                    .expectComplete()
                    .verify(TestSchedulers.PATIENCE);
        } finally {
            marl.dispose();
        }
    }

    @Test
    void await_onAMarlSchedulerFiber_suspendsTheFiber() {
        MarlScheduler marl = MarlScheduler.create(TestSchedulers.config(1));
        try {
            Mono<Integer> later = Mono.just(5).delayElement(java.time.Duration.ofMillis(5), parallel);
            StepVerifier.create(Mono.fromCallable(() -> Publishers.awaitFirst(later)).subscribeOn(marl))
                    .expectNext(5)
                    .expectComplete()
                    .verify(TestSchedulers.PATIENCE);
        } finally {
            marl.dispose();
        }
    }
}
