package org.marl4j.futures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TestSchedulers.runOnFiber;
import static org.marl4j.TestSchedulers.withScheduler;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.marl4j.Fiber;
import org.marl4j.ForEachWorkerCount;
import org.marl4j.Scheduler;
import org.marl4j.Task;

/**
 * Futures.await's own path for a plain {@link CompletableFuture} on a fiber (a 16-byte callback,
 * the outcome read from the future once woken), and that other stages keep the general path. The
 * futures here complete only after the fiber has suspended: a task queued on the fiber's own worker
 * before the await runs once the fiber has given up the thread.
 */
class FuturesPlainFutureTest {

    @ForEachWorkerCount
    void await_completedWhileSuspended_returnsTheValue(int workers) {
        withScheduler(workers, scheduler -> assertEquals(List.of("v", true), runOnFiber(scheduler, () -> {
            CompletableFuture<String> future = new CompletableFuture<>();
            AtomicBoolean completedAfterSuspend = new AtomicBoolean();
            afterSuspending(() -> {
                completedAfterSuspend.set(true);
                future.complete("v");
            });
            String value = Futures.await(future);
            return List.of(value, completedAfterSuspend.get());
        })));
    }

    @ForEachWorkerCount
    void await_completedWithNullWhileSuspended_returnsNull(int workers) {
        withScheduler(workers, scheduler -> assertTrue(runOnFiber(scheduler, () -> {
            CompletableFuture<String> future = new CompletableFuture<>();
            afterSuspending(() -> future.complete(null));
            return Futures.await(future) == null;
        })));
    }

    @ForEachWorkerCount
    void await_failedWhileSuspended_throwsEachFailureKindAsDocumented(int workers) {
        withScheduler(workers, scheduler -> runOnFiber(scheduler, () -> {
            IllegalStateException runtime = new IllegalStateException("boom");
            assertSame(runtime, assertThrows(IllegalStateException.class,
                    () -> awaitFailedLater(f -> f.completeExceptionally(runtime))));
            assertSame(runtime, assertThrows(IllegalStateException.class,
                    () -> awaitFailedLater(f -> f.completeExceptionally(new CompletionException(runtime)))),
                    "unwrapped from CompletionException");
            CompletionException bare = new CompletionException("no cause", null);
            assertSame(bare, assertThrows(CompletionException.class,
                    () -> awaitFailedLater(f -> f.completeExceptionally(bare))), "nothing to unwrap: itself");
            StackOverflowError error = new StackOverflowError("deep");
            assertSame(error, assertThrows(StackOverflowError.class,
                    () -> awaitFailedLater(f -> f.completeExceptionally(error))));
            IOException checked = new IOException("disk");
            assertSame(checked, assertThrows(AwaitException.class,
                    () -> awaitFailedLater(f -> f.completeExceptionally(checked))).getCause());

            CompletableFuture<Object> cancelled = new CompletableFuture<>();
            AtomicReference<Throwable> cancellation = new AtomicReference<>();
            cancelled.whenComplete((v, t) -> cancellation.set(t));
            afterSuspending(() -> cancelled.cancel(false));
            CancellationException thrown = assertThrows(CancellationException.class, () -> Futures.await(cancelled));
            assertSame(cancellation.get(), thrown, "the future's own CancellationException");
            return null;
        }));
    }

    /** Only the future's completion ends the wait: a plain wake of the fiber does not. */
    @ForEachWorkerCount
    void await_otherWakesOfTheFiber_doNotEndIt(int workers) {
        withScheduler(workers, scheduler -> assertEquals(List.of(5, true), runOnFiber(scheduler, () -> {
            Fiber self = Fiber.current();
            CompletableFuture<Integer> future = new CompletableFuture<>();
            AtomicBoolean completed = new AtomicBoolean();
            afterSuspending(() -> {
                self.wake(); // spurious: the worker resumes the fiber before it starts the next task
                Scheduler.get().enqueue(new Task(() -> {
                    completed.set(true);
                    future.complete(5);
                }, Task.Flag.SAME_THREAD));
            });
            int value = Futures.await(future);
            return List.of(value, completed.get());
        })));
    }

    /** A subclass may override join() and the rest: it goes through whenComplete, as any stage. */
    @ForEachWorkerCount
    void await_subclassOfCompletableFuture_usesOnlyWhenComplete(int workers) {
        withScheduler(workers, scheduler -> assertEquals(List.of("later", "now"), runOnFiber(scheduler, () -> {
            CompletableFuture<String> later = new NoJoinFuture<>();
            afterSuspending(() -> later.complete("later"));
            CompletableFuture<String> now = new NoJoinFuture<>();
            now.complete("now");
            return List.of(Futures.await(later), Futures.await(now));
        })));
    }

    @ForEachWorkerCount
    void await_sameFutureManyTimes_eachReturns(int workers) {
        withScheduler(workers, scheduler -> assertEquals(3, runOnFiber(scheduler, () -> {
            int sum = 0;
            for (int i = 0; i < 3; i++) {
                CompletableFuture<Integer> future = new CompletableFuture<>();
                afterSuspending(() -> future.complete(1));
                sum += Futures.await(future);
            }
            return sum;
        })));
    }

    private static Object awaitFailedLater(Consumer<CompletableFuture<Object>> fail) {
        CompletableFuture<Object> future = new CompletableFuture<>();
        afterSuspending(() -> fail.accept(future));
        return Futures.await(future);
    }

    /** afterSuspending(action) runs action on this fiber's worker once the fiber has suspended. */
    private static void afterSuspending(Runnable action) {
        Scheduler scheduler = Scheduler.get();
        assertNotNull(scheduler, "on a fiber");
        scheduler.enqueue(new Task(action, Task.Flag.SAME_THREAD));
    }

    /** A CompletableFuture subclass whose join() must not be used by Futures.await. */
    private static final class NoJoinFuture<T> extends CompletableFuture<T> {
        @Override
        public T join() {
            throw new AssertionError("join() of a subclass must not be used");
        }

        @Override
        public T getNow(T valueIfAbsent) {
            throw new AssertionError("getNow() of a subclass must not be used");
        }

        @Override
        public <U> CompletableFuture<U> newIncompleteFuture() {
            return new NoJoinFuture<>();
        }
    }
}
