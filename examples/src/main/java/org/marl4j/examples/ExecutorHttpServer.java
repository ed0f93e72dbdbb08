package org.marl4j.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.marl4j.Scheduler;
import org.marl4j.futures.Futures;
import org.marl4j.futures.MarlExecutorService;

/**
 * ExecutorHttpServer is the README's "hand marl4j to code that takes an Executor" snippet:
 * {@link MarlExecutorService} under {@code CompletableFuture}'s async methods and under the JDK's
 * {@link HttpServer}, whose handler awaits an asynchronous lookup on a fiber. The server serves one
 * request from a client, then stops before the executor closes.
 */
public final class ExecutorHttpServer {
    private ExecutorHttpServer() {}

    /**
     * main runs the snippet.
     *
     * @param args ignored
     * @throws Exception if the server cannot start or the request fails
     */
    public static void main(String[] args) throws Exception {
        // readme:begin http-executor
        try (MarlExecutorService executor = new MarlExecutorService(Scheduler.Config.allCores())) {
            CompletableFuture<Integer> n = CompletableFuture.supplyAsync(() -> Integer.parseInt("41"), executor)
                    .thenApplyAsync(x -> x + 1, executor);
            System.out.println("n = " + n.join());

            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/", exchange -> reply(exchange, Futures.await(lookup(exchange)))); // on a fiber
            server.setExecutor(executor);             // a waiting exchange holds a fiber, not a thread
            server.start();
            try (HttpClient client = HttpClient.newHttpClient()) {
                URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/marl4j");
                System.out.println(client.send(HttpRequest.newBuilder(uri).build(), BodyHandlers.ofString()).body());
            } finally {
                server.stop(1);                       // stop first: in-flight exchanges finish (1 s at most)
            }
        }   // then close(): the executor runs its remaining tasks and closes the scheduler it owns
        // readme:end http-executor
    }

    /** lookup stands in for an asynchronous call (a database driver, an HTTP client). */
    private static CompletableFuture<String> lookup(HttpExchange exchange) {
        String path = exchange.getRequestURI().getPath();
        return CompletableFuture.supplyAsync(() -> "hello from " + path,
                CompletableFuture.delayedExecutor(2, TimeUnit.MILLISECONDS));
    }

    private static void reply(HttpExchange exchange, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }
}
