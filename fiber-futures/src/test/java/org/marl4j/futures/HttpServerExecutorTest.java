package org.marl4j.futures;

import org.marl4j.TestSchedulers;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
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
import org.marl4j.Fiber;

/**
 * A real loopback {@link HttpServer} whose executor is a MarlExecutorService with 2 worker
 * threads, and whose handler awaits a CompletableFuture with {@link Futures#await}. 200 requests
 * are in flight at once, and the future is completed (from the test thread) only after all 200
 * handlers have started waiting: possible only because each wait suspends a fiber, not one of the
 * 2 threads. Runs with the scheduler's lock check on, so a handler that suspended while the
 * server's code held a monitor would fail.
 */
class HttpServerExecutorTest {
    private static final int REQUESTS = 200;
    private static final int WORKERS = 2;

    @Test
    void httpServer_onMarlExecutor_handlesMoreConcurrentAwaitingRequestsThanWorkers() throws Exception {
        MarlExecutorService executor;
        System.setProperty("org.marl4j.checkLocks", "true"); // read when the scheduler is constructed
        try {
            executor = new MarlExecutorService(TestSchedulers.config(WORKERS));
        } finally {
            System.clearProperty("org.marl4j.checkLocks");
        }
        CompletableFuture<String> gate = new CompletableFuture<>();
        AtomicInteger waiting = new AtomicInteger();
        AtomicInteger offFiber = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 2 * REQUESTS);
        server.createContext("/echo", exchange -> {
            if (Fiber.current() == null) {
                offFiber.incrementAndGet();
            }
            String query = exchange.getRequestURI().getQuery();
            waiting.incrementAndGet();
            String greeting = Futures.await(gate); // suspends this fiber; the 2 threads serve the others
            byte[] body = (greeting + " " + query).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.setExecutor(executor);
        server.start();
        ExecutorService clientThreads = Executors.newFixedThreadPool(4);
        try (HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .executor(clientThreads)
                .connectTimeout(Duration.ofSeconds(30))
                .build()) {
            URI base = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/echo?n=");
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                HttpRequest request = HttpRequest.newBuilder(URI.create(base.toString() + i))
                        .timeout(Duration.ofSeconds(60)).GET().build();
                responses.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
            }
            await().atMost(Duration.ofSeconds(40)).until(() -> waiting.get() == REQUESTS);
            gate.complete("hello"); // from the test thread: a foreign completion wakes 200 fibers
            for (int i = 0; i < REQUESTS; i++) {
                HttpResponse<String> response = responses.get(i).get(60, TimeUnit.SECONDS);
                assertEquals(200, response.statusCode());
                assertEquals("hello n=" + i, response.body());
            }
            assertEquals(0, offFiber.get(), "every exchange is handled on a fiber");
        } finally {
            server.stop(0);
            executor.close();
            clientThreads.shutdownNow();
        }
        assertTrue(executor.isTerminated());
    }
}
