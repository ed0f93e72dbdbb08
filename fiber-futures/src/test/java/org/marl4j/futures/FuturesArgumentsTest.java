package org.marl4j.futures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.marl4j.TestSchedulers;

/**
 * Every public entry point of fiber-futures answers null with a NullPointerException that names
 * the argument (and, for arrays and collections, the index), and huge timeouts saturate.
 */
class FuturesArgumentsTest {
    private static final CompletableFuture<String> DONE = CompletableFuture.completedFuture("x");

    private static void assertNpeMentions(String expected, Executable call) {
        NullPointerException e = assertThrows(NullPointerException.class, call);
        assertTrue(e.getMessage() != null && e.getMessage().contains(expected),
                "message should mention '" + expected + "': " + e.getMessage());
    }

    @Test
    void awaitAll_varargsWithNull_namesTheIndex() {
        assertNpeMentions("stages[1]", () -> Futures.awaitAll(DONE, null));
        assertNpeMentions("stages must not be null", () -> Futures.awaitAll((CompletionStage<String>[]) null));
        assertNpeMentions("index 1", () -> Futures.awaitAll(Arrays.asList(DONE, null)));
    }

    @Test
    void awaitAny_varargsWithNull_namesTheIndex() {
        assertNpeMentions("stages[0]", () -> Futures.awaitAny(null, DONE));
        assertNpeMentions("index 1", () -> Futures.awaitAny(Arrays.asList(DONE, null)));
    }

    @Test
    void await_nullArguments_nameTheArgument() {
        assertNpeMentions("stage", () -> Futures.await(null));
        assertNpeMentions("stage", () -> Futures.await(null, Duration.ZERO));
        assertNpeMentions("timeout", () -> Futures.await(DONE, null));
        assertNpeMentions("scheduler", () -> Futures.supplyAsync(null, () -> 1));
        assertNpeMentions("supplier", () -> Futures.supplyAsync(null == null ? dummyScheduler() : null, null));
        assertNpeMentions("body", () -> Futures.runAsync(dummyScheduler(), null));
    }

    private static org.marl4j.Scheduler dummyScheduler() {
        return SCHEDULER;
    }

    private static final org.marl4j.Scheduler SCHEDULER = new org.marl4j.Scheduler(TestSchedulers.config(1));

    @org.junit.jupiter.api.AfterAll
    static void closeScheduler() {
        SCHEDULER.close();
    }

    @Test
    void executor_nullArguments_nameTheArgument() throws Exception {
        try (MarlExecutorService executor = new MarlExecutorService(TestSchedulers.config(1))) {
            assertNpeMentions("task", () -> executor.submit((Runnable) null));
            assertNpeMentions("task", () -> executor.submit((Runnable) null, "r"));
            assertNpeMentions("task", () -> executor.submit((Callable<String>) null));
            assertNpeMentions("command", () -> executor.execute(null));
            assertNpeMentions("tasks", () -> executor.invokeAll(null));
            List<Callable<String>> withNull = Arrays.asList(() -> "a", null);
            assertNpeMentions("index 1", () -> executor.invokeAll(withNull));
            assertNpeMentions("index 1", () -> executor.invokeAll(withNull, 1, TimeUnit.SECONDS));
            assertNpeMentions("unit", () -> executor.invokeAll(List.of(() -> "a"), 1, null));
            assertNpeMentions("index 1", () -> executor.invokeAny(withNull));
            assertNpeMentions("unit", () -> executor.invokeAny(List.of(() -> "a"), 1, null));
            assertNpeMentions("unit", () -> executor.awaitTermination(1, null));
            assertNpeMentions("unit", () -> executor.submit(() -> "a").get(1, null));
        }
    }

    @Test
    void timedApis_hugeTimeouts_saturateInsteadOfOverflowing() throws Exception {
        assertEquals("x", Futures.await(DONE, Duration.ofSeconds(Long.MAX_VALUE)));
        try (MarlExecutorService executor = new MarlExecutorService(TestSchedulers.config(1))) {
            assertEquals("a", executor.submit(() -> "a").get(Long.MAX_VALUE, TimeUnit.DAYS));
            assertEquals("b", executor.invokeAny(List.of(() -> "b"), Long.MAX_VALUE, TimeUnit.DAYS));
            assertEquals("c", executor.invokeAll(List.of(() -> "c"), Long.MAX_VALUE, TimeUnit.DAYS).get(0).get());
            executor.shutdown();
            assertTrue(executor.awaitTermination(Long.MAX_VALUE, TimeUnit.DAYS));
        }
    }
}
