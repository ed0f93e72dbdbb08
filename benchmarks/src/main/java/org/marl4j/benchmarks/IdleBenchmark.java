package org.marl4j.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.marl4j.Scheduler;
import org.marl4j.Task;

/**
 * Idle cost: a light, steady stream of tiny tasks, one every millisecond (1,000 per second) for a
 * few seconds, submitted by one platform thread on a fixed-rate clock. Reports the process CPU
 * time spent per task over the stream ({@code com.sun.management.OperatingSystemMXBean}) — at this
 * load a scheduler that spins between tasks burns a core for nothing — and the latency of a single
 * task submitted after 100 ms of complete idleness (median of 20), which is what spinning buys.
 *
 * <p>A plain {@code main} run in a fresh JVM per case by {@link RunSuite}:
 * {@code IdleBenchmark <marl4j <workers>|forkJoinPool <threads>> [seconds]}. Prints
 * {@code cpuNanosPerTask=...} and {@code latencyAfterIdleNanos=...}.
 */
public final class IdleBenchmark {
    private static final long PERIOD_NANOS = 1_000_000;
    private static final int IDLE_PROBES = 20;
    private static final long IDLE_NANOS = 100_000_000;

    private IdleBenchmark() {}

    public static void main(String[] args) throws Exception {
        String what = args.length > 0 ? args[0] : "marl4j";
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        switch (what) {
            case "marl4j" -> {
                try (Scheduler s = BenchSupport.newScheduler(threads, BenchSupport.mainEngine())) {
                    System.out.println("engine " + s.fiberEngine());
                    measure(r -> s.enqueue(new Task(r)), seconds);
                }
            }
            case "forkJoinPool" -> {
                ForkJoinPool pool = new ForkJoinPool(threads);
                measure(pool::execute, seconds);
                BenchSupport.shutdown(pool);
            }
            default -> throw new IllegalArgumentException("usage: IdleBenchmark marl4j <workers> | forkJoinPool <threads> [seconds]");
        }
    }

    private static void measure(Consumer<Runnable> submit, int seconds) throws InterruptedException {
        AtomicLong ran = new AtomicLong();
        Runnable tiny = ran::incrementAndGet;
        // Warm-up: one second of the same stream, so the JIT has settled before CPU time is read.
        stream(submit, tiny, 1_000);
        int tasks = seconds * 1_000;
        long cpuBefore = processCpuNanos();
        stream(submit, tiny, tasks);
        long cpuAfter = processCpuNanos();
        while (ran.get() < 1_000L + tasks) {
            Thread.sleep(1);
        }
        long[] latency = new long[IDLE_PROBES];
        for (int i = 0; i < IDLE_PROBES; i++) {
            LockSupport.parkNanos(IDLE_NANOS);
            Thread caller = Thread.currentThread();
            AtomicLong ranAt = new AtomicLong();
            long start = System.nanoTime();
            submit.accept(() -> {
                ranAt.set(System.nanoTime());
                LockSupport.unpark(caller);
            });
            while (ranAt.get() == 0) {
                LockSupport.park();
            }
            latency[i] = ranAt.get() - start;
        }
        Arrays.sort(latency);
        System.out.println(String.format(Locale.ROOT, "cpuNanosPerTask=%d", (cpuAfter - cpuBefore) / tasks));
        System.out.println("latencyAfterIdleNanos=" + latency[IDLE_PROBES / 2]);
    }

    /** stream(submit, task, n) submits n tasks, one per millisecond on a fixed-rate clock. */
    private static void stream(Consumer<Runnable> submit, Runnable task, int n) {
        long next = System.nanoTime();
        for (int i = 0; i < n; i++) {
            submit.accept(task);
            next += PERIOD_NANOS;
            long wait;
            while ((wait = next - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }
}
