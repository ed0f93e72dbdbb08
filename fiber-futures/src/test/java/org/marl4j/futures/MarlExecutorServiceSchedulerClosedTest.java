package org.marl4j.futures;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.marl4j.Event;
import org.marl4j.ForEachWorkerCount;
import org.marl4j.Scheduler;
import org.marl4j.TestSchedulers;

/**
 * A scheduler closed under the executor that borrows it shuts that executor down, as
 * java.util.concurrent users expect: isShutdown() is true once no new task can be accepted, and the
 * executor terminates once the tasks it accepted have finished. Before, isShutdown() stayed false
 * (and isTerminated() with it, and awaitTermination waited out its timeout) while every task was
 * rejected.
 */
class MarlExecutorServiceSchedulerClosedTest {
    private static final long PATIENCE_S = TestSchedulers.PATIENCE.toSeconds();

    @ForEachWorkerCount
    void isShutdown_andIsTerminated_onceTheBorrowedSchedulerIsClosed(int workers) throws Exception {
        Scheduler.Config config = TestSchedulers.config(workers);
        Scheduler scheduler = new Scheduler(config);
        MarlExecutorService executor = new MarlExecutorService(scheduler);
        try (Scheduler.Binding binding = workers == 0 ? scheduler.bind() : null) {
            Future<Integer> ran = executor.submit(() -> 42);
            assertEquals(42, ran.get(PATIENCE_S, TimeUnit.SECONDS));
        }
        assertFalse(executor.isShutdown());
        scheduler.close();
        assertTrue(executor.isShutdown(), "no new task can be accepted: " + executor);
        assertTrue(executor.isTerminated(), "every accepted task has finished: " + executor);
        assertTrue(executor.awaitTermination(0, TimeUnit.SECONDS));
        RejectedExecutionException rejected = assertThrows(RejectedExecutionException.class, () -> executor.execute(() -> {}));
        assertTrue(rejected.getMessage().contains("closed"), rejected.getMessage());
        executor.close(); // returns at once
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    /** The rejection that reveals the closed scheduler already shuts the executor down: isShutdown() need not be asked first. */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 8})
    void isTerminated_afterARejectionByTheClosedScheduler(int workers) {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(workers));
        MarlExecutorService executor = new MarlExecutorService(scheduler);
        scheduler.close();
        assertThrows(RejectedExecutionException.class, () -> executor.execute(() -> {}));
        assertTrue(executor.isTerminated(), executor.toString());
    }

    /** An awaitTermination that began before the scheduler's close returns true once that close has ended the executor. */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 8, 64})
    void awaitTermination_begunBeforeTheSchedulerCloses_returnsTrue(int workers) throws Exception {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(workers));
        MarlExecutorService executor = new MarlExecutorService(scheduler);
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        Thread waiter = TestSchedulers.startThread("awaiter", () -> {
            try {
                answer.complete(executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS));
            } catch (Throwable t) {
                answer.completeExceptionally(t);
            }
        });
        await().atMost(TestSchedulers.PATIENCE).until(() -> waiter.getState() != Thread.State.RUNNABLE
                && waiter.getState() != Thread.State.NEW);
        scheduler.close();
        assertTrue(answer.get(PATIENCE_S / 2, TimeUnit.SECONDS), "awaitTermination's answer");
        assertTrue(executor.isTerminated());
    }

    /**
     * While the scheduler's close waits for a task the executor accepted, the executor is shut down
     * but not terminated; it terminates when that task finishes, which the close then sees.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 8})
    void aTaskAcceptedBeforeTheClose_stillRuns_andTheExecutorTerminatesAfterIt(int workers) throws Exception {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(workers));
        MarlExecutorService executor = new MarlExecutorService(scheduler);
        Event release = new Event(Event.Mode.MANUAL);
        CompletableFuture<Void> started = new CompletableFuture<>();
        Future<String> task = executor.submit(() -> {
            started.complete(null);
            release.await();
            return "done";
        });
        TestSchedulers.get(started);
        Thread closer = TestSchedulers.startThread("closer", scheduler::close);
        await().atMost(TestSchedulers.PATIENCE).until(executor::isShutdown);
        assertFalse(executor.isTerminated(), "a task is still running");
        assertFalse(executor.awaitTermination(1, TimeUnit.MILLISECONDS));
        release.signal();
        assertEquals("done", task.get(PATIENCE_S, TimeUnit.SECONDS));
        assertTrue(executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS));
        closer.join(TestSchedulers.PATIENCE.toMillis());
        assertFalse(closer.isAlive());
    }
}
