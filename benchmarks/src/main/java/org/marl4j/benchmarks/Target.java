package org.marl4j.benchmarks;

import java.util.List;
import java.util.Set;

/**
 * Target is one goal a workload's marl4j rows of one fiber engine are held to: each row's median
 * (a time, or bytes) at most {@code factor} × the median of every reference row. The references
 * are either named baseline or floor rows with the marl4j row's thread count ({@link #beside}), or
 * the same config on another engine ({@link #besideEngine}).
 *
 * @param text        the goal as RESULTS.md states it
 * @param engine      the engine whose rows are held to it
 * @param factor      the largest allowed ratio marl4j / reference (1 / 1.5 for "≥ 1.5× the throughput")
 * @param families    reference rows by name, without the {@code _1carrier} suffix (empty for besideEngine)
 * @param otherEngine the engine of the reference row (null for beside)
 * @param marlMethods the prefix of the marl4j methods held to it ("" for all of the workload's)
 */
record Target(String text, String engine, double factor, Set<String> families, String otherEngine, String marlMethods) {
    /** The engine every issue-named speed target is for. */
    static final String VIRTUAL_THREADS = "VIRTUAL_THREADS";
    /** Both fiber engines: a target the issue states without naming an engine holds each. */
    static final List<String> ENGINES = List.of(VIRTUAL_THREADS, "CONTINUATIONS");

    /** beside(text, engine, factor, families...): ≤ factor × each named row with the marl4j row's thread count. */
    static Target beside(String text, String engine, double factor, String... families) {
        return new Target(text, engine, factor, Set.of(families), null, "");
    }

    /** besideEngine(text, engine, factor, other): ≤ factor × the same method and params on engine other. */
    static Target besideEngine(String text, String engine, double factor, String other) {
        return new Target(text, engine, factor, Set.of(), other, "");
    }

    /** onlyFor(prefix): this target, held only by the marl4j methods whose names start with prefix. */
    Target onlyFor(String prefix) {
        return new Target(text, engine, factor, families, otherEngine, prefix);
    }

    /** appliesTo(m): m is a marl4j row of this target's engine and methods. */
    boolean appliesTo(Row m) {
        return m.isMarl() && m.engine().equals(engine) && m.method().startsWith(marlMethods);
    }

    /** references(m, rows): the rows m is measured against among its workload's rows (empty: none was run). */
    List<Row> references(Row m, List<Row> rows) {
        if (otherEngine != null) {
            String params = m.paramsWith(Row.ENGINE, otherEngine);
            return rows.stream().filter(r -> r.method().equals(m.method()) && r.params().equals(params)).toList();
        }
        return sameThreads(m, rows.stream().filter(r -> !r.isMarl() && families.contains(r.family())).toList());
    }

    /** met(m, rows): whether m meets this target, or null when none of its references was run. */
    Boolean met(Row m, List<Row> rows) {
        List<Row> refs = references(m, rows);
        if (refs.isEmpty()) {
            return null;
        }
        return refs.stream().allMatch(r -> m.median() <= r.median() * factor);
    }

    /**
     * sameThreads(m, candidates): the candidates that run on as many threads as marl4j row m (one
     * thread for threads=0 and 1, more otherwise), or all of them if none does.
     */
    static List<Row> sameThreads(Row m, List<Row> candidates) {
        List<Row> same = candidates.stream().filter(b -> b.oneThread() == m.oneThread()).toList();
        return same.isEmpty() ? candidates : same;
    }
}
