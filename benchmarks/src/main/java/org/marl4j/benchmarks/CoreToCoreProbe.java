package org.marl4j.benchmarks;

import java.io.IOException;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.format.OutputFormat;

/**
 * CoreToCoreProbe measures the machine after every benchmark of a run: as soon as a benchmark's
 * fork has ended, two threads of the suite's own JVM bounce a cache line between the two cores for
 * {@value #PROBE_MILLIS} ms, and the fastest batch's round trip is kept for RESULTS.md. It is a decorator of
 * JMH's console output, whose end-of-benchmark callback runs in the suite's JVM while no fork is
 * alive, so it never competes with a measurement. (Its start-of-benchmark callback is no place for
 * a probe: the probe there read 20-35 us a round trip at times, the next fork's JVM starting.)
 *
 * <p>Why: on the shared 2-core VM the benchmarks run on, this round trip is ~70 ns most of the time
 * and ~450 ns in episodes that last minutes, presumably while the host runs the two virtual CPUs far
 * apart. Every hand-over between two threads then costs several times more: marl4j's cross-worker
 * ping-pong measured ~2,800 ns a round trip in such an episode against ~850 outside one, in the same
 * build, its workers spinning and never sleeping. A ratio between two rows is only meaningful when
 * both forks ran in the same state.
 *
 * <p>Why not inside the forks: a probe before each iteration kept both cores busy up to the start
 * of each shot, and the ~0.5 ms single shots of the Event chain and Ticket then ran 2-3x faster,
 * virtual threads and marl4j alike, than shots that start from idle cores; after the last
 * iteration, a fork's own threads could still be busy and the probe read the contention instead.
 */
final class CoreToCoreProbe implements OutputFormat {
    /** How long each probe bounces the line. */
    static final int PROBE_MILLIS = 20;
    private static final int ROUND_TRIPS_PER_BATCH = 1_000;
    /**
     * A round trip this long means a probe thread kept losing its core to another thread (a
     * context switch per bounce), not a distant core: those cost ~450 ns here.
     */
    private static final double CROWDED_NANOS = 5_000;

    private final OutputFormat out;
    /** Per benchmark and params (see {@link #key}): the round trip right after its fork, ns. */
    private final Map<String, Double> probes = new ConcurrentHashMap<>();

    CoreToCoreProbe(OutputFormat out) {
        this.out = out;
    }

    /** key(params) names a benchmark and its parameters as RunSuite's rows do. */
    static String key(BenchmarkParams params) {
        StringBuilder key = new StringBuilder(params.getBenchmark());
        for (String name : params.getParamsKeys()) {
            key.append(' ').append(name).append('=').append(params.getParam(name));
        }
        return key.toString();
    }

    /** after(params): the round trip measured right after that benchmark's fork, ns, or NaN. */
    double after(BenchmarkParams params) {
        return probes.getOrDefault(key(params), Double.NaN);
    }

    @Override
    public void startBenchmark(BenchmarkParams params) {
        out.startBenchmark(params);
    }

    @Override
    public void endBenchmark(BenchmarkResult result) {
        out.endBenchmark(result);
        double roundTrip = measure(PROBE_MILLIS * 1_000_000L);
        if (roundTrip > CROWDED_NANOS) {
            // Crowded, not slow: the fork's JVM was still exiting, or this JVM collecting. Once more.
            LockSupport.parkNanos(100_000_000L);
            roundTrip = measure(PROBE_MILLIS * 1_000_000L);
        }
        probes.put(key(result.getParams()), roundTrip);
        out.println(String.format(java.util.Locale.ROOT, "core-to-core round trip right after the fork: %.1f ns", roundTrip));
    }

    /**
     * measure(nanos) bounces a counter between this thread and a new one for about nanos; returns
     * the fastest batch's ns per round trip: batches slowed by another thread taking a core for a
     * moment say nothing about how far apart the cores are.
     */
    static double measure(long nanos) {
        AtomicLong line = new AtomicLong();
        Thread echo = Thread.ofPlatform().daemon().name("core-to-core-echo").start(() -> {
            for (long v; (v = line.getAcquire()) >= 0; ) {
                if ((v & 1) == 1) {
                    line.setRelease(v + 1); // answer a ping (odd) with the next even value
                } else {
                    Thread.onSpinWait();
                }
            }
        });
        long[] batches = new long[4_096];
        int n = 0;
        long value = 0;
        long end = System.nanoTime() + nanos;
        while (n < batches.length && System.nanoTime() - end < 0) {
            long start = System.nanoTime();
            for (int i = 0; i < ROUND_TRIPS_PER_BATCH; i++) {
                line.setRelease(++value); // a ping: odd
                long answer = ++value;
                while (line.getAcquire() != answer) {
                    Thread.onSpinWait();
                }
            }
            batches[n++] = System.nanoTime() - start;
        }
        line.setRelease(-1);
        try {
            echo.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long[] done = Arrays.copyOf(batches, n);
        Arrays.sort(done);
        return n == 0 ? Double.NaN : (double) done[0] / ROUND_TRIPS_PER_BATCH;
    }

    // ---------------------------------------------------------------- the rest goes to JMH's output, as is

    @Override
    public void iteration(BenchmarkParams benchParams, IterationParams params, int iteration) {
        out.iteration(benchParams, params, iteration);
    }

    @Override
    public void iterationResult(BenchmarkParams benchParams, IterationParams params, int iteration, IterationResult data) {
        out.iterationResult(benchParams, params, iteration, data);
    }

    @Override
    public void startRun() {
        // Until the JIT has compiled the probe's two loops, a probe reads the compiler's
        // competition for the cores (~30 us a round trip), not the machine.
        for (int i = 0; i < 5; i++) {
            measure(PROBE_MILLIS * 1_000_000L);
        }
        out.startRun();
    }

    @Override
    public void endRun(Collection<RunResult> result) {
        out.endRun(result);
    }

    @Override
    public void print(String s) {
        out.print(s);
    }

    @Override
    public void println(String s) {
        out.println(s);
    }

    @Override
    public void flush() {
        out.flush();
    }

    @Override
    public void close() {
        out.close();
    }

    @Override
    public void verbosePrintln(String s) {
        out.verbosePrintln(s);
    }

    @Override
    public void write(int b) {
        out.write(b);
    }

    @Override
    public void write(byte[] b) throws IOException {
        out.write(b);
    }
}
