package org.marl4j.futures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.marl4j.TestSchedulers.get;
import static org.marl4j.TestSchedulers.onFiber;
import static org.marl4j.TestSchedulers.withScheduler;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.marl4j.ForEachWorkerCount;

/**
 * The await methods take any CompletionStage, including the JDK's
 * {@link CompletableFuture#minimalCompletionStage()}: a CompletableFuture subclass whose Future
 * methods (isDone, join, get, ...) throw UnsupportedOperationException, so the timed await,
 * awaitAll and awaitAny must not call isDone() on it.
 */
class FuturesMinimalStageTest {
    private static final Duration LONG = Duration.ofSeconds(30);

    /** Every await method on a minimal stage, done and pending; returns what they answered. */
    private static List<Object> awaitEveryWay() throws TimeoutException {
        CompletionStage<Integer> done = CompletableFuture.completedFuture(7).minimalCompletionStage();
        CompletableFuture<Integer> source = new CompletableFuture<>();
        CompletionStage<Integer> pending = source.minimalCompletionStage();
        RuntimeException boom = new IllegalStateException("boom");
        CompletionStage<Integer> failed = CompletableFuture.<Integer>failedFuture(boom).minimalCompletionStage();

        Object timedDone = Futures.await(done, LONG);
        assertThrows(TimeoutException.class, () -> Futures.await(pending, Duration.ZERO));
        assertThrows(TimeoutException.class, () -> Futures.await(pending, Duration.ofMillis(1)));
        assertSame(boom, assertThrows(IllegalStateException.class, () -> Futures.await(failed, LONG)));
        Object all = Futures.awaitAll(done, done);
        Object any = Futures.awaitAny(pending, done);
        assertSame(boom, assertThrows(IllegalStateException.class, () -> Futures.awaitAll(done, failed)));
        source.complete(8);
        Object timedPendingThenDone = Futures.await(pending, LONG);
        return List.of(timedDone, all, any, timedPendingThenDone, Futures.awaitAll(pending), Futures.awaitAny(pending));
    }

    private static final List<Object> EXPECTED = List.of(7, List.of(7, 7), 7, 8, List.of(8), 8);

    @Test
    void awaitMethods_offFiber_acceptAMinimalStage() throws TimeoutException {
        assertEquals(EXPECTED, awaitEveryWay());
    }

    @ForEachWorkerCount
    void awaitMethods_onFiber_acceptAMinimalStage(int workers) {
        withScheduler(workers, scheduler -> assertEquals(EXPECTED, get(onFiber(scheduler, FuturesMinimalStageTest::awaitEveryWay))));
    }

    /** A minimal stage completed later, from another thread, wakes a timed wait on a fiber and on a thread. */
    @ForEachWorkerCount
    void timedAwait_ofAPendingMinimalStage_returnsWhenItCompletesLater(int workers) {
        withScheduler(workers, scheduler -> {
            CompletableFuture<String> source = new CompletableFuture<>();
            CompletionStage<String> minimal = source.minimalCompletionStage();
            CompletableFuture<String> onFiber = onFiber(scheduler, () -> Futures.await(minimal, LONG));
            CompletableFuture<String> onThread = CompletableFuture.supplyAsync(() -> Futures.awaitAny(minimal));
            source.complete("late");
            assertEquals("late", get(onFiber));
            assertEquals("late", get(onThread));
        });
    }
}
