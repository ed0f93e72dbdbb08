package org.marl4j.benchmarks;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.marl4j.futures.Futures;
import org.marl4j.futures.MarlExecutorService;

/**
 * End-to-end drop-in: the JDK's {@link HttpServer} on 127.0.0.1 with an executor, whose handler
 * waits for a future that a backend completes ~1 ms later, under N concurrent keep-alive
 * connections. The load generator is {@link KeepAliveLoad}, one NIO selector thread in the same
 * JVM (the same cost for every executor): each connection sends a GET, waits for the whole
 * response, records its latency and sends the next, for a fixed time after a warm-up.
 *
 * <p>A plain {@code main} run in a fresh JVM per case by {@link RunSuite}:
 * {@code HttpBenchmark <marl4j|virtualThreads|fixed200> <connections> [warmupSeconds] [seconds]}.
 * Prints {@code requestsPerSecond=...}, {@code p50Micros=...} and {@code p99Micros=...}.
 * The marl4j case uses {@link MarlExecutorService} over two worker threads, with the fiber engine
 * {@code -Dbench.engine=VIRTUAL_THREADS|CONTINUATIONS} names, and {@link Futures#await};
 * the baselines call {@code join()} on the future.
 *
 * <p>{@code -Dhttp.handler=sleep}: the handler makes a plain 1 ms blocking call instead,
 * {@code Thread.sleep(1)} (a JDBC call's stand-in), on every executor alike: on marl4j's
 * VIRTUAL_THREADS engine it suspends the fiber, on CONTINUATIONS it holds a worker thread.
 */
public final class HttpBenchmark {
    /** The backend's delay before it completes a handler's future. */
    static final long BACKEND_MICROS = 1_000;
    private static final byte[] BODY = "ok".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REQUEST = ("GET /work HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);

    private HttpBenchmark() {}

    public static void main(String[] args) throws Exception {
        String what = args.length > 0 ? args[0] : "marl4j";
        int connections = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        boolean marl = what.equals("marl4j");
        boolean sleep = System.getProperty("http.handler", "await").equals("sleep");
        // The JDK server closes idle keep-alive connections beyond 200 by default; a client with 1,000
        // connections always has more than 200 between requests. Read once, when the server class loads.
        System.setProperty("sun.net.httpserver.maxIdleConnections", "4096");
        ExecutorService executor = switch (what) {
            // -Dhttp.spinMicros=N overrides the workers' spin duration (default: marl's 1 ms), to measure
            // what spinning costs when the server's other threads need the cores.
            case "marl4j" -> new MarlExecutorService(BenchSupport.newConfig(2, BenchSupport.mainEngine()).setSpinDuration(
                    java.time.Duration.ofNanos(1_000 * Long.getLong("http.spinMicros", 1_000))));
            case "virtualThreads" -> Executors.newVirtualThreadPerTaskExecutor();
            case "fixed200" -> Executors.newFixedThreadPool(200);
            default -> throw new IllegalArgumentException(
                    "usage: HttpBenchmark marl4j|virtualThreads|fixed200 <connections> [warmupSeconds] [seconds]");
        };
        ScheduledExecutorService backend = Executors.newSingleThreadScheduledExecutor();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 4096);
        server.createContext("/work", sleep ? HttpBenchmark::handleSleeping : exchange -> handle(exchange, backend, marl));
        server.setExecutor(executor);
        server.start();
        try {
            KeepAliveLoad load = new KeepAliveLoad(server.getAddress(), connections, (conn, seq) -> REQUEST);
            load.run(TimeUnit.SECONDS.toNanos(warmup), false);
            load.run(TimeUnit.SECONDS.toNanos(seconds), true);
            load.report(seconds);
            load.close();
            if (executor instanceof MarlExecutorService marlExecutor) {
                // Idle sleeps against requests: how often a hand-off found a worker asleep (a futex wake).
                System.out.println("marl4j engine " + marlExecutor.scheduler().fiberEngine() + ": "
                        + marlExecutor.scheduler().stats());
            }
        } finally {
            server.stop(0);
            backend.shutdownNow();
            executor.shutdownNow();
        }
    }

    private static void handle(HttpExchange exchange, ScheduledExecutorService backend, boolean marl) throws IOException {
        try (exchange) {
            CompletableFuture<byte[]> reply = new CompletableFuture<>();
            backend.schedule(() -> reply.complete(BODY), BACKEND_MICROS, TimeUnit.MICROSECONDS);
            byte[] body = marl ? Futures.await(reply) : reply.join();
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** handleSleeping(exchange) answers after a plain blocking call of BACKEND_MICROS: Thread.sleep. */
    private static void handleSleeping(HttpExchange exchange) throws IOException {
        try (exchange) {
            try {
                Thread.sleep(BACKEND_MICROS / 1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            exchange.sendResponseHeaders(200, BODY.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(BODY);
            }
        }
    }
}
