package org.marl4j.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Report renders RESULTS.md from one run's {@link SuiteMeasurements}: the machine, a summary line
 * per {@link Workload} with its ratios and which rows meet which {@link Target} (per engine, per
 * config), the fresh-JVM sections, the losses, and each workload's detail table.
 */
final class Report {
    /** The memory target, for each engine: the issue names no engine for it. */
    private static final String MEMORY_TARGET = "≤ a parked virtual thread";

    private final SuiteMeasurements measured;
    private final List<Row> rows;

    Report(SuiteMeasurements measured) {
        this.measured = measured;
        this.rows = measured.jmh().stream().map(r -> Row.of(r, measured.coreToCore())).toList();
    }

    String render() {
        StringBuilder md = new StringBuilder();
        header(md);
        StringBuilder summary = new StringBuilder();
        summary.append("| workload | best marl4j | best baseline (any thread count) | ratio best / best"
                        + " | ratio per marl4j config, like for like | target | met (per engine, per config) |\n")
                .append("|---|---|---|---|---|---|---|\n");
        StringBuilder details = new StringBuilder();
        StringBuilder losses = new StringBuilder();
        for (Workload w : Workload.SUITE) {
            workload(w, summary, details, losses);
        }
        memorySection(summary, details, losses);
        md.append("## Summary\n\nRatios are of medians, marl4j time / baseline time: **below 1 means marl4j is faster**"
                + " (for memory: fewer bytes). \"Best baseline\" and the ratio beside it are the best marl4j config against"
                + " the best baseline of any thread count; the ratios per config and the losses compare like for like (see"
                + " the header) and name the baseline each ratio is against. \"met\" says, per target and per engine"
                + " held to it, which configs meet it and which do not (\"n/a\": its reference rows were not run).\n\n")
                .append(summary).append('\n');
        List<FreshJvmCases.Measured> fresh = freshSections();
        if (!fresh.isEmpty()) {
            StringBuilder freshSummary = new StringBuilder("| workload (fresh JVM per run) | marl4j ratio per case"
                    + " (vs the section's baseline) | target | met |\n|---|---|---|---|\n");
            StringBuilder freshDetails = new StringBuilder();
            for (FreshJvmCases.Measured m : fresh) {
                FreshJvmCases.render(m, freshSummary, freshDetails);
            }
            md.append(freshSummary).append('\n');
            details.append(freshDetails);
        }
        md.append("## Where marl4j loses (ratio above 1 against the like-for-like baseline of this run)\n\n")
                .append(losses.isEmpty() ? "Nowhere in this run.\n" : losses)
                .append("\nWhy, where it is known: see README.md, \"Where marl4j loses, and why\".\n\n");
        md.append(details);
        return md.toString();
    }

    /** The fresh-JVM sections of this run, each with its definition from {@link FreshJvmCases#sections}. */
    private List<FreshJvmCases.Measured> freshSections() {
        Map<String, FreshJvmCases.Section> byTitle = new LinkedHashMap<>();
        FreshJvmCases.sections(measured.run().quick()).forEach(s -> byTitle.put(s.title(), s));
        List<FreshJvmCases.Measured> out = new ArrayList<>();
        for (SuiteMeasurements.FreshSection f : measured.fresh()) {
            FreshJvmCases.Section section = byTitle.get(f.title());
            if (section != null) {
                out.add(new FreshJvmCases.Measured(section, f.values(), f.failures()));
            }
        }
        return out;
    }

    private void header(StringBuilder md) {
        SuiteMeasurements.RunInfo run = measured.run();
        md.append("# marl4j benchmark results\n\n");
        if (run.quick()) {
            md.append("**QUICK SMOKE RUN (bench.quick=true): the numbers below mean nothing.**\n\n");
        }
        md.append("- Date: ").append(run.date()).append('\n')
                .append("- Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" cores (")
                .append(cpuModel()).append("), ").append(System.getProperty("os.name")).append(' ')
                .append(System.getProperty("os.version")).append('\n')
                .append("- JDK: ").append(System.getProperty("java.vm.name")).append(' ')
                .append(System.getProperty("java.runtime.version")).append('\n')
                .append(String.format(Locale.ROOT, "- Load average (1 min) at start %.2f, at end %.2f; suite took ~%d min%n",
                        run.loadBefore(), run.loadAfter(), run.minutes()))
                .append("- Caveat: a shared, noisy 2-core machine (see the load average above): trust ratios of medians"
                        + " within one run, not absolute times, and expect ±20% run to run (far more when the load"
                        + " average is above the core count).\n")
                .append("- Engines: every marl4j row runs once per fiber engine, named by `engine=` in its config:"
                        + " `VIRTUAL_THREADS` (each fiber a virtual thread on a marl4j worker) and `CONTINUATIONS`"
                        + " (a `jdk.internal.vm.Continuation` run by the worker). The speed targets are held by the"
                        + " engine the \"met\" column names.\n")
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
        List<Row> mine = rows.stream()
                .filter(r -> r.type().equals(w.type().getName()) && r.method().startsWith(w.prefix()))
                .toList();
        if (mine.isEmpty()) {
            return;
        }
        List<Row> baselines = mine.stream().filter(Row::isBaseline).toList();
        Row bestBaseline = best(baselines);
        Row bestMarl = best(mine.stream().filter(Row::isMarl).toList());
        boolean anyOneThread = baselines.stream().anyMatch(Row::oneThread);
        details.append("## ").append(w.title()).append("\n\n")
                .append("`").append(w.type().getSimpleName()).append("`. Median and mean ± 99.9% error (JMH), ")
                .append(mine.get(0).unit()).append(".\n\n")
                .append("| benchmark | params | median | mean ± error | ratio vs like-for-like baseline"
                        + " | core-to-core round trip right after its fork, ns |\n|---|---|---|---|---|---|\n");
        for (Row r : mine) {
            String note;
            if (r.isMarl()) {
                Row like = likeForLike(r, baselines);
                note = like == null ? "" : ratio(r.median() / like.median()) + " vs " + like.label();
            } else if (r.isFloor()) {
                note = "floor, not a baseline";
            } else {
                note = !anyOneThread ? "baseline of every config"
                        : r.oneThread() ? "1-thread baseline, for threads=0, 1"
                        : "baseline for threads=2 and configs without threads";
            }
            details.append(String.format(Locale.ROOT, "| %s | %s | %s | %s ± %s | %s | %s |%n", r.method(), r.params(),
                    num(r.median()), num(r.mean()), num(r.error()), note, num(r.coreToCore())));
        }
        details.append('\n');
        if (bestMarl == null || bestBaseline == null) {
            return;
        }
        for (Row r : mine) {
            Row like = r.isMarl() ? likeForLike(r, baselines) : null;
            if (like != null && r.median() > like.median()) {
                losses.append(String.format(Locale.ROOT, "- %s: %s takes %.2f× the time of %s (%s vs %s %s)%s.%n",
                        w.title(), r.label(), r.median() / like.median(), like.label(),
                        num(r.median()), num(like.median()), r.unit(), coreToCoreNote(r, like)));
            }
        }
        summary.append(String.format(Locale.ROOT, "| %s | %s: %s | %s: %s | **%s** | %s | %s | %s |%n",
                w.title(), bestMarl.cell(), num(bestMarl.median()), bestBaseline.cell(),
                num(bestBaseline.median()), ratio(bestMarl.median() / bestBaseline.median()),
                perConfig(mine, baselines), targets(w), met(w, mine)));
    }

    /**
     * perConfig: each engine's ratios against their like-for-like baselines, configs compared with
     * the same baseline together: "VIRTUAL_THREADS: threads=0: 0.90, threads=1: 1.10 vs X; threads=2: ...".
     */
    private static String perConfig(List<Row> mine, List<Row> baselines) {
        Map<String, Map<String, StringBuilder>> byEngine = new LinkedHashMap<>();
        for (Row r : mine) {
            if (r.isMarl()) {
                Row like = likeForLike(r, baselines);
                StringBuilder group = byEngine.computeIfAbsent(r.engine(), k -> new LinkedHashMap<>())
                        .computeIfAbsent(like.label(), k -> new StringBuilder());
                group.append(group.isEmpty() ? "" : ", ").append(r.configLabelWithoutEngine()).append(": ")
                        .append(ratio(r.median() / like.median()));
            }
        }
        List<String> engines = new ArrayList<>();
        byEngine.forEach((engine, groups) -> {
            StringBuilder line = new StringBuilder(engine.isEmpty() ? "" : "**" + engine + "**: ");
            List<String> parts = new ArrayList<>();
            groups.forEach((label, group) -> parts.add(group + " vs " + label));
            engines.add(line.append(String.join("; ", parts)).toString());
        });
        return String.join("<br>", engines);
    }

    /** targets(w): the workload's distinct target texts, lettered (a), (b), ... as "met" refers to them. */
    private static String targets(Workload w) {
        List<String> texts = distinctTexts(w.targets());
        if (texts.isEmpty()) {
            return "–";
        }
        List<String> lettered = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            lettered.add(letter(i) + " " + texts.get(i));
        }
        return String.join("<br>", lettered);
    }

    /** met(w, mine): per target (lettered as in targets) and engine, the configs that meet it and those that do not. */
    private static String met(Workload w, List<Row> mine) {
        List<String> texts = distinctTexts(w.targets());
        if (texts.isEmpty()) {
            return "–";
        }
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            List<String> perEngine = new ArrayList<>();
            for (Target t : w.targets()) {
                if (t.text().equals(texts.get(i))) {
                    perEngine.add(t.engine() + " " + yesNo(mine.stream().filter(t::appliesTo).toList(),
                            m -> t.met(m, mine), Row::configLabelWithoutEngine));
                }
            }
            lines.add(letter(i) + " " + String.join("; ", perEngine));
        }
        return String.join("<br>", lines);
    }

    /**
     * yesNo(items, verdict, name): "yes: a, b; **no: c**; n/a: d" over items; verdict null means
     * the item could not be judged; "not run" when there are no items.
     */
    static <T> String yesNo(List<T> items, java.util.function.Function<T, Boolean> verdict,
                            java.util.function.Function<T, String> name) {
        List<String> yes = new ArrayList<>();
        List<String> no = new ArrayList<>();
        List<String> unknown = new ArrayList<>();
        for (T item : items) {
            Boolean ok = verdict.apply(item);
            (ok == null ? unknown : ok ? yes : no).add(name.apply(item));
        }
        List<String> parts = new ArrayList<>();
        if (!yes.isEmpty()) {
            parts.add("yes: " + String.join(", ", yes));
        }
        if (!no.isEmpty()) {
            parts.add("**no: " + String.join(", ", no) + "**");
        }
        if (!unknown.isEmpty()) {
            parts.add("n/a: " + String.join(", ", unknown));
        }
        return parts.isEmpty() ? "not run" : String.join("; ", parts);
    }

    private static List<String> distinctTexts(List<Target> targets) {
        return targets.stream().map(Target::text).distinct().toList();
    }

    private static String letter(int i) {
        return "(" + (char) ('a' + i) + ")";
    }

    /**
     * coreToCoreNote(r, like): the two forks' core-to-core round trips when one was in a slow
     * episode (200 ns or more) and they differ by half or more, since the comparison then says
     * more about the machine than about the code.
     */
    private static String coreToCoreNote(Row r, Row like) {
        double a = r.coreToCore();
        double b = like.coreToCore();
        // Two hyperthreads of one core (~30 ns) against two cores (~70) is not worth a note.
        if (Double.isNaN(a) || Double.isNaN(b) || Math.max(a, b) < 200 || Math.max(a, b) < 1.5 * Math.min(a, b)) {
            return "";
        }
        return String.format(Locale.ROOT, "; **the machine differed: a core-to-core round trip took %s ns"
                + " right after marl4j's fork and %s ns after the baseline's**", num(a), num(b));
    }

    /** best(rows): the row with the lowest median, or null. */
    private static Row best(List<Row> rows) {
        return rows.stream().min((a, b) -> Double.compare(a.median(), b.median())).orElse(null);
    }

    /** likeForLike(m, baselines): the fastest baseline with marl4j row m's thread count (see Target.sameThreads). */
    private static Row likeForLike(Row m, List<Row> baselines) {
        return best(Target.sameThreads(m, baselines));
    }

    private void memorySection(StringBuilder summary, StringBuilder details, StringBuilder losses) {
        Map<String, List<Long>> memory = measured.memory();
        if (memory.isEmpty()) {
            return;
        }
        details.append("## Memory: heap bytes per suspended fiber (100,000 blocked)\n\n")
                .append("`MemoryBenchmark`, each case in a fresh JVM (-Xmx2g, SerialGC so that a full GC compacts"
                        + " everything), ").append(RunSuite.MEMORY_RUNS)
                .append(" runs; heap used after System.gc() while all are blocked on an Event, minus before, / 100,000.\n\n")
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
            if (marl && m > vt) {
                losses.append(String.format(Locale.ROOT, "- Memory: a suspended fiber with %s holds %d bytes of heap, a parked"
                        + " virtual thread %d (%.2f×).%n", e.getKey().replace("marl4j ", ""), m, vt, (double) m / vt));
            }
            details.append(String.format(Locale.ROOT, "| %s | %s | %d | %s |%n", e.getKey(), e.getValue(), m,
                    marl && vt > 0 ? ratio((double) m / vt) : ""));
        }
        details.append('\n');
        List<String> met = new ArrayList<>();
        for (String engine : Target.ENGINES) {
            List<Map.Entry<String, List<Long>>> cases = memory.entrySet().stream()
                    .filter(e -> e.getKey().startsWith("marl4j " + engine + " ")).toList();
            met.add(engine + " " + yesNo(cases, e -> median(e.getValue()) <= vt,
                    e -> e.getKey().substring(("marl4j " + engine + " ").length())));
        }
        summary.append(String.format(Locale.ROOT, "| Memory per suspended fiber on an Event, bytes | %s: %d | virtualThreads: %d"
                        + " | **%s** | %s | %s | %s |%n", bestCase, bestMarl, vt, ratio((double) bestMarl / vt),
                perConfigMemory(vt), MEMORY_TARGET, String.join("<br>", met)));
        details.append("Each case first runs 3 warm-up rounds of 20,000 (MemoryBenchmark), so compiled frames are measured."
                + " `Memory at scale` below measures the same with `Futures.await` too, and at 1,000,000.\n\n");
    }

    private String perConfigMemory(long vt) {
        List<String> parts = new ArrayList<>();
        measured.memory().forEach((k, v) -> {
            if (k.startsWith("marl4j")) {
                parts.add(k.replace("marl4j ", "") + ": " + ratio((double) median(v) / vt));
            }
        });
        return String.join("; ", parts);
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

    static String num(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        return v >= 100 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }

    static String ratio(double r) {
        return String.format(Locale.ROOT, "%.2f", r);
    }
}
