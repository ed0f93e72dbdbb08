package org.marl4j.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * FreshJvmCases runs the workloads that are not JMH timings — plain {@code main}s that print
 * {@code key=value} lines (end-to-end HTTP, idle cost, memory at scale, the 1,000,000-fiber burst) —
 * each case in a fresh JVM, several times, and renders their Markdown sections for RESULTS.md with
 * medians and ratios against the section's baseline case. {@link RunSuite} drives it.
 */
final class FreshJvmCases {
    /** One measured configuration: a main class, its JVM flags and its arguments. */
    record Case(String label, Class<?> main, List<String> jvmArgs, List<String> args) {}

    /**
     * A table of cases: {@code key} is the value compared against the first case whose label starts
     * with {@code baseline}; {@code lowerIsBetter} says which way wins; {@code alsoShow} are further
     * keys reported as medians. {@code target} states the goal every marl4j case is held to: its ratio
     * at least (or, lowerIsBetter, at most) {@code targetRatio}, and with {@code p99NoWorse} a median
     * {@value #P99} no higher than the baseline's; a section without a goal has target "–" and
     * targetRatio NaN.
     */
    record Section(String title, String description, String key, String unit, String baseline,
                   boolean lowerIsBetter, String target, double targetRatio, boolean p99NoWorse,
                   int runs, List<Case> cases, List<String> alsoShow) {}

    /** The tail-latency key an HTTP case prints. */
    static final String P99 = "p99Micros";
    /** A section no target holds. */
    private static final String NO_TARGET = "–";

    /** Outcome of one section: per case, the values of each key over the runs (failures as NaN). */
    record Measured(Section section, Map<String, Map<String, List<Double>>> values, Map<String, String> failures) {}

    private FreshJvmCases() {}

    /** Both engines' flags: every fresh JVM can run either engine. */
    private static final List<String> FLAGS = List.of(BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS);
    /** The longest one fresh-JVM case may run before it is ended and reported as failed. */
    private static final long CASE_TIMEOUT_SECONDS = 90;
    /** The engines every marl4j case runs with, each a case of its own. */
    private static final List<String> ENGINES = List.of("VIRTUAL_THREADS", "CONTINUATIONS");

    /** jvm(engine, more...): both flags, the engine property for a marl4j case (engine null: none), then more. */
    private static List<String> jvm(String engine, String... more) {
        List<String> args = new ArrayList<>(FLAGS);
        if (engine != null) {
            args.add("-D" + BenchSupport.ENGINE_PROPERTY + "=" + engine);
        }
        args.addAll(List.of(more));
        return args;
    }

    /** sections(quick) lists the sections; quick shortens the timed ones to a smoke test. */
    static List<Section> sections(boolean quick) {
        String warm = quick ? "1" : "3";
        String secs = quick ? "1" : "5";
        List<Case> http = new ArrayList<>();
        List<Case> httpSleep = new ArrayList<>();
        for (String conns : List.of("200", "1000")) {
            for (String engine : ENGINES) {
                http.add(new Case("marl4j " + engine + " connections=" + conns, HttpBenchmark.class,
                        jvm(engine, "-Xms1g", "-Xmx1g", BenchSupport.PRE_TOUCH), List.of("marl4j", conns, warm, secs)));
            }
            // Without spinning: the server's own threads need the cores a spinning worker holds.
            http.add(new Case("marl4j VIRTUAL_THREADS spin=0 connections=" + conns, HttpBenchmark.class,
                    jvm("VIRTUAL_THREADS", "-Dhttp.spinMicros=0", "-Xms1g", "-Xmx1g", BenchSupport.PRE_TOUCH),
                    List.of("marl4j", conns, warm, secs)));
            for (String what : List.of("virtualThreads", "fixed200")) {
                http.add(new Case(what + " connections=" + conns, HttpBenchmark.class,
                        jvm(null, "-Xms1g", "-Xmx1g", BenchSupport.PRE_TOUCH), List.of(what, conns, warm, secs)));
            }
            // A plain blocking call in the handler: only the virtual-thread engine keeps the workers free.
            httpSleep.add(new Case("marl4j VIRTUAL_THREADS connections=" + conns, HttpBenchmark.class,
                    jvm("VIRTUAL_THREADS", "-Dhttp.handler=sleep", "-Xms1g", "-Xmx1g", BenchSupport.PRE_TOUCH),
                    List.of("marl4j", conns, warm, secs)));
            httpSleep.add(new Case("marl4j VIRTUAL_THREADS spin=0 connections=" + conns, HttpBenchmark.class,
                    jvm("VIRTUAL_THREADS", "-Dhttp.handler=sleep", "-Dhttp.spinMicros=0", "-Xms1g", "-Xmx1g", BenchSupport.PRE_TOUCH),
                    List.of("marl4j", conns, warm, secs)));
            httpSleep.add(new Case("virtualThreads connections=" + conns, HttpBenchmark.class,
                    jvm(null, "-Dhttp.handler=sleep", "-Xms1g", "-Xmx1g", BenchSupport.PRE_TOUCH),
                    List.of("virtualThreads", conns, warm, secs)));
        }
        List<Case> idle = new ArrayList<>();
        for (String engine : ENGINES) {
            for (String workers : List.of("2", "1")) {
                idle.add(new Case("marl4j " + engine + " workers=" + workers, IdleBenchmark.class, jvm(engine),
                        List.of("marl4j", workers, quick ? "1" : "3")));
            }
        }
        idle.add(new Case("forkJoinPool threads=2", IdleBenchmark.class, jvm(null), List.of("forkJoinPool", "2", quick ? "1" : "3")));
        List<Case> memory = new ArrayList<>();
        for (String n : List.of("100000", "1000000")) {
            for (String engine : ENGINES) {
                List<String> big = jvm(engine, "-Xms3g", "-Xmx3g", "-XX:+UseSerialGC");
                memory.add(new Case("marl4j " + engine + " Event workers=2 fibers=" + n, MemoryBenchmark.class, big, List.of("marl4j", "2", n)));
                memory.add(new Case("marl4j " + engine + " Futures.await workers=2 fibers=" + n, MemoryBenchmark.class, big, List.of("marl4jAwait", "2", n)));
            }
            List<String> big = jvm(null, "-Xms3g", "-Xmx3g", "-XX:+UseSerialGC");
            memory.add(new Case("virtualThreads park fibers=" + n, MemoryBenchmark.class, big, List.of("virtualThreads", n)));
            memory.add(new Case("virtualThreads join fibers=" + n, MemoryBenchmark.class, big, List.of("virtualThreadsJoin", n)));
        }
        // The release under the default collector (G1), against JDK virtual threads doing the same: each
        // waits on one latch and counts down a shared one, as the fibers wait on one Event and count
        // down one WaitGroup.
        List<Case> release = new ArrayList<>();
        for (String engine : ENGINES) {
            release.add(new Case("marl4j " + engine + " Event workers=2", MemoryBenchmark.class,
                    jvm(engine, "-Xms4g", "-Xmx4g"), List.of("marl4j", "2", "1000000")));
        }
        release.add(new Case("virtualThreads latch", MemoryBenchmark.class, jvm(null, "-Xms4g", "-Xmx4g"),
                List.of("virtualThreadsLatch", "1000000")));
        List<Case> burst = new ArrayList<>();
        for (String engine : ENGINES) {
            List<String> small = jvm(engine, "-Xmx512m", "-XX:+UseSerialGC");
            burst.add(new Case("marl4j " + engine + " Event workers=2", MemoryBenchmark.class, small, List.of("marl4j", "2", "1000000")));
            burst.add(new Case("marl4j " + engine + " Futures.await workers=2", MemoryBenchmark.class, small, List.of("marl4jAwait", "2", "1000000")));
        }
        burst.add(new Case("virtualThreads park", MemoryBenchmark.class, jvm(null, "-Xmx512m", "-XX:+UseSerialGC"),
                List.of("virtualThreads", "1000000")));
        return List.of(
                new Section("End-to-end: HttpServer, handler awaits a future completed ~1 ms later, requests/s",
                        "`HttpBenchmark`: JDK HttpServer on 127.0.0.1, keep-alive connections driven by one NIO client thread"
                                + " in the same JVM; " + warm + " s warm-up, " + secs + " s measured. marl4j = MarlExecutorService"
                                + " (2 workers, each fiber engine) + Futures.await; baselines call join(). Ratio = marl4j / virtual threads at the same"
                                + " connection count (higher is better).",
                        "requestsPerSecond", "req/s", "virtualThreads", false, "≥ 1.0× virtual threads, p99 no worse", 1.0, true,
                        quick ? 1 : 3, http, List.of("p50Micros", P99, "errors")),
                new Section("End-to-end: HttpServer, handler makes a plain 1 ms blocking call (Thread.sleep), requests/s",
                        "`HttpBenchmark -Dhttp.handler=sleep`: as above, but the handler calls Thread.sleep(1) (a JDBC call's"
                                + " stand-in) instead of awaiting a future. marl4j = MarlExecutorService (2 workers) on the"
                                + " VIRTUAL_THREADS engine, where the sleep suspends only the fiber. Ratio = marl4j / virtual"
                                + " threads at the same connection count (higher is better).",
                        "requestsPerSecond", "req/s", "virtualThreads", false, "≥ 1.0× virtual threads, p99 no worse", 1.0, true,
                        quick ? 1 : 3, httpSleep, List.of("p50Micros", P99, "errors")),
                new Section("Idle cost: 1,000 tiny tasks per second, process CPU ns per task",
                        "`IdleBenchmark`: one task per ms for 3 s after a 1 s warm-up; process CPU time over the stream / tasks;"
                                + " latencyAfterIdleNanos = median of 20 single tasks each after 100 ms of idleness.",
                        "cpuNanosPerTask", "ns", "forkJoinPool", true, NO_TARGET, Double.NaN, false,
                        quick ? 1 : 3, idle, List.of("latencyAfterIdleNanos")),
                new Section("Memory at scale: heap bytes per suspended fiber",
                        "`MemoryBenchmark` in a fresh JVM (-Xmx3g, SerialGC), after 3 warm-up rounds of the same case at 20,000"
                                + " (so compiled, not interpreted, frames are measured on both sides): heap after System.gc() while all wait, minus before,"
                                + " / fibers; resumeMillis = from the release until all have finished. Ratio vs the first"
                                + " virtual-thread case (parked).",
                        "bytesPerFiber", "bytes", "virtualThreads park", true, "≤ a parked virtual thread", 1.0, false,
                        quick ? 1 : 3, memory, List.of("resumeMillis")),
                new Section("Release: 1,000,000 suspended fibers, default GC, ms until all have finished",
                        "`MemoryBenchmark` in a fresh JVM (-Xms4g, G1), after 3 warm-up rounds at 20,000: one signal"
                                + " releases a million fibers waiting on an Event, each then counts down a WaitGroup; the"
                                + " baseline is a million virtual threads on a CountDownLatch, each counting down a shared one."
                                + " Without the warm-up both sides take ~10 s: see performance.md, \"A cold release\".",
                        "resumeMillis", "ms", "virtualThreads latch", true, "≤ 1.0× virtual threads", 1.0, false,
                        quick ? 1 : 5, release, List.of("bytesPerFiber")),
                new Section("Burst: 1,000,000 suspended fibers inside -Xmx512m",
                        "`MemoryBenchmark` with -Xmx512m and SerialGC: a case that runs out of memory, or thrashes in full"
                                + " collections past the 90 s limit, is reported as failed.",
                        "resumeMillis", "ms", "virtualThreads", true, NO_TARGET, Double.NaN, false,
                        1, burst, List.of("bytesPerFiber")));
    }

    /** selected(include, title) is whether bench.include asks for a section's main class. */
    static boolean selected(String include, Section s) {
        return include.equals(".*") || s.cases().stream().anyMatch(c -> include.contains(c.main().getSimpleName()
                .replace("Benchmark", "")));
    }

    static Measured run(Section s) throws IOException, InterruptedException {
        Map<String, Map<String, List<Double>>> values = new LinkedHashMap<>();
        Map<String, String> failures = new LinkedHashMap<>();
        for (Case c : s.cases()) {
            Map<String, List<Double>> byKey = new LinkedHashMap<>();
            for (int i = 0; i < s.runs(); i++) {
                Map<String, Double> out = runOnce(c, failures);
                if (out != null) {
                    out.forEach((k, v) -> byKey.computeIfAbsent(k, x -> new ArrayList<>()).add(v));
                }
            }
            values.put(c.label(), byKey);
        }
        return new Measured(s, values, failures);
    }

    private static Map<String, Double> runOnce(Case c, Map<String, String> failures) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(c.jvmArgs());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), c.main().getName()));
        command.addAll(c.args());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        // A case that thrashes the GC near its heap limit (the 512 MiB burst) may never end by itself:
        // end it, and report it as failed, once it has had far longer than any passing run needs.
        AtomicBoolean ended = new AtomicBoolean();
        Thread watchdog = Thread.ofPlatform().daemon().start(() -> {
            try {
                if (!p.waitFor(CASE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    ended.set(true);
                    p.destroyForcibly(); // also closes the output stream the loop below reads
                }
            } catch (InterruptedException ignored) {
                // the case ended first
            }
        });
        Map<String, Double> out = new LinkedHashMap<>();
        StringBuilder other = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                int eq = line.indexOf('=');
                if (eq > 0 && line.substring(eq + 1).matches("-?[0-9.]+")) {
                    out.put(line.substring(0, eq), Double.parseDouble(line.substring(eq + 1)));
                } else {
                    other.append(line).append('\n');
                }
            }
        } catch (IOException closed) {
            if (!ended.get()) {
                throw closed;
            }
            // The watchdog ended the case: its exit code below reports it.
        }
        int exit = p.waitFor();
        watchdog.interrupt();
        System.out.println("[fresh-jvm] " + c.label() + ": exit " + exit + " " + out);
        if (exit != 0) {
            String why = other.toString().contains("OutOfMemoryError") ? "OutOfMemoryError" : "exit " + exit;
            if (exit == 137 || exit == 143) {
                why += " (ended after " + CASE_TIMEOUT_SECONDS + " s)";
            }
            failures.put(c.label(), why);
            System.out.print(other);
            return null;
        }
        return out;
    }

    /** render(m) appends the section's detail table to details and its line to summary. */
    static void render(Measured m, StringBuilder summary, StringBuilder details) {
        Section s = m.section();
        details.append("## ").append(s.title()).append("\n\n").append(s.description()).append("\n\n")
                .append("| case | runs (").append(s.key()).append(") | median | ratio vs ").append(s.baseline());
        for (String k : s.alsoShow()) {
            details.append(" | median ").append(k);
        }
        details.append(" |\n|---|---|---|---|").append("---|".repeat(s.alsoShow().size())).append('\n');
        StringBuilder ratios = new StringBuilder();
        for (Map.Entry<String, Map<String, List<Double>>> e : m.values().entrySet()) {
            String label = e.getKey();
            List<Double> runs = e.getValue().getOrDefault(s.key(), List.of());
            double median = median(runs);
            double base = baselineFor(m, label);
            boolean marl = label.startsWith("marl4j");
            String ratio = marl && base > 0 && !Double.isNaN(median) ? String.format(Locale.ROOT, "%.2f", median / base) : "";
            String shown = m.failures().containsKey(label) ? "**failed: " + m.failures().get(label) + "**" : num(median);
            details.append("| ").append(label).append(" | ").append(runs.stream().map(FreshJvmCases::num).toList())
                    .append(" | ").append(shown).append(" | ").append(ratio);
            for (String k : s.alsoShow()) {
                details.append(" | ").append(num(median(e.getValue().getOrDefault(k, List.of()))));
            }
            details.append(" |\n");
            if (marl) {
                ratios.append(ratios.isEmpty() ? "" : "; ").append(label.replace("marl4j ", "")).append(": ")
                        .append(m.failures().containsKey(label) ? "failed" : ratio.isEmpty() ? num(median) : ratio);
            }
        }
        details.append('\n');
        summary.append("| ").append(s.title()).append(" | ").append(ratios).append(" | ").append(s.target())
                .append(" | ").append(met(m)).append(" |\n");
    }

    /** met(m): which marl4j cases meet the section's target and which do not ("–" without a target). */
    private static String met(Measured m) {
        Section s = m.section();
        if (Double.isNaN(s.targetRatio())) {
            return NO_TARGET;
        }
        List<String> marl = m.values().keySet().stream().filter(label -> label.startsWith("marl4j")).toList();
        return Report.yesNo(marl, label -> meets(m, label), label -> label.replace("marl4j ", ""));
    }

    /** meets(m, label): whether case label meets its section's target, or null without a baseline to judge by. */
    private static Boolean meets(Measured m, String label) {
        Section s = m.section();
        if (m.failures().containsKey(label)) {
            return false;
        }
        double base = baselineFor(m, label, s.key());
        double value = median(m.values().get(label).getOrDefault(s.key(), List.of()));
        if (Double.isNaN(base) || Double.isNaN(value) || base <= 0) {
            return null;
        }
        boolean ok = s.lowerIsBetter() ? value / base <= s.targetRatio() : value / base >= s.targetRatio();
        if (s.p99NoWorse()) {
            double p99 = median(m.values().get(label).getOrDefault(P99, List.of()));
            double baseP99 = baselineFor(m, label, P99);
            ok &= !Double.isNaN(p99) && !Double.isNaN(baseP99) && p99 <= baseP99;
        }
        return ok;
    }

    /** The baseline a case compares with: the first baseline case with the same "connections=" or "fibers=" suffix, if any. */
    private static double baselineFor(Measured m, String label) {
        return baselineFor(m, label, m.section().key());
    }

    /** baselineFor(m, label, key): the median of key in the baseline case of label. */
    private static double baselineFor(Measured m, String label, String key) {
        String suffix = label.contains("=") && (label.contains("connections=") || label.contains("fibers="))
                ? label.substring(label.lastIndexOf(' ') + 1) : "";
        for (Map.Entry<String, Map<String, List<Double>>> e : m.values().entrySet()) {
            if (e.getKey().startsWith(m.section().baseline()) && e.getKey().endsWith(suffix)) {
                return median(e.getValue().getOrDefault(key, List.of()));
            }
        }
        return Double.NaN;
    }

    private static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return sorted[sorted.length / 2];
    }

    private static String num(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%,.0f", v);
    }
}
