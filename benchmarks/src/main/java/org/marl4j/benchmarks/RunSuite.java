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
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
 * RESULTS.md for the list), then the memory measurement and the other fresh-JVM workloads, saves
 * what it measured ({@link SuiteMeasurements}) and writes RESULTS.md from it ({@link Report}).
 *
 * <p>System properties: {@code bench.results} (output file, default {@code RESULTS.md}),
 * {@code bench.include} (regex of benchmarks to run, default all), {@code bench.quick=true} (one
 * warm-up and two measurement iterations of 0.2 s: a smoke test whose numbers mean nothing),
 * {@code bench.measurements} (where the measurements are saved, default
 * {@code target/suite-measurements.ser}), {@code bench.renderOnly=true} (measure nothing: render
 * RESULTS.md again from the saved measurements, after a change to the report's targets or layout).
 */
public final class RunSuite {
    /** Runs of each memory case; the median is reported. */
    static final int MEMORY_RUNS = 5;

    private RunSuite() {}

    public static void main(String[] args) throws Exception {
        Path out = Path.of(System.getProperty("bench.results", "RESULTS.md"));
        Path saved = Path.of(System.getProperty("bench.measurements", "target/suite-measurements.ser"));
        SuiteMeasurements measured;
        if (Boolean.getBoolean("bench.renderOnly")) {
            if (!Files.isRegularFile(saved)) {
                throw new IllegalArgumentException("bench.renderOnly=true needs the measurements of a run at " + saved
                        + " (bench.measurements): run the suite without bench.renderOnly first");
            }
            measured = SuiteMeasurements.read(saved);
        } else {
            measured = measure(Boolean.getBoolean("bench.quick"), System.getProperty("bench.include", ".*"));
            measured.write(saved);
        }
        String report = new Report(measured).render();
        Files.writeString(out, report, StandardCharsets.UTF_8);
        System.out.println(report);
        System.out.println("Wrote " + out.toAbsolutePath() + " from the measurements in " + saved.toAbsolutePath());
    }

    /** measure(quick, include): runs the benchmarks include selects, JMH's then the fresh-JVM ones. */
    private static SuiteMeasurements measure(boolean quick, String include) throws Exception {
        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        long start = System.nanoTime();
        CoreToCoreProbe probe = new CoreToCoreProbe(
                OutputFormatFactory.createFormatInstance(System.out, VerboseMode.NORMAL));
        Collection<RunResult> results = runJmh(include, quick, probe);
        Map<String, List<Long>> memory = include.equals(".*") || "Memory".matches(include)
                || include.contains("Memory") ? runMemory() : Map.of();
        List<SuiteMeasurements.FreshSection> fresh = new ArrayList<>();
        for (FreshJvmCases.Section section : FreshJvmCases.sections(quick)) {
            if (FreshJvmCases.selected(include, section)) {
                FreshJvmCases.Measured m = FreshJvmCases.run(section);
                fresh.add(new SuiteMeasurements.FreshSection(section.title(), m.values(), m.failures()));
            }
        }
        Map<String, Double> coreToCore = new LinkedHashMap<>();
        for (RunResult r : results) {
            coreToCore.put(CoreToCoreProbe.key(r.getParams()), probe.after(r.getParams()));
        }
        double loadAfter = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        long minutes = (System.nanoTime() - start) / 60_000_000_000L;
        return new SuiteMeasurements(new ArrayList<>(results), coreToCore, memory, fresh,
                new SuiteMeasurements.RunInfo(ZonedDateTime.now().format(DateTimeFormatter.RFC_1123_DATE_TIME), quick,
                        loadBefore, loadAfter, minutes));
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
}
