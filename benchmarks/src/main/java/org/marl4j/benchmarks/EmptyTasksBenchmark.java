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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * EmptyTasksBenchmark: one producer submits 1,000,000 empty tasks (each only counts down) and waits
 * for all of them: marl4j with a WaitGroup vs ForkJoinPool(2), a fixed ThreadPoolExecutor(2) and a
 * virtual thread per task, each with a CountDownLatch. SingleShot; scores are ns per task.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@Fork(value = 1, jvmArgsAppend = {BenchSupport.ADD_EXPORTS, "-Xms1g", "-Xmx1g"})
public class EmptyTasksBenchmark {
    static final int TASKS = 1_000_000;
    /** Threads of the baseline pools: the machine's two cores. */
    static final int POOL_THREADS = 2;

    @State(Scope.Thread)
    public static class Pools {
        ForkJoinPool forkJoin;
        ExecutorService fixed;
        ExecutorService virtual;

        @Setup(Level.Trial)
        public void create() {
            forkJoin = new ForkJoinPool(POOL_THREADS);
            fixed = Executors.newFixedThreadPool(POOL_THREADS);
            virtual = Executors.newVirtualThreadPerTaskExecutor();
        }

        @TearDown(Level.Trial)
        public void close() {
            BenchSupport.shutdown(forkJoin);
            BenchSupport.shutdown(fixed);
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

    @Benchmark
    @OperationsPerInvocation(TASKS)
    public CountDownLatch virtualThreadPerTask(Pools p) throws InterruptedException {
        return runAll(p.virtual);
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
