package org.marl4j.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * RunSuite runs every benchmark of this module with the settings on each class (one fork; see
 * RESULTS.md for the list), then the memory measurement in fresh JVMs, and writes RESULTS.md: the
 * machine, each workload's scores, and the ratios marl4j / baseline: best against best, and each
 * marl4j config against the best baseline with its own thread count (like for like).
 *
 * <p>System properties: {@code bench.results} (output file, default {@code RESULTS.md}),
 * {@code bench.include} (regex of benchmarks to run, default all), {@code bench.quick=true} (one
 * warm-up and two measurement iterations of 0.2 s: a smoke test whose numbers mean nothing).
 */
public final class RunSuite {
    /** Runs of each memory case; the median is reported. */
    private static final int MEMORY_RUNS = 5;

    /** A workload: the benchmarks whose method names start with prefix in one class. */
    private record Workload(String title, Class<?> type, String prefix, String target,
                            String targetBaseline, double targetFactor) {}

    private static final List<Workload> WORKLOADS = List.of(
            new Workload("Schedule/Empty (262,144 tasks, no wait), ns/task", ScheduleBenchmark.class, "empty_", "", null, 0),
            new Workload("Schedule/WaitGroup (262,144 tasks), ns/task", ScheduleBenchmark.class, "waitGroup_", "", null, 0),
            new Workload("Schedule/SomeWork (512 tasks × ~170 µs), ns/task", ScheduleBenchmark.class, "someWork_", "", null, 0),
            new Workload("Schedule/Event (chain of 512), ns/hop", EventBenchmark.class, "chain_", "", null, 0),
            new Workload("Schedule/EventBaton (65,536 round trips), ns/round trip", EventBenchmark.class, "baton_", "", null, 0),
            new Workload("Schedule/Ticket (512 tickets), ns/ticket", TicketBenchmark.class, "ticket_", "", null, 0),
            new Workload("1,000,000 empty tasks, one producer, wait for all, ns/task", EmptyTasksBenchmark.class, "", 
                    "≤ ForkJoinPool and ≤ 1/3 of virtual-thread-per-task, each on marl4j's thread count", "forkJoinPool", 1.0),
            new Workload("Ping-pong over two AUTO Events, ns/round trip", PingPongBenchmark.class, "",
                    "≤ 1/2 of two virtual threads (park/unpark)", "virtualThreads", 0.5),
            new Workload("Fan-out/fan-in: 100,000 fibers each blocked on a CompletableFuture, ns/fiber",
                    FanOutBenchmark.class, "", "", null, 0),
            new Workload("Release: 100,000 suspended fibers signalled at once, until all finish, ns/fiber",
                    ReleaseBenchmark.class, "", "≤ virtual threads", "virtualThreads", 1.0),
            new Workload("Reactor: Flux.range(0, 1,000,000).publishOn(s), ns/element", ReactorBenchmark.class,
                    "publishOn_", "≤ parallel()", "publishOn_parallel", 1.0),
            new Workload("Reactor: flatMap(fromCallable(call).subscribeOn(s), 256), call waits ~1 ms on a future, ns/call",
                    ReactorBenchmark.class, "blockingCalls_", "≥ 1.5× the throughput of the better boundedElastic",
                    "blockingCalls_boundedElastic_join", 1 / 1.5),
            new Workload("Reactor: flatMap(fromCallable(sleep).subscribeOn(s), 256), a plain Thread.sleep(1) per call, ns/call",
                    ReactorBenchmark.class, "blockingSleep_", "≥ 1.5× the throughput of the better boundedElastic",
                    "blockingSleep_boundedElastic", 1 / 1.5),
            new Workload("Kotlin: launch and join 1,000,000 no-op coroutines, ns/coroutine", CoroutinesBenchmark.class,
                    "launch_", "≤ 1/2 of Dispatchers.Default", "launch_dispatchersDefault", 0.5),
            new Workload("Kotlin: Channel ping-pong (100,000 round trips), ns/round trip", CoroutinesBenchmark.class,
                    "channel_", "≤ 1/2 of Dispatchers.Default", "channel_dispatchersDefault", 0.5),
            new Workload("Kotlin: 100,000 coroutines each delay(1), ns/coroutine", CoroutinesBenchmark.class,
                    "delay_", "≤ Dispatchers.Default", "delay_dispatchersDefault", 1.0));

    private RunSuite() {}

    public static void main(String[] args) throws Exception {
        boolean quick = Boolean.getBoolean("bench.quick");
        String include = System.getProperty("bench.include", ".*");
        Path out = Path.of(System.getProperty("bench.results", "RESULTS.md"));
        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        long start = System.nanoTime();

        CoreToCoreProbe probe = new CoreToCoreProbe(
                OutputFormatFactory.createFormatInstance(System.out, VerboseMode.NORMAL));
        Collection<RunResult> results = runJmh(include, quick, probe);
        Map<String, List<Long>> memory = include.equals(".*") || "Memory".matches(include)
                || include.contains("Memory") ? runMemory() : Map.of();
        List<FreshJvmCases.Measured> fresh = new ArrayList<>();
        for (FreshJvmCases.Section section : FreshJvmCases.sections(quick)) {
            if (FreshJvmCases.selected(include, section)) {
                fresh.add(FreshJvmCases.run(section));
            }
        }

        double loadAfter = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        long minutes = (System.nanoTime() - start) / 60_000_000_000L;
        String report = new Report(results, probe, memory, fresh, quick, loadBefore, loadAfter, minutes).render();
        Files.writeString(out, report, StandardCharsets.UTF_8);
        System.out.println(report);
        System.out.println("Wrote " + out.toAbsolutePath());
    }

    private static Collection<RunResult> runJmh(String include, boolean quick, CoreToCoreProbe probe)
            throws RunnerException {
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include("org\\.marl4j\\.benchmarks\\.(" + include + ")")
                .shouldFailOnError(true);
        if (quick) {
            options.warmupIterations(1).measurementIterations(2)
                    .warmupTime(TimeValue.milliseconds(200)).measurementTime(TimeValue.milliseconds(200));
        }
        try {
            return new Runner(options.build(), probe).run();
        } catch (org.openjdk.jmh.runner.NoBenchmarksException none) {
            return List.of(); // only fresh-JVM workloads were asked for
        }
    }

    /** Runs MemoryBenchmark in fresh JVMs: key = case, value = bytes per fiber of each run. */
    private static Map<String, List<Long>> runMemory() throws IOException, InterruptedException {
        Map<String, List<Long>> bytes = new LinkedHashMap<>();
        for (String engine : List.of("VIRTUAL_THREADS", "CONTINUATIONS")) {
            for (String workers : List.of("0", "1", "2")) {
                List<Long> runs = new ArrayList<>();
                for (int i = 0; i < MEMORY_RUNS; i++) {
                    runs.add(runMemoryCase(engine, List.of("marl4j", workers)));
                }
                bytes.put("marl4j " + engine + " workers=" + workers, runs);
            }
        }
        List<Long> runs = new ArrayList<>();
        for (int i = 0; i < MEMORY_RUNS; i++) {
            runs.add(runMemoryCase(null, List.of("virtualThreads")));
        }
        bytes.put("virtualThreads", runs);
        return bytes;
    }

    /** runMemoryCase(engine, args): one MemoryBenchmark run; engine (null for a baseline) goes in -Dbench.engine. */
    private static long runMemoryCase(String engine, List<String> args) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS,
                "-Xms2g", "-Xmx2g", BenchSupport.PRE_TOUCH, "-XX:+UseSerialGC"));
        if (engine != null) {
            command.add("-D" + BenchSupport.ENGINE_PROPERTY + "=" + engine);
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), MemoryBenchmark.class.getName()));
        command.addAll(args);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        long bytes = -1;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("bytesPerFiber=")) {
                    bytes = Long.parseLong(line.substring("bytesPerFiber=".length()));
                } else {
                    System.out.println("[memory] " + line);
                }
            }
        }
        if (p.waitFor() != 0 || bytes < 0) {
            throw new IllegalStateException("MemoryBenchmark " + args + " engine " + engine + " failed (exit " + p.exitValue() + ")");
        }
        System.out.println("[memory] " + args + " engine " + engine + ": " + bytes + " bytes per fiber");
        return bytes;
    }

    /** Report renders RESULTS.md. */
    private record Report(Collection<RunResult> results, CoreToCoreProbe probe, Map<String, List<Long>> memory,
                          List<FreshJvmCases.Measured> fresh, boolean quick,
                          double loadBefore, double loadAfter, long minutes) {
        String render() {
            StringBuilder md = new StringBuilder();
            header(md);
            StringBuilder summary = new StringBuilder();
            summary.append("| workload | best marl4j | best baseline (any thread count) | ratio best / best | ratio per marl4j config, like for like | target | met (like for like) |\n")
                    .append("|---|---|---|---|---|---|---|\n");
            StringBuilder details = new StringBuilder();
            StringBuilder losses = new StringBuilder();
            for (Workload w : WORKLOADS) {
                workload(w, summary, details, losses);
            }
            memorySection(summary, details, losses);
            md.append("## Summary\n\nRatios are of medians, marl4j time / baseline time: **below 1 means marl4j is faster**"
                    + " (for memory: fewer bytes). \"Best baseline\" and the ratio beside it are the best marl4j config against"
                    + " the best baseline of any thread count; the ratios per config, \"met\" and the losses compare like for"
                    + " like (see the header), and name the baseline each ratio is against.\n\n").append(summary).append('\n');
            if (!fresh.isEmpty()) {
                StringBuilder freshSummary = new StringBuilder("| workload (fresh JVM per run) | marl4j ratio per case"
                        + " (vs the section's baseline) | target |\n|---|---|---|\n");
                StringBuilder freshDetails = new StringBuilder();
                for (FreshJvmCases.Measured m : fresh) {
                    FreshJvmCases.render(m, freshSummary, freshDetails);
                }
                md.append(freshSummary).append('\n');
                details.append(freshDetails);
            }
            md.append("## Where marl4j loses (ratio above 1 against the like-for-like baseline of this run)\n\n")
                    .append(losses.isEmpty() ? "Nowhere in this run.\n" : losses)
                    .append("\nProfiles and what would fix each loss in fiber-core: see README.md, \"Where marl4j loses, and why\".\n\n");
            md.append(details);
            return md.toString();
        }

        private void header(StringBuilder md) {
            md.append("# marl4j benchmark results\n\n");
            if (quick) {
                md.append("**QUICK SMOKE RUN (bench.quick=true): the numbers below mean nothing.**\n\n");
            }
            md.append("- Date: ").append(ZonedDateTime.now().format(DateTimeFormatter.RFC_1123_DATE_TIME)).append('\n')
                    .append("- Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" cores (")
                    .append(cpuModel()).append("), ").append(System.getProperty("os.name")).append(' ')
                    .append(System.getProperty("os.version")).append('\n')
                    .append("- JDK: ").append(System.getProperty("java.vm.name")).append(' ')
                    .append(System.getProperty("java.runtime.version")).append('\n')
                    .append(String.format(Locale.ROOT, "- Load average (1 min) at start %.2f, at end %.2f; suite took ~%d min%n",
                            loadBefore, loadAfter, minutes))
                    .append("- Caveat: a shared, noisy 2-core machine (see the load average above): trust ratios of medians"
                            + " within one run, not absolute times, and expect ±20% run to run.\n")
                    .append("- Like for like: marl4j with `threads=0` (the benchmark's own thread only) or `threads=1` is compared"
                            + " with the baselines that run on one thread: virtual threads on one carrier (`_1carrier`: a fork with"
                            + " `-Djdk.virtualThreadScheduler.parallelism=1` and `maxPoolSize=1`, checked in the fork) and pools"
                            + " with `poolThreads=1`. `threads=2`, and configs without a `threads` parameter, are compared with"
                            + " the other baselines, which use two threads or the machine's cores (the default virtual-thread"
                            + " scheduler). A workload with no one-thread baseline compares every config with all its baselines."
                            + " With `threads=0` marl4j has one thread where a one-carrier baseline also has the benchmark"
                            + " thread that starts its virtual threads, so `threads=1` is the exact match.\n")
                    .append("- Core-to-core round trip: as soon as each benchmark's fork has ended, the suite's own JVM"
                            + " bounces a cache line between two threads for " + CoreToCoreProbe.PROBE_MILLIS
                            + " ms (`CoreToCoreProbe`); the detail tables show its fastest batch of 1,000. The host moves this VM's two"
                            + " virtual CPUs: the round trip is ~30 ns at times (two hyperthreads of one core, presumably),"
                            + " ~70 ns most of the time, and ~450 ns in episodes of minutes, during which every hand-over"
                            + " between two threads costs several times more. Compare rows whose forks saw similar round"
                            + " trips; a loss whose two forks did not is marked as such.\n\n");
        }

        private void workload(Workload w, StringBuilder summary, StringBuilder details, StringBuilder losses) {
            List<Row> rows = results.stream().map(r -> Row.of(r, probe))
                    .filter(r -> r.type.equals(w.type.getName()) && r.method.startsWith(w.prefix))
                    .toList();
            if (rows.isEmpty()) {
                return;
            }
            List<Row> baselines = rows.stream().filter(Row::isBaseline).toList();
            Row bestBaseline = best(baselines);
            Row bestMarl = best(rows.stream().filter(Row::isMarl).toList());
            boolean anyOneThread = baselines.stream().anyMatch(Row::oneThread);
            details.append("## ").append(w.title).append("\n\n")
                    .append("`").append(w.type.getSimpleName()).append("`. Median and mean ± 99.9% error (JMH), ")
                    .append(rows.get(0).unit).append(".\n\n")
                    .append("| benchmark | params | median | mean ± error | ratio vs like-for-like baseline | core-to-core round trip right after its fork, ns |\n|---|---|---|---|---|---|\n");
            for (Row r : rows) {
                String note;
                if (r.isMarl()) {
                    Row like = likeForLike(r, baselines);
                    note = like == null ? "" : ratio(r.median / like.median) + " vs " + like.label();
                } else if (r.isFloor()) {
                    note = "floor, not a baseline";
                } else {
                    note = !anyOneThread ? "baseline of every config"
                            : r.oneThread() ? "1-thread baseline, for threads=0, 1"
                            : "baseline for threads=2 and configs without threads";
                }
                details.append(String.format(Locale.ROOT, "| %s | %s | %s | %s ± %s | %s | %s |%n", r.method, r.params,
                        num(r.median), num(r.mean), num(r.error), note, num(r.coreToCore)));
            }
            details.append('\n');
            if (bestMarl == null || bestBaseline == null) {
                return;
            }
            for (Row r : rows) {
                Row like = r.isMarl() ? likeForLike(r, baselines) : null;
                if (like != null && r.median > like.median) {
                    losses.append(String.format(Locale.ROOT, "- %s: %s takes %.2f× the time of %s (%s vs %s %s)%s.%n",
                            w.title, r.label(), r.median / like.median, like.label(),
                            num(r.median), num(like.median), r.unit, coreToCoreNote(r, like)));
                }
            }
            if (bestMarl.median > bestBaseline.median && likeForLike(bestMarl, baselines) != bestBaseline) {
                losses.append(String.format(Locale.ROOT, "- %s, best against best (any thread count): %s takes %.2f× the time"
                        + " of %s (%s vs %s %s).%n", w.title, bestMarl.label(), bestMarl.median / bestBaseline.median,
                        bestBaseline.label(), num(bestMarl.median), num(bestBaseline.median), bestMarl.unit));
            }
            String target = w.target.isEmpty() ? "–" : w.target;
            String met = "–";
            if (w.targetBaseline != null) {
                StringBuilder yes = new StringBuilder();
                StringBuilder no = new StringBuilder();
                for (Row m : rows) {
                    if (m.isMarl()) {
                        StringBuilder into = meetsTarget(w, m, baselines) ? yes : no;
                        into.append(into.isEmpty() ? "" : ", ").append(m.configLabel());
                    }
                }
                met = (yes.isEmpty() ? "" : "yes: " + yes.toString().trim())
                        + (no.isEmpty() ? "" : (yes.isEmpty() ? "" : "; ") + "**no: " + no.toString().trim() + "**");
            }
            // Configs compared with the same baseline are listed together: "threads=0: 0.90, threads=1: 1.10 vs X; ...".
            Map<String, StringBuilder> perBaseline = new LinkedHashMap<>();
            for (Row r : rows) {
                if (r.isMarl()) {
                    Row like = likeForLike(r, baselines);
                    StringBuilder group = perBaseline.computeIfAbsent(like.label(), k -> new StringBuilder());
                    group.append(group.isEmpty() ? "" : ", ").append(r.configLabel()).append(": ")
                            .append(ratio(r.median / like.median));
                }
            }
            StringBuilder perConfig = new StringBuilder();
            perBaseline.forEach((label, group) -> perConfig.append(perConfig.isEmpty() ? "" : "; ")
                    .append(group).append(" vs ").append(label));
            summary.append(String.format(Locale.ROOT, "| %s | %s: %s | %s: %s | **%s** | %s | %s | %s |%n",
                    w.title, bestMarl.cell(), num(bestMarl.median), bestBaseline.cell(),
                    num(bestBaseline.median), ratio(bestMarl.median / bestBaseline.median),
                    perConfig.toString().trim(), target, met));
        }

        /**
         * coreToCoreNote(r, like): the two forks' core-to-core round trips when one was in a slow
         * episode (200 ns or more) and they differ by half or more, since the comparison then says
         * more about the machine than about the code.
         */
        private static String coreToCoreNote(Row r, Row like) {
            double a = r.coreToCore;
            double b = like.coreToCore;
            // Two hyperthreads of one core (~30 ns) against two cores (~70) is not worth a note.
            if (Double.isNaN(a) || Double.isNaN(b) || Math.max(a, b) < 200 || Math.max(a, b) < 1.5 * Math.min(a, b)) {
                return "";
            }
            return String.format(Locale.ROOT, "; **the machine differed: a core-to-core round trip took %s ns"
                    + " right after marl4j's fork and %s ns after the baseline's**", num(a), num(b));
        }

        /** best(rows): the row with the lowest median, or null. */
        private static Row best(List<Row> rows) {
            return rows.stream().min((a, b) -> Double.compare(a.median, b.median)).orElse(null);
        }

        /**
         * sameThreads(m, candidates): the candidates that run on as many threads as marl4j row m (one
         * thread for threads=0 and 1, more otherwise), or all of them if none does.
         */
        private static List<Row> sameThreads(Row m, List<Row> candidates) {
            List<Row> same = candidates.stream().filter(b -> b.oneThread() == m.oneThread()).toList();
            return same.isEmpty() ? candidates : same;
        }

        /** likeForLike(m, baselines): the fastest baseline with marl4j row m's thread count (see sameThreads). */
        private static Row likeForLike(Row m, List<Row> baselines) {
            return best(sameThreads(m, baselines));
        }

        /**
         * meetsTarget: marl4j row m is within the workload's target against every named baseline, each
         * taken with m's thread count where the baseline was run with it (see sameThreads).
         */
        private static boolean meetsTarget(Workload w, Row m, List<Row> baselines) {
            boolean ok = true;
            for (Row b : family(m, baselines, w.targetBaseline)) {
                ok &= m.median <= b.median * w.targetFactor;
            }
            if (w.type == EmptyTasksBenchmark.class) {
                for (Row b : family(m, baselines, "virtualThreadPerTask")) {
                    ok &= m.median * 3 <= b.median;
                }
            }
            if (w.type == ReactorBenchmark.class && w.prefix.equals("blockingSleep_")) {
                for (Row b : family(m, baselines, "blockingSleep_boundedElasticVirtual")) {
                    ok &= m.median * 1.5 <= b.median;
                }
            } else if (w.type == ReactorBenchmark.class) {
                for (Row b : family(m, baselines, "blockingCalls_boundedElasticVirtual_join")) {
                    ok &= m.median * 1.5 <= b.median; // "the better of the two" boundedElastic flavours
                }
            }
            return ok;
        }

        /** family(m, baselines, name): the rows of baseline name (with or without _1carrier) that match m's thread count. */
        private static List<Row> family(Row m, List<Row> baselines, String name) {
            return sameThreads(m, baselines.stream().filter(b -> b.family().equals(name)).toList());
        }

        private void memorySection(StringBuilder summary, StringBuilder details, StringBuilder losses) {
            if (memory.isEmpty()) {
                return;
            }
            details.append("## Memory: heap bytes per suspended fiber (100,000 blocked)\n\n")
                    .append("`MemoryBenchmark`, each case in a fresh JVM (-Xmx2g, SerialGC so that a full GC compacts everything), ").append(MEMORY_RUNS)
                    .append(" runs; heap used after System.gc() while all are blocked, minus before, / 100,000.\n\n")
                    .append("| case | runs (bytes/fiber) | median | ratio vs virtual threads |\n|---|---|---|---|\n");
            long vt = median(memory.getOrDefault("virtualThreads", List.of(0L)));
            long bestMarl = Long.MAX_VALUE;
            String bestCase = "";
            for (Map.Entry<String, List<Long>> e : memory.entrySet()) {
                long m = median(e.getValue());
                boolean marl = e.getKey().startsWith("marl4j");
                if (marl && m < bestMarl) {
                    bestMarl = m;
                    bestCase = e.getKey();
                }
                if (marl && m >= vt) {
                    losses.append(String.format(Locale.ROOT, "- Memory: a suspended fiber with %s holds %d bytes of heap, a parked"
                            + " virtual thread %d (%.2f×).%n", e.getKey().replace("marl4j ", ""), m, vt, (double) m / vt));
                }
                details.append(String.format(Locale.ROOT, "| %s | %s | %d | %s |%n", e.getKey(), e.getValue(), m,
                        marl && vt > 0 ? ratio((double) m / vt) : ""));
            }
            long worstMarl = memory.entrySet().stream().filter(e -> e.getKey().startsWith("marl4j"))
                    .mapToLong(e -> median(e.getValue())).max().orElse(0);
            details.append('\n');
            summary.append(String.format(Locale.ROOT, "| Memory per suspended fiber, bytes | %s: %d | virtualThreads: %d | **%s** | %s | below a parked virtual thread | %s |%n",
                    bestCase, bestMarl, vt, ratio((double) bestMarl / vt), perConfigMemory(vt),
                    worstMarl < vt ? "yes" : bestMarl < vt ? "**only with some worker counts**" : "**no**"));
            details.append("Each case first runs 3 warm-up rounds of 20,000 (MemoryBenchmark), so compiled frames are measured."
                    + " What the bytes are (jcmd GC.class_histogram, 2 workers, 100,000 on an Event): almost all is the"
                    + " continuation's `jdk.internal.vm.StackChunk` (~400-500 bytes warm, far more cold: interpreted frames are several"
                    + " times larger than compiled ones), plus Fiber 80 (its own wait-queue node) and FiberContinuation 48; the Task and"
                    + " the task's lambda are no longer reachable from a suspended fiber. See benchmarks/README.md.\n\n");
        }

        private String perConfigMemory(long vt) {
            StringBuilder sb = new StringBuilder();
            memory.forEach((k, v) -> {
                if (k.startsWith("marl4j")) {
                    sb.append(sb.isEmpty() ? "" : "; ").append(k.replace("marl4j ", "")).append(": ")
                            .append(ratio((double) median(v) / vt));
                }
            });
            return sb.toString();
        }

        private static long median(List<Long> values) {
            long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
            return sorted[sorted.length / 2];
        }

        private static String cpuModel() {
            try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
                return lines.filter(l -> l.startsWith("model name")).findFirst()
                        .map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("unknown CPU");
            } catch (IOException | RuntimeException e) {
                return "unknown CPU";
            }
        }
    }

    /** The suffix of a virtual-thread baseline forked with one carrier thread. */
    private static final String ONE_CARRIER = "_1carrier";

    /** Row is one benchmark × parameter combination. */
    private record Row(String type, String method, String params, double median, double mean, double error, String unit,
                       double coreToCore) {
        static Row of(RunResult r, CoreToCoreProbe probe) {
            String label = r.getParams().getBenchmark();
            int dot = label.lastIndexOf('.');
            StringBuilder params = new StringBuilder();
            for (String key : r.getParams().getParamsKeys()) {
                params.append(params.isEmpty() ? "" : ", ").append(key).append('=').append(r.getParams().getParam(key));
            }
            var primary = r.getPrimaryResult();
            return new Row(label.substring(0, dot), label.substring(dot + 1), params.toString(),
                    primary.getStatistics().getPercentile(50), primary.getScore(), primary.getScoreError(),
                    primary.getScoreUnit(), probe.after(r.getParams()));
        }

        /** The row in a summary cell: method and params, as RESULTS.md always showed them. */
        String cell() {
            return params.isEmpty() ? method : method + " " + params;
        }

        String label() {
            return params.isEmpty() ? method : method + " (" + params + ")";
        }

        boolean isMarl() {
            return method.contains("marl4j");
        }

        /** The config's name in a summary cell: the method without "marl4j", and its params. */
        String configLabel() {
            String name = method.replace("_marl4j", "").replace("marl4j", "");
            return (name + (name.isEmpty() || params.isEmpty() ? "" : " ") + params).trim();
        }

        /** param(key): the value of JMH parameter key in this row, or null. */
        String param(String key) {
            for (String kv : params.split(", ")) {
                int eq = kv.indexOf('=');
                if (eq > 0 && kv.substring(0, eq).equals(key)) {
                    return kv.substring(eq + 1);
                }
            }
            return null;
        }

        /**
         * oneThread: a marl4j row with threads=0 or 1, or a baseline on one thread: a virtual-thread
         * fork with one carrier (method name ending in {@code _1carrier}) or a pool with poolThreads=1.
         */
        boolean oneThread() {
            if (isMarl()) {
                String threads = param("threads");
                return "0".equals(threads) || "1".equals(threads);
            }
            return method.endsWith(ONE_CARRIER) || "1".equals(param("poolThreads"));
        }

        /** family: a baseline's name without its one-carrier suffix, as a Workload's targetBaseline names it. */
        String family() {
            return method.endsWith(ONE_CARRIER) ? method.substring(0, method.length() - ONE_CARRIER.length()) : method;
        }

        /** A floor row (method name with "floor") shows what a workload costs with no dispatch at all: never a baseline. */
        boolean isFloor() {
            return method.contains("floor");
        }

        boolean isBaseline() {
            return !isMarl() && !isFloor();
        }
    }

    private static String num(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        return v >= 100 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String ratio(double r) {
        return String.format(Locale.ROOT, "%.2f", r);
    }
}
