package org.marl4j.benchmarks;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.marl4j.examples.spring.BankApplication;

/**
 * SpringLoad measures the Spring Boot application of examples-spring ({@link BankApplication}:
 * Spring MVC, JdbcTemplate on an embedded H2, a request id in every log line) under N concurrent
 * keep-alive connections, in four configurations: on marl4j through its starter (VIRTUAL_THREADS
 * fiber engine), with its default 1 ms spin and with {@code marl4j.spin=0}, on Spring's
 * {@code spring.threads.virtual.enabled=true} (starter off), and on Tomcat's default thread pool
 * (starter off). Each measurement starts the application in a fresh
 * JVM, waits until it answers, drives it from this JVM with {@link KeepAliveLoad} (a warm-up, then
 * a fixed time) and stops it. Requests alternate between a balance read and a transfer of 1
 * between two accounts; the application logs its two lines per request to a file.
 *
 * <p>{@code SpringLoad [connections,...] [warmupSeconds] [seconds] [runs]} (default
 * {@code 200,1000 3 10 2}); the configurations of one run follow each other, so that a run's
 * noise reaches all four. Prints the runs, then a Markdown table with medians and the ratios
 * marl4j / virtual threads. The applications' logs go to {@code target/spring-load/}.
 */
public final class SpringLoad {
    /** How long an application may take to start and answer its first request. */
    private static final Duration START_PATIENCE = Duration.ofSeconds(90);
    /** The same heap for every configuration, fixed and touched at start (see BenchSupport.PRE_TOUCH). */
    private static final List<String> HEAP = List.of("-Xms512m", "-Xmx512m", BenchSupport.PRE_TOUCH);

    /** A serving configuration: its label, its JVM flags and its Spring Boot properties. */
    private enum Config {
        MARL4J("marl4j VIRTUAL_THREADS", List.of("-Dorg.marl4j.fiberEngine=VIRTUAL_THREADS"),
                List.of("--marl4j.fiber-engine=VIRTUAL_THREADS")),
        MARL4J_NO_SPIN("marl4j VIRTUAL_THREADS spin=0", List.of("-Dorg.marl4j.fiberEngine=VIRTUAL_THREADS"),
                List.of("--marl4j.fiber-engine=VIRTUAL_THREADS", "--marl4j.spin=0")),
        VIRTUAL_THREADS("virtualThreads", List.of(), List.of("--marl4j.enabled=false", "--spring.threads.virtual.enabled=true")),
        TOMCAT_POOL("tomcatPool", List.of(), List.of("--marl4j.enabled=false"));

        final String label;
        final List<String> jvm;
        final List<String> properties;

        Config(String label, List<String> jvm, List<String> properties) {
            this.label = label;
            this.jvm = jvm;
            this.properties = properties;
        }
    }

    private SpringLoad() {}

    public static void main(String[] args) throws Exception {
        List<Integer> connections = Arrays.stream((args.length > 0 ? args[0] : "200,1000").split(","))
                .map(String::trim).map(Integer::valueOf).toList();
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        int runs = args.length > 3 ? Integer.parseInt(args[3]) : 2;
        Path logs = Files.createDirectories(Path.of("target", "spring-load"));

        Map<String, Map<String, List<Double>>> values = new LinkedHashMap<>();
        List<FreshJvmCases.Case> cases = new ArrayList<>();
        for (int conns : connections) {
            for (Config config : Config.values()) {
                String label = config.label + " connections=" + conns;
                values.put(label, new LinkedHashMap<>());
                cases.add(new FreshJvmCases.Case(label, BankApplication.class, config.jvm, config.properties));
            }
        }
        for (int run = 1; run <= runs; run++) {
            for (int conns : connections) {
                for (Config config : Config.values()) {
                    String label = config.label + " connections=" + conns;
                    Path log = logs.resolve(label.replace(' ', '-').replace('=', '-') + "-run" + run + ".log");
                    Map<String, Double> out = measure(config, conns, warmup, seconds, log);
                    System.out.println("[spring-load] run " + run + " " + label + ": " + out);
                    out.forEach((k, v) -> values.get(label).computeIfAbsent(k, x -> new ArrayList<>()).add(v));
                }
            }
        }
        FreshJvmCases.Section section = new FreshJvmCases.Section(
                "Spring Boot application (MVC + JdbcTemplate on H2, request id in every log line), requests/s",
                "`SpringLoad`: examples-spring's BankApplication in a fresh JVM per measurement (-Xms512m -Xmx512m),"
                        + " driven over keep-alive connections by one NIO client thread in the benchmark's JVM; " + warmup
                        + " s warm-up, " + seconds + " s measured; requests alternate a balance read and a transfer."
                        + " Ratio = marl4j / virtual threads at the same connection count (higher is better).",
                "requestsPerSecond", "req/s", "virtualThreads", false, "≥ 1.0× virtual threads, p99 no worse", 1.0, true,
                runs, cases, List.of("p50Micros", FreshJvmCases.P99, "errors"));
        StringBuilder summary = new StringBuilder();
        StringBuilder details = new StringBuilder();
        FreshJvmCases.render(new FreshJvmCases.Measured(section, values, Map.of()), summary, details);
        System.out.println();
        System.out.print(details);
        System.out.println(p99Ratios(values, connections));
    }

    /** p99Ratios(values, connections) states each connection count's median p99, marl4j (either spin) / virtual threads. */
    private static String p99Ratios(Map<String, Map<String, List<Double>>> values, List<Integer> connections) {
        StringBuilder out = new StringBuilder("p99 ratio marl4j / virtual threads (lower is better):");
        for (Config marl4j : List.of(Config.MARL4J, Config.MARL4J_NO_SPIN)) {
            out.append(System.lineSeparator()).append("  ").append(marl4j.label).append(':');
            for (int conns : connections) {
                double marl = median(values.get(marl4j.label + " connections=" + conns).get("p99Micros"));
                double vt = median(values.get(Config.VIRTUAL_THREADS.label + " connections=" + conns).get("p99Micros"));
                out.append(String.format(Locale.ROOT, " connections=%d: %.2f;", conns, marl / vt));
            }
        }
        return out.toString();
    }

    private static double median(List<Double> runs) {
        if (runs == null || runs.isEmpty()) {
            return Double.NaN;
        }
        return runs.stream().mapToDouble(Double::doubleValue).sorted().toArray()[runs.size() / 2];
    }

    /** measure(config, conns, ...) starts the application, loads it, stops it; returns KeepAliveLoad's results. */
    private static Map<String, Double> measure(Config config, int conns, int warmup, int seconds, Path log)
            throws IOException, InterruptedException {
        int port = freePort();
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS));
        command.addAll(HEAP);
        command.addAll(config.jvm);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), BankApplication.class.getName(),
                "--server.address=127.0.0.1", "--server.port=" + port,
                // The load keeps each connection for the whole run: Tomcat must not close it after 100 requests.
                "--server.tomcat.max-keep-alive-requests=-1"));
        command.addAll(config.properties);
        Process app = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            awaitStarted(app, port, log);
            KeepAliveLoad load = new KeepAliveLoad(new InetSocketAddress("127.0.0.1", port), conns, SpringLoad::request);
            try {
                load.run(TimeUnit.SECONDS.toNanos(warmup), false);
                load.run(TimeUnit.SECONDS.toNanos(seconds), true);
                return load.results(seconds);
            } finally {
                load.close();
            }
        } finally {
            app.destroy(); // SIGTERM: Spring closes the context, the scheduler and the database
            if (!app.waitFor(30, TimeUnit.SECONDS)) {
                app.destroyForcibly().waitFor();
            }
        }
    }

    /**
     * request(connection, seq): even requests read a balance, odd ones transfer 1 between two
     * neighbouring accounts; connections start at different accounts so that they spread over all 100.
     */
    private static byte[] request(int connection, long seq) {
        int from = (int) ((connection * 7L + seq) % 100) + 1;
        String id = "c" + connection + "-" + seq;
        String head = seq % 2 == 0
                ? "GET /accounts/" + from + " HTTP/1.1\r\n"
                : "POST /transfers?from=" + from + "&to=" + (from % 100 + 1) + "&amount=1 HTTP/1.1\r\nContent-Length: 0\r\n";
        return (head + "Host: 127.0.0.1\r\nX-Request-Id: " + id + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** awaitStarted(app, port, log) returns once the application answers, or throws naming its log. */
    private static void awaitStarted(Process app, int port, Path log) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_PATIENCE.toNanos();
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            HttpRequest probe = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/accounts/1"))
                    .timeout(Duration.ofSeconds(5)).build();
            while (System.nanoTime() - deadline < 0) {
                if (!app.isAlive()) {
                    throw new IllegalStateException("the application exited with " + app.exitValue() + ": see " + log.toAbsolutePath());
                }
                try {
                    if (client.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                        return;
                    }
                } catch (IOException notYet) {
                    // not listening yet
                }
                TimeUnit.MILLISECONDS.sleep(200); // polling a process we do not control: no event to wait on
            }
        }
        throw new IllegalStateException("the application did not answer within " + START_PATIENCE + ": see " + log.toAbsolutePath());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
