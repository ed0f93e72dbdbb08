package org.marl4j.futures;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.marl4j.Event;
import org.marl4j.LogCapture;
import org.marl4j.Task;
import org.marl4j.TestSchedulers;

/**
 * MarlExecutorService edge cases: waiting for termination from a fiber of the
 * scheduler the executor owns, and making rejected tasks visible in the log.
 */
class MarlExecutorServiceOwnSchedulerTest {
    /** How long a test gives a released task to run on a crowded machine: a timeout it waits out. */
    private static final long TASKS_RUN_WITHIN_S = 3; // under the 5 s after which the scheduler's close() logs a warning
    /** A timeout a test waits out. */
    private static final long SHORT_MS = 50;

    /**
     * awaitTermination from a fiber of the owned scheduler (not one of the executor's tasks) with no
     * tasks left returns false, and only after its timeout, as a ThreadPoolExecutor's from one of
     * its own threads: the executor cannot terminate (close its scheduler) while that fiber runs.
     * Before, it returned true while isTerminated() was still false. Once the fiber has returned,
     * the executor terminates by itself: nothing deadlocked.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4, 8, 64}) // an owned scheduler always has worker threads
    void awaitTermination_onAFiberOfTheOwnedScheduler_returnsFalseAfterItsTimeout(int workers) {
        MarlExecutorService executor = new MarlExecutorService(TestSchedulers.config(workers));
        CompletableFuture<String> ran = new CompletableFuture<>();
        executor.execute(() -> ran.complete("task"));
        CompletableFuture<List<Object>> answer = new CompletableFuture<>();
        executor.scheduler().enqueue(new Task(() -> {
            executor.shutdown();
            try {
                long start = System.nanoTime();
                boolean terminated = executor.awaitTermination(SHORT_MS, TimeUnit.MILLISECONDS);
                boolean waitedOut = System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(SHORT_MS);
                answer.complete(List.of(terminated, executor.isTerminated(), waitedOut));
            } catch (Throwable t) {
                answer.completeExceptionally(t);
            }
        }));
        assertEquals(List.of(false, false, true), TestSchedulers.get(answer),
                "awaitTermination's answer, isTerminated() after it, whether it waited its whole timeout");
        assertEquals("task", TestSchedulers.get(ran));
        await().atMost(TestSchedulers.PATIENCE).until(executor::isTerminated);
    }

    /**
     * While a fiber of the owned scheduler waits in awaitTermination, its only worker thread runs
     * the executor's other tasks: the fiber is suspended, the thread not blocked. Were the thread
     * blocked, the task could only finish after the wait, which sees it unfinished. The test takes
     * the wait's timeout, long enough for the released task to run on a crowded machine.
     */
    @Test
    void awaitTermination_onAFiberOfTheOwnedScheduler_leavesTheWorkerThreadToOtherTasks() throws Exception {
        MarlExecutorService executor = new MarlExecutorService(TestSchedulers.config(1));
        CompletableFuture<Void> release = new CompletableFuture<>();
        CompletableFuture<String> ran = new CompletableFuture<>();
        executor.execute(() -> ran.complete("task after " + Futures.await(release)));
        CompletableFuture<Void> waiting = new CompletableFuture<>();
        CompletableFuture<List<Object>> answer = new CompletableFuture<>();
        executor.scheduler().enqueue(new Task(() -> {
            executor.shutdown();
            waiting.complete(null);
            try {
                boolean terminated = executor.awaitTermination(TASKS_RUN_WITHIN_S, TimeUnit.SECONDS);
                answer.complete(List.of(terminated, ran.isDone()));
            } catch (Throwable t) {
                answer.completeExceptionally(t);
            }
        }));
        TestSchedulers.get(waiting);
        release.complete(null); // the task resumes on the one worker thread, while the fiber above waits
        assertEquals(List.of(false, true), TestSchedulers.get(answer), "awaitTermination's answer, whether the task ran meanwhile");
        assertEquals("task after null", TestSchedulers.get(ran));
        await().atMost(TestSchedulers.PATIENCE).until(executor::isTerminated);
    }

    /**
     * close() on a fiber of the owned scheduler that is not one of the executor's tasks cannot wait
     * for termination (it would wait for itself): as its javadoc says, it returns once every task has
     * finished, shut down but not yet terminated, and the executor terminates once the caller returns.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4, 8, 64})
    void close_onAFiberOfTheOwnedScheduler_returnsOnceTasksAreDone(int workers) {
        MarlExecutorService executor = new MarlExecutorService(TestSchedulers.config(workers));
        Event release = new Event(Event.Mode.MANUAL);
        CompletableFuture<String> ran = new CompletableFuture<>();
        executor.execute(() -> {
            release.await();
            ran.complete("task");
        });
        CompletableFuture<List<Boolean>> closed = new CompletableFuture<>();
        executor.scheduler().enqueue(new Task(() -> {
            release.signal(); // the task can finish only now, on a worker, while close() waits
            executor.close();
            closed.complete(List.of(ran.isDone(), executor.isShutdown(), executor.isTerminated()));
        }));
        assertEquals(List.of(true, true, false), TestSchedulers.get(closed),
                "when close() returned: the task had finished, the executor was shut down, not yet terminated");
        assertEquals("task", TestSchedulers.get(ran));
        await().atMost(TestSchedulers.PATIENCE).until(executor::isTerminated);
        TestSchedulers.assertNoThreadsLeft(executor.scheduler().config().getThreadNamePrefix());
    }

    // ---------------------------------------------------------------- rejections are logged

    @Test
    void execute_afterShutdown_logsTheFirstRejectionOnceAtWarning() {
        try (LogCapture log = LogCapture.of(MarlExecutorService.class)) {
            MarlExecutorService executor = new MarlExecutorService(TestSchedulers.config(1));
            executor.close();
            for (int i = 0; i < 3; i++) {
                assertThrows(RejectedExecutionException.class, () -> executor.execute(() -> {}));
            }
            List<LogRecord> warnings = log.warnings();
            assertEquals(1, warnings.size(), "one WARNING for the first rejection only");
            String message = warnings.get(0).getMessage();
            assertTrue(message.contains("Rejected a task") && message.contains("shut down")
                    && message.contains("server.stop"), message);
            assertTrue(warnings.get(0).getThrown() instanceof RejectedExecutionException);
        }
    }

    /** The README's mistake: the executor closed under a running HttpServer. The log now says so. */
    @Test
    void httpServer_whoseExecutorWasClosed_getsTheRejectionLoggedAtWarning() throws IOException {
        try (LogCapture log = LogCapture.of(MarlExecutorService.class)) {
            MarlExecutorService executor = new MarlExecutorService(TestSchedulers.config(1));
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/", exchange -> {
                exchange.sendResponseHeaders(204, -1);
                exchange.close();
            });
            server.setExecutor(executor);
            server.start();
            executor.close(); // the mistake: the server still runs
            try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()) {
                HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + server.getAddress().getPort() + "/")).timeout(Duration.ofSeconds(10)).build();
                try {
                    client.send(request, HttpResponse.BodyHandlers.discarding());
                } catch (IOException | InterruptedException expected) {
                    // the server cannot answer: its executor rejects the exchange
                }
            } finally {
                server.stop(0);
            }
            await().atMost(TestSchedulers.PATIENCE).until(() -> log.warnings().size() == 1);
        }
    }
}
