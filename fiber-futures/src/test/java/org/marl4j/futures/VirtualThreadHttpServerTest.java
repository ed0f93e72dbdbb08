package org.marl4j.futures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.marl4j.FiberEngine;
import org.marl4j.TestSchedulers;

/**
 * The JDK's {@link HttpServer} on a {@link MarlExecutorService} whose scheduler uses
 * {@link FiberEngine#VIRTUAL_THREADS}: a handler written in the plain thread-per-request style (a
 * ThreadLocal for the request, a blocking call, a {@link Futures#await}) is correct and concurrent
 * on one or two worker threads. Each handler keeps its request id in a ThreadLocal across a 20 ms
 * {@code Thread.sleep} and an await of a future completed 20 ms later, and answers with what it
 * reads back. On {@link FiberEngine#CONTINUATIONS} the handlers of one worker share its
 * ThreadLocal, which the contrast shows.
 */
class VirtualThreadHttpServerTest {
    private static final int REQUESTS = 160;
    private static final Duration BLOCK = Duration.ofMillis(20);
    private static final ThreadLocal<String> REQUEST_ID = new ThreadLocal<>();

    /** What a batch saw: responses whose ThreadLocal was not their own, the most handlers inside their sleep at once, the batch's time. */
    record Batch(int mismatches, int mostSleepingAtOnce, Duration elapsed) {}

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void virtualThreads_handlersKeepTheirOwnThreadLocalAcrossBlockingCalls_andOverlap(int workers) throws Exception {
        Batch batch = serve(FiberEngine.VIRTUAL_THREADS, workers);
        assertEquals(0, batch.mismatches(), () -> "responses that carried another request's id: " + batch);
        // The overlap is counted, not timed: many handlers inside their sleep at once on 1-2 workers.
        assertTrue(batch.mostSleepingAtOnce() >= REQUESTS / 4,
                () -> "handlers inside Thread.sleep at once: " + batch.mostSleepingAtOnce() + " (" + batch + ")");
    }

    /**
     * The contrast: a handler's sleep holds its worker thread (at most one per worker inside it),
     * and the handlers interleaved by Futures.await share the worker's ThreadLocal.
     */
    @Test
    void continuations_handlersShareTheWorkersThreadLocal_andSleepOneAtATime() throws Exception {
        Batch batch = serve(FiberEngine.CONTINUATIONS, 1);
        assertTrue(batch.mismatches() > 0, () -> "on a shared thread some handler should read another's id: " + batch);
        assertEquals(1, batch.mostSleepingAtOnce(), () -> "one worker thread, one sleep at a time: " + batch);
    }

    private static Batch serve(FiberEngine engine, int workers) throws Exception {
        MarlExecutorService executor = new MarlExecutorService(TestSchedulers.config(workers).setFiberEngine(engine));
        assertEquals(engine, executor.scheduler().fiberEngine());
        AtomicInteger sleeping = new AtomicInteger();
        AtomicInteger mostSleeping = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 2 * REQUESTS);
        server.createContext("/id", exchange -> handle(exchange, sleeping, mostSleeping));
        server.setExecutor(executor);
        server.start();
        ExecutorService clientThreads = Executors.newFixedThreadPool(4);
        try (HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .executor(clientThreads)
                .connectTimeout(Duration.ofSeconds(30))
                .build()) {
            String base = "http://127.0.0.1:" + server.getAddress().getPort() + "/id?";
            long start = System.nanoTime();
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                HttpRequest request = HttpRequest.newBuilder(URI.create(base + "request-" + i))
                        .timeout(Duration.ofSeconds(60)).GET().build();
                responses.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
            }
            int mismatches = 0;
            for (int i = 0; i < REQUESTS; i++) {
                HttpResponse<String> response = responses.get(i).get(60, TimeUnit.SECONDS);
                assertEquals(200, response.statusCode(), response::body);
                if (!response.body().equals("request-" + i)) {
                    mismatches++;
                }
            }
            Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
            return new Batch(mismatches, mostSleeping.get(), elapsed);
        } finally {
            server.stop(0);
            executor.close();
            clientThreads.shutdownNow();
            assertTrue(executor.awaitTermination(30, TimeUnit.SECONDS));
        }
    }

    /** The handler, in thread-per-request style: the id lives in a ThreadLocal across two blocking waits. */
    private static void handle(HttpExchange exchange, AtomicInteger sleeping, AtomicInteger mostSleeping)
            throws IOException {
        REQUEST_ID.set(exchange.getRequestURI().getQuery());
        try {
            mostSleeping.accumulateAndGet(sleeping.incrementAndGet(), Math::max);
            try {
                Thread.sleep(BLOCK);
            } catch (InterruptedException e) {
                throw new IOException(e);
            } finally {
                sleeping.decrementAndGet();
            }
            Futures.await(CompletableFuture.supplyAsync(() -> "later",
                    CompletableFuture.delayedExecutor(BLOCK.toMillis(), TimeUnit.MILLISECONDS)));
            byte[] body = String.valueOf(REQUEST_ID.get()).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        } finally {
            REQUEST_ID.remove();
        }
    }
}
