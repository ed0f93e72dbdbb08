package org.marl4j.benchmarks;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

import org.marl4j.WaitGroup;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * EmptyTasksBenchmark: one producer submits 1,000,000 empty tasks (each only counts down) and waits
 * for all of them: marl4j with a WaitGroup vs a ForkJoinPool, a fixed ThreadPoolExecutor (each with
 * {@code poolThreads} = 1, beside marl4j's threads=0 and 1, and 2, beside threads=2) and a virtual
 * thread per task (default scheduler, and on one carrier: {@code virtualThreadPerTask_1carrier}),
 * each with a CountDownLatch. SingleShot; scores are ns per task.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 10)
@Measurement(iterations = 20)
@Fork(value = 1, jvmArgsAppend = {BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS, "-Xms1g", "-Xmx1g", BenchSupport.PRE_TOUCH})
public class EmptyTasksBenchmark {
    static final int TASKS = 1_000_000;

    /** The platform-thread pools, with as many threads as the marl4j rows they stand beside. */
    @State(Scope.Thread)
    public static class Pools {
        @Param({"1", "2"})
        public int poolThreads;
        ForkJoinPool forkJoin;
        ExecutorService fixed;

        @Setup(Level.Trial)
        public void create() {
            forkJoin = new ForkJoinPool(poolThreads);
            fixed = Executors.newFixedThreadPool(poolThreads);
        }

        @TearDown(Level.Trial)
        public void close() {
            BenchSupport.shutdown(forkJoin);
            BenchSupport.shutdown(fixed);
        }
    }

    /** A virtual thread per task; its carrier count is set per fork (see {@link VirtualCarriers}). */
    @State(Scope.Thread)
    public static class VirtualPerTask extends VirtualCarriers {
        ExecutorService virtual;

        @Setup(Level.Trial)
        public void create() {
            virtual = Executors.newVirtualThreadPerTaskExecutor();
        }

        @TearDown(Level.Trial)
        public void close() {
            BenchSupport.shutdown(virtual);
        }
    }

    @Benchmark
    @OperationsPerInvocation(TASKS)
    public WaitGroup marl4j(BoundScheduler m) {
        return BenchSupport.enqueueAndAwait(m.scheduler, TASKS);
    }

    @Benchmark
    @OperationsPerInvocation(TASKS)
    public CountDownLatch forkJoinPool(Pools p) throws InterruptedException {
        return runAll(p.forkJoin);
    }

    @Benchmark
    @OperationsPerInvocation(TASKS)
    public CountDownLatch threadPoolExecutor(Pools p) throws InterruptedException {
        return runAll(p.fixed);
    }

    /** A virtual thread per task on the default scheduler (one carrier per core): beside threads=2. */
    @Benchmark
    @OperationsPerInvocation(TASKS)
    public CountDownLatch virtualThreadPerTask(VirtualPerTask v) throws InterruptedException {
        return runAll(v.virtual);
    }

    /** A virtual thread per task on one carrier: beside threads=0 and threads=1. */
    @Benchmark
    @OperationsPerInvocation(TASKS)
    @Fork(value = 1, jvmArgsAppend = {BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS, "-Xms1g", "-Xmx1g", BenchSupport.PRE_TOUCH,
            BenchSupport.VT_ONE_CARRIER, BenchSupport.VT_MAX_ONE_CARRIER})
    public CountDownLatch virtualThreadPerTask_1carrier(VirtualPerTask v) throws InterruptedException {
        return runAll(v.virtual);
    }

    private static CountDownLatch runAll(ExecutorService pool) throws InterruptedException {
        CountDownLatch latch = new CountDownLatch(TASKS);
        Runnable done = latch::countDown;
        for (int i = 0; i < TASKS; i++) {
            pool.execute(done);
        }
        latch.await();
        return latch;
    }
}
