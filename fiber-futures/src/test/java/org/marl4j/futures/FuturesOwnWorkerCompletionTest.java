package org.marl4j.futures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.marl4j.TestSchedulers.get;
import static org.marl4j.TestSchedulers.onFiber;
import static org.marl4j.TestSchedulers.withScheduler;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.marl4j.ForEachWorkerCount;
import org.marl4j.Scheduler;
import org.marl4j.Task;

/**
 * Futures' waits on a stage that a task on the awaiting fiber's own worker completes (with one
 * worker, or none, the only thread that can: the wait must suspend the fiber, not block the thread),
 * for every kind of stage: a plain CompletableFuture, a dependent one, supplyAsync's, a
 * {@code minimalCompletionStage()}, and a stage that is no CompletableFuture at all and refuses
 * {@code toCompletableFuture()}. Each outcome comes back as await documents it: the value, the
 * failure unwrapped from CompletionException, a checked one in AwaitException, a cancellation.
 */
class FuturesOwnWorkerCompletionTest {
    private static final Duration LONG = Duration.ofSeconds(30);

    /** The kinds of stage, each made from the CompletableFuture a task completes. */
    private static final List<Function<CompletableFuture<Object>, CompletionStage<Object>>> KINDS = List.of(
            source -> source,
            source -> source.thenApply(x -> x),
            CompletableFuture::minimalCompletionStage,
            FuturesOwnWorkerCompletionTest::foreign);

    /**
     * foreign(source) is a CompletionStage that is not a CompletableFuture: every method delegates to
     * source, but toCompletableFuture() throws UnsupportedOperationException, as it may.
     */
    @SuppressWarnings("unchecked")
    static CompletionStage<Object> foreign(CompletableFuture<Object> source) {
        return (CompletionStage<Object>) Proxy.newProxyInstance(CompletionStage.class.getClassLoader(),
                new Class<?>[] {CompletionStage.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "toCompletableFuture" -> throw new UnsupportedOperationException("a foreign stage");
                        case "hashCode" -> {
                            return System.identityHashCode(proxy);
                        }
                        case "equals" -> {
                            return proxy == args[0];
                        }
                        case "toString" -> {
                            return "ForeignStage[" + source + "]";
                        }
                        default -> {
                            try {
                                return method.invoke(source, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        }
                    }
                });
    }

    /** What every await form answered, on a fiber, for each kind of stage completed on its own worker. */
    private static List<Object> awaitCompletedOnOwnWorker(Scheduler scheduler, Object value) throws TimeoutException {
        List<Object> answers = new ArrayList<>();
        for (Function<CompletableFuture<Object>, CompletionStage<Object>> kind : KINDS) {
            answers.add(Futures.await(completedByATask(scheduler, kind, value)));
            answers.add(Futures.await(completedByATask(scheduler, kind, value), LONG));
            answers.add(Futures.await(completedByATask(scheduler, kind, value), ChronoUnit.FOREVER.getDuration()));
            answers.add(Futures.awaitAll(List.of(completedByATask(scheduler, kind, value))).get(0));
            answers.add(Futures.awaitAny(List.of(completedByATask(scheduler, kind, value), new CompletableFuture<>())));
            // Once complete, an elapsed timeout answers without waiting, whatever the kind of stage.
            CompletionStage<Object> done = completedByATask(scheduler, kind, value);
            Futures.await(done);
            answers.add(Futures.await(done, Duration.ZERO));
            answers.add(Futures.await(done, Duration.ofNanos(-1)));
        }
        return answers;
    }

    /** A stage of the given kind whose source a task enqueued from here completes with outcome. */
    private static CompletionStage<Object> completedByATask(Scheduler scheduler,
            Function<CompletableFuture<Object>, CompletionStage<Object>> kind, Object outcome) {
        CompletableFuture<Object> source = new CompletableFuture<>();
        CompletionStage<Object> stage = kind.apply(source);
        scheduler.enqueue(new Task(() -> {
            if (outcome instanceof CancellationException) {
                source.cancel(true);
            } else if (outcome instanceof Throwable failure) {
                source.completeExceptionally(failure);
            } else {
                source.complete(outcome);
            }
        }));
        return stage;
    }

    @ForEachWorkerCount
    void await_stageCompletedOnTheFibersOwnWorker_returnsItsValue_everyKindAndForm(int workers) {
        withScheduler(workers, scheduler -> {
            List<Object> answers = get(onFiber(scheduler, () -> awaitCompletedOnOwnWorker(scheduler, "v")));
            assertEquals(KINDS.size() * 7, answers.size());
            answers.forEach(answer -> assertEquals("v", answer));
        });
    }

    @ForEachWorkerCount
    void await_supplyAsyncOnTheSameScheduler_fromItsOnlyWorker(int workers) {
        withScheduler(workers, scheduler -> assertEquals(List.of(1, 2, 3), get(onFiber(scheduler, () -> List.of(
                Futures.await(Futures.supplyAsync(scheduler, () -> 1)),
                Futures.await(Futures.supplyAsync(scheduler, () -> 2).minimalCompletionStage(), LONG),
                Futures.awaitAny(foreignOf(Futures.supplyAsync(scheduler, () -> 3))))))));
    }

    @SuppressWarnings("unchecked")
    private static <T> CompletionStage<T> foreignOf(CompletableFuture<T> source) {
        return (CompletionStage<T>) foreign((CompletableFuture<Object>) source);
    }

    @ForEachWorkerCount
    void await_failureOnTheFibersOwnWorker_isUnwrapped_everyKind(int workers) {
        withScheduler(workers, scheduler -> get(onFiber(scheduler, () -> {
            IllegalStateException runtime = new IllegalStateException("boom");
            IOException checked = new IOException("disk");
            for (Function<CompletableFuture<Object>, CompletionStage<Object>> kind : KINDS) {
                assertSame(runtime, assertThrows(IllegalStateException.class,
                        () -> Futures.await(completedByATask(scheduler, kind, runtime))));
                assertSame(runtime, assertThrows(IllegalStateException.class,
                        () -> Futures.await(completedByATask(scheduler, kind, new CompletionException(runtime)), LONG)));
                assertSame(checked, assertThrows(AwaitException.class,
                        () -> Futures.await(completedByATask(scheduler, kind, new CompletionException(checked)))).getCause());
                assertThrows(CancellationException.class,
                        () -> Futures.await(completedByATask(scheduler, kind, new CancellationException())));
                assertThrows(CancellationException.class,
                        () -> Futures.awaitAll(List.of(completedByATask(scheduler, kind, new CancellationException()))));
            }
            return null;
        })));
    }

    @Test
    void await_foreignStage_offFiber_valueFailureAndTimeout() throws Exception {
        CompletableFuture<Object> source = new CompletableFuture<>();
        CompletionStage<Object> stage = foreign(source);
        assertThrows(TimeoutException.class, () -> Futures.await(stage, Duration.ZERO));
        assertThrows(TimeoutException.class, () -> Futures.await(stage, Duration.ofMillis(-5)));
        source.complete("late");
        assertEquals("late", Futures.await(stage));
        assertEquals("late", Futures.await(stage, Duration.ZERO));
        CompletableFuture<Object> failing = new CompletableFuture<>();
        failing.completeExceptionally(new CompletionException(new IOException("x")));
        assertInstanceOf(IOException.class,
                assertThrows(AwaitException.class, () -> Futures.await(foreign(failing))).getCause());
    }
}
