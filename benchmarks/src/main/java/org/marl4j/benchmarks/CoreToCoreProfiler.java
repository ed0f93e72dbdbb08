package org.marl4j.benchmarks;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * CoreToCoreProfiler measures, in every JMH fork and before every iteration, how long a cache line
 * takes to go from one core to another and back: two platform threads bounce a volatile counter for
 * {@value #PROBE_MILLIS} ms, and the median round trip of short batches is reported as the secondary
 * result {@value #RESULT} (ns). RunSuite adds it to every run, so RESULTS.md shows it beside each
 * row.
 *
 * <p>Why: on the shared 2-core VM the benchmarks run on, this round trip is ~70 ns most of the time
 * and ~450 ns in episodes that last minutes, presumably while the host runs the two virtual CPUs far
 * apart. Every hand-over between two threads then costs several times more: marl4j's cross-worker
 * ping-pong measured ~2,700 ns a round trip in such an episode against ~850 outside one, in the same
 * build, with its workers spinning and never sleeping. A ratio between two rows is only meaningful
 * when both forks saw a similar round trip.
 */
public final class CoreToCoreProfiler implements InternalProfiler {
    /** The name of the secondary result, in ns per round trip. */
    static final String RESULT = "coreToCore";
    /** How long each probe bounces the line. */
    static final int PROBE_MILLIS = 20;
    private static final int ROUND_TRIPS_PER_BATCH = 1_000;

    private double lastProbe = Double.NaN;

    @Override
    public String getDescription() {
        return "core-to-core cache-line round trip before each iteration, ns";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        lastProbe = measure(PROBE_MILLIS * 1_000_000L);
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams,
            IterationParams iterationParams, IterationResult result) {
        return List.of(new ScalarResult(RESULT, lastProbe, "ns", AggregationPolicy.AVG));
    }

    /** measure(nanos) bounces a counter between this thread and a new one for about nanos; returns the median batch's ns per round trip. */
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
        if (n == 0) {
            return Double.NaN;
        }
        long[] done = Arrays.copyOf(batches, n);
        Arrays.sort(done);
        return (double) done[n / 2] / ROUND_TRIPS_PER_BATCH;
    }
}
