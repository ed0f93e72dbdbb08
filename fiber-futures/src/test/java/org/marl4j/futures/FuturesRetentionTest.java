package org.marl4j.futures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TestSchedulers.runOnFiber;
import static org.marl4j.TestSchedulers.withScheduler;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.marl4j.ForEachWorkerCount;
import org.marl4j.Marl;
import org.marl4j.Scheduler;
import org.marl4j.Task;

/**
 * A long-lived stage (a shutdown signal, a cache entry) awaited with timeouts in a loop, or losing
 * awaitAny races again and again, keeps at most one callback from marl4j, whatever the number of
 * waits. Measured with {@link CompletableFuture#getNumberOfDependents()}: otherwise every
 * timed-out await and every lost awaitAny would leave one callback (and its Outcome and Event) on the stage.
 */
class FuturesRetentionTest {
    private static final int WAITS = 20_000;
    /** Waits that really suspend until their timeout; few, since each takes at least its timeout. */
    private static final int SLEEPING_WAITS = 20;

    @ForEachWorkerCount
    void await_timingOutManyTimesOnANeverCompletingFuture_leavesOneCallback(int workers) {
        CompletableFuture<String> never = new CompletableFuture<>();
        withScheduler(workers, scheduler -> runOnFiber(scheduler, () -> {
            timeOutRepeatedly(never);
            return null;
        }));
        assertEquals(1, never.getNumberOfDependents(), "callbacks left on the stage");
        assertEquals(0, StageWaiters.of(never).size(), "timed-out waiters left registered");
    }

    @ForEachWorkerCount
    void timedGet_timingOutManyTimesOnAFiber_leavesOneCallbackOnTheFuture(int workers) {
        CompletableFuture<String> never = new FiberFriendlyFuture<>(); // what Futures.supplyAsync returns
        withScheduler(workers, scheduler -> runOnFiber(scheduler, () -> {
            for (int i = 0; i < WAITS; i++) {
                assertThrows(TimeoutException.class, () -> never.get(1, TimeUnit.NANOSECONDS));
            }
            for (int i = 0; i < SLEEPING_WAITS; i++) {
                assertThrows(TimeoutException.class, () -> never.get(1, TimeUnit.MILLISECONDS));
            }
            return null;
        }));
        assertTrue(never.getNumberOfDependents() <= 1,
                () -> never.getNumberOfDependents() + " callbacks left on the future by timed-out gets");
        never.completeExceptionally(new IllegalStateException("late"));
        withScheduler(workers, scheduler -> runOnFiber(scheduler, () -> {
            ExecutionException failed = assertThrows(ExecutionException.class, () -> never.get(1, TimeUnit.SECONDS));
            assertEquals("late", failed.getCause().getMessage(), "a failure is wrapped as the JDK's get wraps it");
            return null;
        }));
    }

    @Test
    void await_timingOutManyTimesOnAPlainThread_leavesOneCallback() {
        CompletableFuture<String> never = new CompletableFuture<>();
        timeOutRepeatedly(never);
        assertEquals(1, never.getNumberOfDependents(), "callbacks left on the stage");
    }

    private static void timeOutRepeatedly(CompletableFuture<String> never) {
        for (int i = 0; i < WAITS; i++) {
            assertThrows(TimeoutException.class, () -> Futures.await(never, Duration.ZERO));
        }
        for (int i = 0; i < SLEEPING_WAITS; i++) {
            assertThrows(TimeoutException.class, () -> Futures.await(never, Duration.ofMillis(1)));
        }
    }

    /** After the timed-out waits, the stage still completes a later waiter, and its entry is dropped. */
    @ForEachWorkerCount
    void await_afterManyTimeouts_stillReceivesTheCompletion(int workers) {
        CompletableFuture<String> later = new CompletableFuture<>();
        withScheduler(workers, scheduler -> {
            String value = runOnFiber(scheduler, () -> {
                timeOutRepeatedly(later);
                Marl.schedule(() -> later.complete("done")); // completes while we wait below
                return Futures.await(later, Duration.ofSeconds(30));
            });
            assertEquals("done", value);
        });
        assertEquals(0, later.getNumberOfDependents());
    }

    @ForEachWorkerCount
    void awaitAny_losingManyTimes_leavesOneCallbackOnTheLoser(int workers) {
        CompletableFuture<String> never = new CompletableFuture<>();
        withScheduler(workers, scheduler -> runOnFiber(scheduler, () -> {
            for (int i = 0; i < WAITS; i++) {
                assertEquals("won", Futures.awaitAny(never, CompletableFuture.completedFuture("won")));
            }
            Scheduler current = Scheduler.get();
            for (int i = 0; i < SLEEPING_WAITS; i++) {
                CompletableFuture<String> winner = new CompletableFuture<>();
                current.enqueue(new Task(() -> winner.complete("later")));
                assertEquals("later", Futures.awaitAny(never, winner)); // suspends until the winner completes
            }
            return null;
        }));
        assertEquals(1, never.getNumberOfDependents(), "callbacks left on the losing stage");
        assertEquals(0, StageWaiters.of(never).size(), "losing waiters left registered");
    }

    /** awaitAll returning at the first failure leaves nothing of itself on the stages still pending. */
    @ForEachWorkerCount
    void awaitAll_failingManyTimes_leavesOneCallbackOnThePendingStage(int workers) {
        CompletableFuture<String> pending = new CompletableFuture<>();
        IllegalStateException failure = new IllegalStateException("failed");
        withScheduler(workers, scheduler -> runOnFiber(scheduler, () -> {
            for (int i = 0; i < WAITS; i++) {
                assertSame(failure, assertThrows(IllegalStateException.class,
                        () -> Futures.awaitAll(pending, CompletableFuture.<String>failedFuture(failure))));
            }
            Scheduler current = Scheduler.get();
            for (int i = 0; i < SLEEPING_WAITS; i++) {
                CompletableFuture<String> failsLater = new CompletableFuture<>();
                current.enqueue(new Task(() -> failsLater.completeExceptionally(failure)));
                // suspends until the second stage fails
                assertSame(failure, assertThrows(IllegalStateException.class, () -> Futures.awaitAll(pending, failsLater)));
            }
            return null;
        }));
        assertEquals(1, pending.getNumberOfDependents(), "callbacks left on the pending stage");
        assertEquals(0, StageWaiters.of(pending).size(), "awaitAll's waiters left registered");
        pending.complete("late"); // and the one callback left is harmless
        assertEquals(List.of("late", "x"), Futures.awaitAll(pending, CompletableFuture.completedFuture("x")));
    }

    /** The registry holds its stages weakly: stages awaited with a timeout and then dropped are collected. */
    @Test
    void await_timedOutOnStagesThatAreThenDropped_keepsNeitherThemNorTheirEntries() {
        WeakReference<CompletableFuture<String>> last = timeOutOnFreshStages(1_000);
        org.awaitility.Awaitility.await().atMost(org.marl4j.TestSchedulers.PATIENCE).until(() -> {
            System.gc();
            return last.get() == null && StageWaiters.registered() == 0;
        });
    }

    private static WeakReference<CompletableFuture<String>> timeOutOnFreshStages(int count) {
        CompletableFuture<String> stage = null;
        for (int i = 0; i < count; i++) {
            stage = new CompletableFuture<>();
            CompletableFuture<String> awaited = stage;
            assertThrows(TimeoutException.class, () -> Futures.await(awaited, Duration.ZERO));
        }
        return new WeakReference<>(stage);
    }
}
