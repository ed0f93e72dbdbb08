package org.marl4j.futures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.marl4j.Event;
import org.marl4j.FiberCancellation;
import org.marl4j.FiberCancelledException;
import org.marl4j.Scheduler;
import org.marl4j.TestSchedulers;

/**
 * close() and awaitTermination() called on a fiber whose waits are cancelled, which can wait for
 * nothing: close() still stops the tasks, as an interrupted thread's close() calls shutdownNow(),
 * so no task is left running unnoticed; awaitTermination() gives up at once, leaving the executor
 * as it was, as an interrupted thread's throws InterruptedException.
 */
class MarlExecutorServiceCancelledCallerTest {
    private static final long PATIENCE_S = TestSchedulers.PATIENCE.toSeconds();

    /** The executor's worker count and ownership; the caller runs on a fiber of another scheduler. */
    static Stream<Arguments> kinds() {
        return Stream.of(Arguments.of(1, false), Arguments.of(1, true), Arguments.of(2, false), Arguments.of(2, true));
    }

    /** Runs body on a fiber of a scheduler of its own (not the executor's), and returns its result. */
    private static <T> T onAnotherSchedulersFiber(Callable<T> body) {
        try (Scheduler other = new Scheduler(TestSchedulers.config(1))) {
            return TestSchedulers.runOnFiber(other, body);
        }
    }

    /**
     * submitAwaitingForever(f, cancelled) submits a task that awaits a future nobody completes,
     * counting in {@code cancelled} the cancellation of its wait, and returns once it waits.
     */
    private static Future<?> submitAwaitingForever(ExecutorFixture f, AtomicInteger cancelled) {
        CompletableFuture<String> never = new CompletableFuture<>();
        Event waiting = new Event(Event.Mode.MANUAL);
        Future<?> running = f.executor.submit(() -> {
            waiting.signal();
            try {
                return Futures.await(never);
            } catch (FiberCancelledException e) {
                cancelled.incrementAndGet();
                throw e;
            }
        });
        waiting.await();
        return running;
    }

    /** assertStoppedByClose(...): close() shut the executor down and cancelled the task's wait, so it terminates. */
    private static void assertStoppedByClose(ExecutorFixture f, AtomicInteger cancelled, Future<?> running) throws Exception {
        assertTrue(f.executor.isShutdown());
        assertTrue(f.executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS),
                "close() gave up without cancelling the running task's waits: " + f.executor);
        assertEquals(1, cancelled.get());
        assertInstanceOf(FiberCancelledException.class,
                assertThrows(ExecutionException.class, running::get).getCause());
    }

    @ParameterizedTest(name = "workers={0}, owned={1}")
    @MethodSource("kinds")
    void close_onACancelledFiber_callsShutdownNow_thenThrowsUnlessThatEndedTheTasks(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            AtomicInteger cancelled = new AtomicInteger();
            Future<?> running = submitAwaitingForever(f, cancelled);
            Optional<FiberCancelledException> thrown = onAnotherSchedulersFiber(() -> {
                try (FiberCancellation scope = FiberCancellation.open()) {
                    scope.cancel();
                    f.executor.close();
                    // Returned: shutdownNow() ended the task (on another worker) before close() gave up.
                    assertTrue(f.executor.isTerminated(), "close() returned before termination");
                    return Optional.empty();
                } catch (FiberCancelledException e) {
                    return Optional.of(e);
                }
            });
            thrown.ifPresent(e -> {
                assertTrue(e.getMessage().contains("shutdownNow()"), e.getMessage());
                assertInstanceOf(FiberCancelledException.class, e.getCause());
            });
            assertStoppedByClose(f, cancelled, running);
        }
    }

    @ParameterizedTest(name = "workers={0}, owned={1}")
    @MethodSource("kinds")
    void close_onAFiberWhoseSchedulerGivesUpOnIt_stopsTheTasks_soBothClosesEnd(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            AtomicInteger cancelled = new AtomicInteger();
            Future<?> running = submitAwaitingForever(f, cancelled);
            Scheduler caller = new Scheduler(TestSchedulers.config(1));
            Event closing = new Event(Event.Mode.MANUAL);
            CompletableFuture<Optional<FiberCancelledException>> outcome = TestSchedulers.onFiber(caller, () -> {
                closing.signal();
                try {
                    f.executor.close(); // waits for `running`, which only a cancellation ends
                    return Optional.empty();
                } catch (FiberCancelledException e) {
                    return Optional.of(e);
                }
            });
            closing.await();
            // The caller's own scheduler gives up on it: its wait in close() is cancelled, as an
            // interrupt ends a thread's, and close() must then stop the tasks rather than leave them.
            caller.close(Duration.ofMillis(50));
            TestSchedulers.get(outcome).ifPresent(e -> assertTrue(e.getMessage().contains("shutdownNow()"), e.getMessage()));
            assertStoppedByClose(f, cancelled, running);
        }
    }

    @ParameterizedTest(name = "workers={0}, owned={1}")
    @MethodSource("kinds")
    void close_onACancelledFiber_ofATerminatedExecutor_returns(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            f.executor.shutdown();
            assertTrue(f.executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS));
            onAnotherSchedulersFiber(() -> {
                try (FiberCancellation scope = FiberCancellation.open()) {
                    scope.cancel();
                    f.executor.close();
                    return f.executor.awaitTermination(1, TimeUnit.DAYS);
                }
            });
        }
    }

    @ParameterizedTest(name = "workers={0}, owned={1}")
    @MethodSource("kinds")
    void awaitTermination_onACancelledFiber_throwsAtOnce_andLeavesTheExecutorRunning(int workers, boolean owned)
            throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            Event release = new Event(Event.Mode.MANUAL);
            Future<?> running = f.executor.submit(() -> {
                release.await();
                return null;
            });
            f.executor.shutdown();
            onAnotherSchedulersFiber(() -> {
                try (FiberCancellation scope = FiberCancellation.open()) {
                    scope.cancel();
                    assertThrows(FiberCancelledException.class, () -> f.executor.awaitTermination(1, TimeUnit.DAYS));
                    assertFalse(f.executor.awaitTermination(0, TimeUnit.SECONDS), "an elapsed timeout needs no wait");
                    return null;
                }
            });
            assertFalse(running.isDone(), "awaitTermination cancelled a task");
            release.signal();
            running.get(PATIENCE_S, TimeUnit.SECONDS);
            assertTrue(f.executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS));
        }
    }
}
