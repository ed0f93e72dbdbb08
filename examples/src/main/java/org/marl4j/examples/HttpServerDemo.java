package org.marl4j.examples;

import com.sun.net.httpserver.HttpServer;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.marl4j.Scheduler;
import org.marl4j.futures.Futures;
import org.marl4j.futures.MarlExecutorService;

/**
 * HttpServerDemo is the demo's first stage: the JDK's own {@link HttpServer}, unchanged, whose
 * handler awaits a backend reply that arrives about 1 ms later, served in turn by three executors:
 * a {@link MarlExecutorService}, a virtual thread per task, and a fixed pool of as many threads as
 * marl4j has workers. A built-in load of keep-alive clients on 127.0.0.1 measures each for the same
 * time; the stage prints throughput and latency percentiles side by side.
 *
 * <p>Each server's measured time is split into as many rounds as there are servers, and the order
 * of the servers turns by one each round ({@link #inTurn}), so each is measured first once. Why: the
 * three share one JVM, and measured once each in a fixed order, the first server measured read
 * 0.4-0.6 times what it read when measured second, whichever server it was (marl4j, first, read
 * 0.43-0.49 times virtual threads; virtual threads put first read 0.53-0.94 times marl4j). That
 * was a verdict on the order, not on the executors.
 */
final class HttpServerDemo {
    /** The response the backend's timer completes; the same for every request. */
    private static final String VALUE = "value";

    private HttpServerDemo() {}

    /**
     * Settings for one run: how many clients, for how long, and how long the backend takes.
     *
     * @param clients concurrent keep-alive connections, each sending one request at a time
     * @param warmup each server's share of the unmeasured warm-up pass (JIT, connection set-up)
     * @param measure how long requests are counted
     * @param backendDelay the backend's reply time
     */
    record Load(int clients, Duration warmup, Duration measure, Duration backendDelay) {
        /** The README demo's load: 64 clients, 1 s warm-up per server, 4 s measured, a 1 ms backend. */
        static Load standard() {
            return new Load(64, Duration.ofSeconds(1), Duration.ofSeconds(4), Duration.ofMillis(1));
        }
    }

    /** One server's numbers. */
    record Result(String executor, long requests, long errors, double seconds, long p50Nanos, long p99Nanos) {
        double perSecond() {
            return requests / seconds;
        }
    }

    /**
     * serverConfig is marl4j's configuration for the demo's servers: every core, and no spinning.
     * By default a worker out of work spins for up to 1 ms (marl's choice) before it sleeps. Here
     * every core is busy with useful work: the workers, the server's dispatcher, the backend's
     * timer and the load generator. A spinning worker then takes a core from one of them. In this
     * demo on two cores, over alternating runs, marl4j with the 1 ms spin served a median of 0.83x
     * virtual threads' requests/s; without spinning, 1.03x. Spins of 2-20 µs were not much better.
     */
    static Scheduler.Config serverConfig() {
        return Scheduler.Config.allCores().setSpinDuration(Duration.ZERO);
    }

    /** run serves the load with each executor in turn and prints the comparison to {@code out}. */
    static List<Result> run(PrintStream out, Load load) throws Exception {
        int threads = Scheduler.Config.allCores().getWorkerThreadCount();
        out.printf(Locale.ROOT, "The same HttpServer and handler; the handler awaits a backend reply that takes %d ms.%n"
                + "marl4j's workers do not spin for work here: the server's own threads need the cores (docs/performance.md).%n",
                load.backendDelay().toMillis());
        List<Named> servers = List.of(
                new Named("marl4j MarlExecutorService (" + threads + " workers, no spin)",
                        () -> new MarlExecutorService(serverConfig())),
                new Named("virtual thread per task", Executors::newVirtualThreadPerTaskExecutor),
                new Named("fixed thread pool (" + threads + " threads)", () -> Executors.newFixedThreadPool(threads)));
        List<Result> results = measure(out, servers, load, Backend.AWAITED);
        out.print(summary(results, threads, load));
        return results;
    }

    /**
     * measure serves {@code load} with each server in turn, through a handler that calls
     * {@code backend}, prints a table of their numbers and returns them, in the order given.
     */
    static List<Result> measure(PrintStream out, List<Named> servers, Load load, Backend backend) throws Exception {
        int rounds = servers.size();
        out.printf(Locale.ROOT, "%d keep-alive clients on 127.0.0.1; after a warm-up pass, each server is measured %.1f s,%n"
                + "in %d rounds that take the servers in turn.%n%n", load.clients(), load.measure().toMillis() / 1e3, rounds);
        // A first, unmeasured pass gets the JIT through the server, client and executor code.
        Load pass = new Load(load.clients(), Duration.ZERO, load.warmup(), load.backendDelay());
        for (Named server : servers) {
            serve(server, pass, backend);
        }
        Load round = new Load(load.clients(), Duration.ofMillis(load.warmup().toMillis() / 4),
                load.measure().dividedBy(rounds), load.backendDelay());
        List<Sample> samples = new ArrayList<>();
        for (int i = 0; i < servers.size(); i++) {
            samples.add(new Sample());
        }
        for (int r = 0; r < rounds; r++) {
            for (int s : inTurn(r, servers.size())) {
                samples.get(s).add(serve(servers.get(s), round, backend));
            }
        }
        out.printf(Locale.ROOT, "%-46s %12s %9s %9s%n", "executor", "requests/s", "p50 ms", "p99 ms");
        List<Result> results = new ArrayList<>();
        for (int s = 0; s < servers.size(); s++) {
            Result result = samples.get(s).result(servers.get(s).name(), round.measure().toNanos() * rounds / 1e9);
            results.add(result);
            out.printf(Locale.ROOT, "%-46s %,12.0f %9.2f %9.2f%s%n", result.executor(), result.perSecond(),
                    result.p50Nanos() / 1e6, result.p99Nanos() / 1e6,
                    result.errors() == 0 ? "" : "   (" + result.errors() + " failed requests)");
        }
        out.println();
        return results;
    }

    /**
     * inTurn(round, servers) is the order in which round {@code round} measures the servers
     * (indexes): every server once, starting with server {@code round % servers} and going round.
     */
    static int[] inTurn(int round, int servers) {
        int[] order = new int[servers];
        for (int k = 0; k < servers; k++) {
            order[k] = (round + k) % servers;
        }
        return order;
    }

    /**
     * summary says what a newcomer should look at, from the measured numbers: the rows are compared
     * as they came out, so nothing it says can be contradicted by the table above it.
     *
     * @param results marl4j's, the virtual threads' and the fixed pool's results, in that order
     * @param threads marl4j's worker threads, and the fixed pool's threads
     */
    static String summary(List<Result> results, int threads, Load load) {
        Result marl = results.get(0);
        Result virtual = results.get(1);
        Result pool = results.get(2);
        double delayMillis = load.backendDelay().toNanos() / 1e6;
        double poolCeiling = threads * 1000 / delayMillis;
        double overPool = marl.perSecond() / Math.max(1e-9, pool.perSecond());
        double overVirtual = marl.perSecond() / Math.max(1e-9, virtual.perSecond());
        StringBuilder text = new StringBuilder();
        text.append(String.format(Locale.ROOT, """
                What to look at. The handler is the same code on all three servers: it calls
                Futures.await(backend), a future completed about %s ms later. On a marl4j worker that
                suspends the request's fiber and the %d worker threads go on serving other requests;
                on a plain thread the same call blocks the thread.
                """, formatMillis(delayMillis), threads));
        text.append(String.format(Locale.ROOT, """

                1. marl4j against the fixed pool of the same %d threads: %.2fx its requests/s, p99 %.1f ms
                   against %.1f ms. The pool's threads sit blocked in the await, so it cannot pass about
                   %,.0f requests/s (%d threads / %s ms) and its latency is mostly queueing.
                """, threads, overPool, marl.p99Nanos() / 1e6, pool.p99Nanos() / 1e6, poolCeiling, threads,
                formatMillis(delayMillis)));
        if (marl.perSecond() > poolCeiling * 1.05) {
            text.append("   marl4j went past that ceiling on the same number of threads: this is the point of the demo.\n");
        } else if (overPool >= 1.2) {
            text.append("""
                       marl4j served more, but both stayed under the pool's ceiling: here the cores (shared
                       with the load generator) limited them first. A longer backend delay lowers the
                       pool's ceiling and not marl4j's, and shows the difference more plainly.
                    """);
        } else if (overPool >= 0.95) {
            text.append("""
                       Here the two were about even: the machine was probably too busy to tell them apart
                       (the load generator shares its cores). Run the demo again on a quieter machine.
                    """);
        } else {
            text.append("""
                       Here marl4j served less than the pool. With the cores this busy, the executors'
                       cost per request most likely decided, not the blocked threads, and marl4j's scheduler
                       can spend more per hand-off than a plain pool today (see benchmarks/README.md).
                       Run the demo again on a quieter machine to see the blocked threads' limit.
                    """);
        }
        text.append(String.format(Locale.ROOT, """

                2. marl4j against a virtual thread per task: %.2fx its requests/s.
                """, overVirtual));
        if (overVirtual < 0.9) {
            text.append("""
                       Virtual threads served more here. The two cores are shared by the load generator,
                       the server's dispatcher thread and the backend's timer, and single runs on a busy
                       machine vary by 10-15%: run the demo again before you read much into it
                       (docs/performance.md has medians of many runs). What marl4j adds is not raw speed over
                       virtual threads: it is a fixed set of threads you own and size, marl's primitives
                       (WaitGroup, Event, Ticket, ...) for the waits, and the same code under Reactor and
                       Kotlin (below).
                    """);
        } else if (overVirtual <= 1.1) {
            text.append("   About the same: both suspend the waiting request instead of blocking a thread.\n");
        } else {
            text.append("   marl4j served more here, on its fixed set of threads.\n");
        }
        text.append("""

                Numbers vary a lot on a busy machine (the load generator, the server's dispatcher thread
                and the executor share the cores): compare the rows, not the absolute figures.
                """);
        return text.toString();
    }

    private static String formatMillis(double millis) {
        return millis == Math.rint(millis) ? String.valueOf((long) millis) : String.format(Locale.ROOT, "%.1f", millis);
    }

    /** A server's executor, by name. */
    record Named(String name, Supplier<ExecutorService> executors) {}

    /** How the handler waits for its backend's reply. */
    enum Backend {
        /** {@code Futures.await} on a future a timer completes: a fiber suspends, a plain thread blocks. */
        AWAITED,
        /** a plain {@code Thread.sleep}, as a JDBC call blocks: a virtual thread (or such a fiber) suspends. */
        BLOCKING
    }

    /** serve serves {@code load} with one executor and returns what its clients measured. */
    private static Sample serve(Named named, Load load, Backend kind) throws Exception {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "backend-timer");
            t.setDaemon(true);
            return t;
        });
        long delayNanos = load.backendDelay().toNanos();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
        try (ExecutorService executor = named.executors().get()) {
            server.createContext("/", exchange -> {
                byte[] body = (kind == Backend.BLOCKING ? blockingBackend(delayNanos) : awaitedBackend(timer, delayNanos))
                        .getBytes(StandardCharsets.US_ASCII);
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream response = exchange.getResponseBody()) {
                    response.write(body);
                }
            });
            server.setExecutor(executor);
            server.start();
            try {
                return drive(server.getAddress().getPort(), load);
            } finally {
                // The clients are gone, so no exchange is in flight: a delay would only wait out its time.
                server.stop(0);
            }
        } finally {
            timer.shutdownNow();
        }
    }

    /** awaitedBackend awaits a future that the timer thread completes about delayNanos later. */
    private static String awaitedBackend(ScheduledExecutorService timer, long delayNanos) {
        CompletableFuture<String> backend = new CompletableFuture<>();
        timer.schedule(() -> backend.complete(VALUE), delayNanos, TimeUnit.NANOSECONDS);
        return Futures.await(backend);
    }

    /** blockingBackend sleeps for delayNanos, as a blocking JDBC call would hold its caller. */
    private static String blockingBackend(long delayNanos) throws IOException {
        try {
            Thread.sleep(Duration.ofNanos(delayNanos));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted in the backend call", e);
        }
        return VALUE;
    }

    /** drive runs the clients, each on a virtual thread, and gathers their latencies. */
    private static Sample drive(int port, Load load) throws InterruptedException {
        long start = System.nanoTime();
        long measureFrom = start + load.warmup().toNanos();
        long end = measureFrom + load.measure().toNanos();
        Client[] clients = new Client[load.clients()];
        AtomicLong errors = new AtomicLong();
        Thread[] threads = new Thread[clients.length];
        for (int i = 0; i < clients.length; i++) {
            clients[i] = new Client(port, "/item/" + i, measureFrom, end, errors);
            threads[i] = Thread.ofVirtual().name("client-" + i).start(clients[i]);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        Sample sample = new Sample();
        for (Client client : clients) {
            sample.add(client.latencies, client.count);
        }
        sample.errors = errors.get();
        return sample;
    }

    /** Sample is the latencies and errors one server's clients measured, over one or more rounds. */
    private static final class Sample {
        long[] latencies = new long[0];
        int count;
        long errors;

        void add(long[] more, int n) {
            if (count + n > latencies.length) {
                latencies = Arrays.copyOf(latencies, Math.max(count + n, 2 * latencies.length));
            }
            System.arraycopy(more, 0, latencies, count, n);
            count += n;
        }

        void add(Sample other) {
            add(other.latencies, other.count);
            errors += other.errors;
        }

        Result result(String executor, double seconds) {
            long[] sorted = Arrays.copyOf(latencies, count);
            Arrays.sort(sorted);
            return new Result(executor, count, errors, seconds, percentile(sorted, 0.50), percentile(sorted, 0.99));
        }
    }

    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    /** Client is one keep-alive connection sending GETs back to back until the end time. */
    private static final class Client implements Runnable {
        private final int port;
        private final byte[] request;
        private final long measureFrom;
        private final long end;
        private final AtomicLong errors;
        /** Latencies of requests started after measureFrom; written by this client's thread only. */
        long[] latencies = new long[1024];
        int count;

        Client(int port, String path, long measureFrom, long end, AtomicLong errors) {
            this.port = port;
            this.request = ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            this.measureFrom = measureFrom;
            this.end = end;
            this.errors = errors;
        }

        @Override
        public void run() {
            while (System.nanoTime() < end) {
                try (Socket socket = new Socket("127.0.0.1", port)) {
                    socket.setTcpNoDelay(true);
                    socket.setSoTimeout(10_000);
                    OutputStream out = new BufferedOutputStream(socket.getOutputStream());
                    InputStream in = new BufferedInputStream(socket.getInputStream());
                    long now;
                    while ((now = System.nanoTime()) < end) {
                        out.write(request);
                        out.flush();
                        readResponse(in);
                        if (now >= measureFrom) {
                            record(System.nanoTime() - now);
                        }
                    }
                } catch (IOException e) {
                    errors.incrementAndGet(); // reconnect and go on
                }
            }
        }

        private void record(long nanos) {
            if (count == latencies.length) {
                latencies = Arrays.copyOf(latencies, count * 2);
            }
            latencies[count++] = nanos;
        }

        /** readResponse reads one HTTP/1.1 response with a Content-Length body. */
        private static void readResponse(InputStream in) throws IOException {
            String status = readLine(in);
            if (!status.startsWith("HTTP/1.1 200")) {
                throw new IOException("unexpected status: " + status);
            }
            int length = -1;
            for (String header = readLine(in); !header.isEmpty(); header = readLine(in)) {
                if (header.regionMatches(true, 0, "content-length:", 0, 15)) {
                    length = Integer.parseInt(header.substring(15).trim());
                }
            }
            if (length < 0) {
                throw new IOException("response without Content-Length");
            }
            for (int i = 0; i < length; i++) {
                if (in.read() < 0) {
                    throw new IOException("connection closed in the body");
                }
            }
        }

        private static String readLine(InputStream in) throws IOException {
            StringBuilder line = new StringBuilder(64);
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) {
                    throw new IOException("connection closed");
                }
                if (c != '\r') {
                    line.append((char) c);
                }
            }
            return line.toString();
        }
    }
}
