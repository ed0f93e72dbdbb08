package org.marl4j.futures;

import org.marl4j.TestSchedulers;
import org.marl4j.ForEachWorkerCount;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TestSchedulers.get;
import static org.marl4j.TestSchedulers.onFiber;
import static org.marl4j.TestSchedulers.runOnFiber;
import static org.marl4j.TestSchedulers.startThread;
import static org.marl4j.TestSchedulers.withScheduler;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.marl4j.Fiber;
import org.marl4j.Scheduler;
import org.marl4j.Task;
import org.marl4j.WorkerHold;

class FuturesTest {

    // ---------------------------------------------------------------- value, foreign completion

    @ForEachWorkerCount
    void await_onFiber_returnsValueCompletedFromForeignThread_onSameWorkerThread(int workers) {
        withScheduler(workers, scheduler -> {
            CompletableFuture<String> stage = new CompletableFuture<>();
            CompletableFuture<Void> entered = new CompletableFuture<>();
            CompletableFuture<List<Object>> result = onFiber(scheduler, () -> {
                Thread before = Thread.currentThread();
                entered.complete(null);
                String value = Futures.await(stage);
                return List.of(value, before == Thread.currentThread());
            });
            Thread completer = startThread("completer", () -> {
                entered.join();
                stage.complete("hello");
            });
            assertEquals(List.of("hello", true), get(result), "value, and resumed on its own worker thread");
            joinQuietly(completer);
        });
    }

    @Test
    void await_offFiber_blocksThreadUntilForeignCompletion() throws Exception {
        CompletableFuture<Integer> stage = new CompletableFuture<>();
        CompletableFuture<Integer> result = new CompletableFuture<>();
        Thread waiter = startThread("waiter", () -> result.complete(Futures.await(stage)));
        await().until(() -> waiter.getState() == Thread.State.WAITING);
        assertFalse(result.isDone(), "await returned before the stage completed");
        stage.complete(42);
        assertEquals(42, result.get(30, TimeUnit.SECONDS));
    }

    @ForEachWorkerCount
    void await_alreadyComplete_returnsWithoutSuspending(int workers) {
        withScheduler(workers, scheduler -> {
            List<Object> seen = runOnFiber(scheduler, () -> {
                AtomicBoolean otherTaskRan = new AtomicBoolean();
                // Queued on this very worker: it would run if await suspended this fiber.
                Scheduler.get().enqueue(new Task(() -> otherTaskRan.set(true), Task.Flag.SAME_THREAD));
                int value = Futures.await(CompletableFuture.completedFuture(7));
                int timed = Futures.await(CompletableFuture.completedFuture(8), Duration.ZERO);
                return List.of(value, timed, otherTaskRan.get());
            });
            assertEquals(List.of(7, 8, false), seen);
        });
    }

    // ---------------------------------------------------------------- every failure kind

    @ForEachWorkerCount
    void await_onFiber_throwsEachFailureKind(int workers) {
        withScheduler(workers, scheduler -> runOnFiber(scheduler, () -> {
            assertFailureKinds();
            return null;
        }));
    }

    @Test
    void await_offFiber_throwsEachFailureKind() {
        assertNull(Fiber.current());
        assertFailureKinds();
    }

    private static void assertFailureKinds() {
        IllegalStateException runtime = new IllegalStateException("boom");
        assertSame(runtime, assertThrows(IllegalStateException.class, () -> Futures.await(failed(runtime))));
        // A dependent stage sees CompletionException(runtime): unwrapped to the original object.
        CompletionStage<Object> dependent = failed(runtime).thenApply(x -> x);
        assertSame(runtime, assertThrows(IllegalStateException.class, () -> Futures.await(dependent)));

        StackOverflowError error = new StackOverflowError("deep");
        assertSame(error, assertThrows(StackOverflowError.class, () -> Futures.await(failed(error))));

        IOException checked = new IOException("disk");
        AwaitException wrapped = assertThrows(AwaitException.class, () -> Futures.await(failed(checked)));
        assertSame(checked, wrapped.getCause());
        AwaitException viaExecution = assertThrows(AwaitException.class,
                () -> Futures.await(failed(new ExecutionException(checked))));
        assertSame(checked, viaExecution.getCause(), "unwrapped from ExecutionException, then wrapped once");

        CompletableFuture<Object> cancelled = new CompletableFuture<>();
        cancelled.cancel(false);
        assertThrows(CancellationException.class, () -> Futures.await(cancelled));
        assertThrows(CancellationException.class, () -> Futures.await(cancelled.thenApply(x -> x)));

        TimeoutException stageTimeout = new TimeoutException("the stage's own");
        AwaitException stageTimedOut = assertThrows(AwaitException.class,
                () -> Futures.await(failed(stageTimeout), Duration.ofSeconds(5)));
        assertSame(stageTimeout, stageTimedOut.getCause(), "a stage's own timeout is not await's timeout");
    }

    private static <T> CompletableFuture<T> failed(Throwable t) {
        return CompletableFuture.failedFuture(t);
    }

    // ---------------------------------------------------------------- timeout

    @ForEachWorkerCount
    void await_timesOut_thenLaterCompletionDoesNotDisturbTheFiber(int workers) {
        withScheduler(workers, scheduler -> {
            CompletableFuture<String> never = new CompletableFuture<>();
            CompletableFuture<String> second = new CompletableFuture<>();
            AtomicBoolean timedOut = new AtomicBoolean();
            CompletableFuture<String> result = onFiber(scheduler, () -> {
                assertThrows(TimeoutException.class, () -> Futures.await(never, Duration.ofMillis(20)));
                timedOut.set(true);
                return Futures.await(second); // must not be woken by the first stage's late completion
            });
            Thread completer = startThread("late-completer", () -> {
                await().untilTrue(timedOut);
                never.complete("late");
                // The fiber still waits for `second` for as long as we watch.
                await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> !result.isDone());
                second.complete("second");
            });
            assertEquals("second", get(result));
            joinQuietly(completer);
        });
    }

    @Test
    void await_offFiber_timesOut() {
        CompletableFuture<String> never = new CompletableFuture<>();
        TimeoutException e = assertThrows(TimeoutException.class, () -> Futures.await(never, Duration.ofMillis(10)));
        assertTrue(e.getMessage().contains("PT0.01S"), e.getMessage());
        assertThrows(TimeoutException.class, () -> Futures.await(never, Duration.ofSeconds(-1)));
        assertThrows(TimeoutException.class, () -> Futures.await(never, Duration.ZERO));
    }

    @ForEachWorkerCount
    void await_manyTimedOutAwaitsOnOneWorker_leakNoFiber(int workers) {
        // Close (at the end of withScheduler) waits for every blocked fiber: a leaked one would hang it.
        withScheduler(workers, scheduler -> {
            CompletableFuture<Integer> never = new CompletableFuture<>();
            int timeouts = runOnFiber(scheduler, () -> {
                int count = 0;
                for (int i = 0; i < 100; i++) {
                    try {
                        Futures.await(never, Duration.ofNanos(1000));
                    } catch (TimeoutException expected) {
                        count++;
                    }
                }
                return count;
            });
            assertEquals(100, timeouts);
            never.complete(1); // wakes 100 stale callbacks: must be harmless
        });
    }

    // ---------------------------------------------------------------- awaitAll / awaitAny

    @ForEachWorkerCount
    void awaitAll_returnsValuesInOrder_andFirstFailureWithoutWaitingForTheRest(int workers) {
        withScheduler(workers, scheduler -> {
            CompletableFuture<Integer> a = new CompletableFuture<>();
            CompletableFuture<Integer> b = new CompletableFuture<>();
            CompletableFuture<List<Integer>> all = onFiber(scheduler, () -> Futures.awaitAll(a, b, CompletableFuture.completedFuture(3)));
            b.complete(2); // out of order
            a.complete(1);
            assertEquals(List.of(1, 2, 3), get(all));

            CompletableFuture<Integer> pending = new CompletableFuture<>();
            IllegalArgumentException failure = new IllegalArgumentException("bad");
            CompletableFuture<Throwable> thrown = onFiber(scheduler, () -> {
                try {
                    Futures.awaitAll(List.of(pending, CompletableFuture.<Integer>failedFuture(failure)));
                    return null;
                } catch (IllegalArgumentException e) {
                    return e;
                }
            });
            assertSame(failure, get(thrown));
            assertFalse(pending.isDone());
            assertEquals(List.of(), Futures.awaitAll(List.<CompletableFuture<Integer>>of()));
        });
    }

    @ForEachWorkerCount
    void awaitAny_returnsFirstOutcome(int workers) {
        withScheduler(workers, scheduler -> {
            CompletableFuture<String> slow = new CompletableFuture<>();
            CompletableFuture<String> fast = new CompletableFuture<>();
            CompletableFuture<String> any = onFiber(scheduler, () -> Futures.awaitAny(slow, fast));
            startThread("fast", () -> fast.complete("fast"));
            assertEquals("fast", get(any));

            IOException io = new IOException("first");
            CompletableFuture<Throwable> failed = onFiber(scheduler, () -> {
                try {
                    Futures.awaitAny(slow, CompletableFuture.failedFuture(io));
                    return null;
                } catch (AwaitException e) {
                    return e.getCause();
                }
            });
            assertSame(io, get(failed));
            slow.complete("slow");
        });
    }

    @Test
    void badInput_nullAndEmpty() {
        assertThrows(NullPointerException.class, () -> Futures.await(null));
        assertThrows(NullPointerException.class, () -> Futures.await(null, Duration.ZERO));
        assertThrows(NullPointerException.class, () -> Futures.await(new CompletableFuture<>(), null));
        assertThrows(NullPointerException.class, () -> Futures.awaitAll((CompletionStage<Object>[]) null));
        assertThrows(NullPointerException.class, () -> Futures.awaitAll(CompletableFuture.completedFuture(1), null));
        assertThrows(NullPointerException.class, () -> Futures.awaitAny(CompletableFuture.completedFuture(1), null));
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, () -> Futures.awaitAny());
        assertTrue(empty.getMessage().contains("at least one"), empty.getMessage());
        assertThrows(NullPointerException.class, () -> Futures.supplyAsync(null, () -> 1));
        try (Scheduler scheduler = new Scheduler(TestSchedulers.config(0))) {
            NullPointerException npe = assertThrows(NullPointerException.class, () -> Futures.runAsync(scheduler, null));
            assertNotNull(npe.getMessage());
            assertThrows(NullPointerException.class, () -> Futures.supplyAsync(scheduler, null));
        }
    }

    // ---------------------------------------------------------------- supplyAsync / runAsync

    @ForEachWorkerCount
    void supplyAsync_runsOnAFiber_andCompletesWithValueOrException(int workers) {
        withScheduler(workers, scheduler -> {
            CompletableFuture<Boolean> onFiber = Futures.supplyAsync(scheduler, () -> Fiber.current() != null);
            assertTrue(get(onFiber));
            IllegalStateException boom = new IllegalStateException("boom");
            CompletableFuture<Object> failed = Futures.supplyAsync(scheduler, () -> {
                throw boom;
            });
            assertSame(boom, assertThrows(IllegalStateException.class, () -> Futures.await(failed, TestSchedulers.PATIENCE)));
            AtomicInteger ran = new AtomicInteger();
            assertNull(get(Futures.runAsync(scheduler, ran::incrementAndGet)));
            assertEquals(1, ran.get());
        });
    }

    @ForEachWorkerCount
    void supplyAsync_cancelledBeforeStart_neverRuns(int workers) {
        AtomicInteger ran = new AtomicInteger();
        List<CompletableFuture<?>> cancelled = new ArrayList<>();
        withScheduler(workers, scheduler -> {
            // Occupy every worker thread (holding it on purpose) so the next tasks stay queued.
            CountDownLatch started = new CountDownLatch(workers);
            WorkerHold release = new WorkerHold();
            for (int i = 0; i < workers; i++) {
                scheduler.enqueue(new Task(() -> {
                    started.countDown();
                    release.hold();
                }));
            }
            awaitUninterruptibly(started);
            CompletableFuture<Integer> supplied = Futures.supplyAsync(scheduler, ran::incrementAndGet);
            CompletableFuture<Void> run = Futures.runAsync(scheduler, ran::incrementAndGet);
            assertTrue(supplied.cancel(false));
            assertTrue(run.cancel(true));
            cancelled.add(supplied);
            cancelled.add(run);
            release.release();
        }); // close()/unbind() drain every queued task
        assertEquals(0, ran.get(), "a body whose future was cancelled before it started ran");
        assertTrue(cancelled.stream().allMatch(CompletableFuture::isCancelled));
    }

    @Test
    void supplyAsync_onClosedScheduler_isRejected() {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(1));
        scheduler.close();
        assertThrows(RejectedExecutionException.class, () -> Futures.supplyAsync(scheduler, () -> 1));
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            assertTrue(latch.await(30, TimeUnit.SECONDS), "latch timed out");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static void joinQuietly(Thread thread) {
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        assertFalse(thread.isAlive(), thread.getName() + " did not finish");
    }
}
