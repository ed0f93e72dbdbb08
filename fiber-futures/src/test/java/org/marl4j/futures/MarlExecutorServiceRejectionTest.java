package org.marl4j.futures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.marl4j.LogCapture;
import org.marl4j.Scheduler;
import org.marl4j.TestSchedulers;

/**
 * What a rejected task tells its submitter and the log: the exception says why and what to do,
 * and the warning, logged once per kind of rejection, claims only what holds for that kind.
 * Before, a task from a thread not bound to a 0-worker scheduler logged the one warning meant for
 * a shut-down executor ("every later task will be rejected ... after the executor was shut down"),
 * untrue, and used it up, so the real rejection after shutdown went unlogged.
 */
class MarlExecutorServiceRejectionTest {

    private static List<String> warnings(LogCapture log) {
        return log.lines().stream().filter(line -> line.startsWith("WARNING")).toList();
    }

    @Test
    void execute_fromAThreadNotBoundToAZeroWorkerScheduler_saysSo_andLeavesTheShutdownWarning() throws Exception {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(0));
        MarlExecutorService executor = new MarlExecutorService(scheduler);
        try (LogCapture log = LogCapture.of(MarlExecutorService.class)) {
            for (int i = 0; i < 2; i++) {
                RejectedExecutionException unbound = assertThrows(RejectedExecutionException.class, () -> executor.execute(() -> {}));
                String message = unbound.getMessage();
                assertTrue(message.contains("this thread is not bound to") && message.contains("zero worker threads")
                        && message.contains("bind()") && message.contains("setWorkerThreadCount"), message);
                assertInstanceOf(IllegalStateException.class, unbound.getCause(), "the scheduler's own refusal");
            }
            assertFalse(executor.isShutdown());
            List<String> first = warnings(log);
            assertEquals(1, first.size(), "one warning for rejections from unbound threads: " + first);
            assertTrue(first.get(0).contains("not bound") && first.get(0).contains("bound threads")
                    && !first.get(0).contains("shut down") && !first.get(0).contains("Every later task"), first.get(0));

            // A bound thread's task is accepted, as the warning said.
            try (Scheduler.Binding binding = scheduler.bind()) {
                assertEquals(2, executor.submit(() -> 2).get(30, TimeUnit.SECONDS));
            }

            executor.shutdown();
            RejectedExecutionException shutDown = assertThrows(RejectedExecutionException.class, () -> executor.execute(() -> {}));
            assertTrue(shutDown.getMessage().contains("is shut down"), shutDown.getMessage());
            List<String> all = warnings(log);
            assertEquals(2, all.size(), "the shutdown warning was not used up by the other kind: " + all);
            assertTrue(all.get(1).contains("shut down") && all.get(1).contains("Every later task will be rejected"), all.get(1));
            assertTrue(executor.awaitTermination(30, TimeUnit.SECONDS));
        } finally {
            executor.shutdownNow();
            scheduler.close();
        }
    }

    /**
     * A borrowed scheduler closed under a running executor shuts it down: the warning, logged once,
     * says that the scheduler was closed, not that the executor was shut down, and so do the later
     * rejections, an explicit shutdown() notwithstanding.
     */
    @Test
    void execute_onAClosedBorrowedScheduler_warnsOnceOfTheScheduler() throws Exception {
        Scheduler.Config config = TestSchedulers.config(1);
        Scheduler scheduler = new Scheduler(config);
        MarlExecutorService executor = new MarlExecutorService(scheduler);
        scheduler.close();
        try (LogCapture log = LogCapture.of(MarlExecutorService.class)) {
            RejectedExecutionException first = assertThrows(RejectedExecutionException.class, () -> executor.execute(() -> {}));
            assertTrue(first.getMessage().contains("closed"), first.getMessage());
            RejectedExecutionException second = assertThrows(RejectedExecutionException.class, () -> executor.execute(() -> {}));
            assertTrue(second.getMessage().contains("was closed under it"), second.getMessage());
            assertTrue(executor.isShutdown(), "the closed scheduler shut the executor down");
            executor.shutdown(); // no effect: already shut down
            RejectedExecutionException third = assertThrows(RejectedExecutionException.class, () -> executor.execute(() -> {}));
            assertTrue(third.getMessage().contains("was closed under it"), third.getMessage());
            List<String> all = warnings(log);
            assertEquals(1, all.size(), all.toString());
            assertTrue(all.get(0).contains("scheduler this executor borrows was closed")
                    && !all.get(0).contains("executor was shut down or closed"), all.get(0));
            assertTrue(executor.awaitTermination(30, TimeUnit.SECONDS));
        }
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }
}
