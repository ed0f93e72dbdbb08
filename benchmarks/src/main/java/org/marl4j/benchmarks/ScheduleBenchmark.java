package org.marl4j.benchmarks;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.ArrayDeque;

import org.marl4j.Scheduler;
import org.marl4j.Task;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * ScheduleBenchmark is marl's {@code src/scheduler_bench.cpp} (Schedule/Empty, Schedule/WaitGroup,
 * Schedule/SomeWork) with the {@code src/non_marl_bench.cpp} baselines (SingleQueueTaskExecutor,
 * MultiQueueTaskExecutor) and a ForkJoinPool beside them.
 *
 * <p>As in marl, the scheduler is built and bound outside the timed region. One invocation is one
 * of marl's iterations (SingleShot); scores are per task. Schedule/SomeWork uses 512 tasks instead
 * of marl's 262,144 (a run would otherwise take ~45 s per iteration): compare per-task times.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 10)
@Measurement(iterations = 20)
@Fork(value = 1, jvmArgsAppend = {BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS, "-Xms1g", "-Xmx1g", BenchSupport.PRE_TOUCH})
public class ScheduleBenchmark {
    /** Tasks per iteration for Empty and WaitGroup: marl's default. */
    static final int TASKS = 262_144;
    /** Tasks per iteration for SomeWork: 512 × ~170 µs, so one iteration takes ~0.1 s. */
    static final int WORK_TASKS = 512;
    /** Plain-thread baselines run with 1 and 2 threads (0 threads has no meaning for them). */
    @State(Scope.Thread)
    public static class Threads {
        @Param({"1", "2"})
        public int poolThreads;
        ForkJoinPool forkJoin;

        @Setup(Level.Trial)
        public void create() {
            forkJoin = new ForkJoinPool(poolThreads);
        }

        @TearDown(Level.Trial)
        public void close() {
            BenchSupport.shutdown(forkJoin);
        }
    }

    private static final Runnable EMPTY = () -> {};

    /** Schedule/Empty: schedule empty tasks, do not wait. */
    @Benchmark
    @OperationsPerInvocation(TASKS)
    public void empty_marl4j(BoundScheduler m) {
        Scheduler s = m.scheduler;
        for (int i = 0; i < TASKS; i++) {
            s.enqueue(new Task(EMPTY));
        }
    }

    /** Schedule/Empty baseline: submit empty tasks to a ForkJoinPool, do not wait. */
    @Benchmark
    @OperationsPerInvocation(TASKS)
    public void empty_forkJoinPool(Threads t) {
        ForkJoinPool pool = t.forkJoin;
        for (int i = 0; i < TASKS; i++) {
            pool.execute(EMPTY);
        }
    }

    /** Schedule/WaitGroup: tasks that only done() a WaitGroup; wait for all. */
    @Benchmark
    @OperationsPerInvocation(TASKS)
    public WaitGroup waitGroup_marl4j(BoundScheduler m) {
        return BenchSupport.enqueueAndAwait(m.scheduler, TASKS);
    }

    /** Schedule/WaitGroup baseline: ForkJoinPool tasks that count down a latch. */
    @Benchmark
    @OperationsPerInvocation(TASKS)
    public void waitGroup_forkJoinPool(Threads t) throws InterruptedException {
        ForkJoinPool pool = t.forkJoin;
        CountDownLatch latch = new CountDownLatch(TASKS);
        Runnable done = latch::countDown;
        for (int i = 0; i < TASKS; i++) {
            pool.execute(done);
        }
        latch.await();
    }

    /** Schedule/SomeWork: each task computes doSomeWork(i), keeps the result, done(). */
    @Benchmark
    @OperationsPerInvocation(WORK_TASKS)
    public void someWork_marl4j(BoundScheduler m, Blackhole bh) {
        Scheduler s = m.scheduler;
        WaitGroup wg = new WaitGroup(WORK_TASKS);
        int[] results = new int[WORK_TASKS];
        for (int i = 0; i < WORK_TASKS; i++) {
            int x = i;
            s.enqueue(new Task(() -> {
                results[x] = BenchSupport.doSomeWork(x);
                wg.done();
            }));
        }
        wg.await();
        bh.consume(results);
    }

    /** non_marl_bench SingleQueueTaskExecutor: plain threads pop tasks from one locked queue. */
    @Benchmark
    @OperationsPerInvocation(WORK_TASKS)
    public void someWork_singleQueue(Threads t, Blackhole bh) throws InterruptedException {
        ArrayDeque<Integer> queue = new ArrayDeque<>(WORK_TASKS);
        for (int i = 0; i < WORK_TASKS; i++) {
            queue.add(i);
        }
        int[] results = new int[WORK_TASKS];
        ReentrantLock lock = new ReentrantLock();
        Thread[] threads = new Thread[t.poolThreads];
        for (int n = 0; n < threads.length; n++) {
            threads[n] = Thread.ofPlatform().start(() -> {
                while (true) {
                    Integer x;
                    lock.lock();
                    try {
                        x = queue.poll();
                    } finally {
                        lock.unlock();
                    }
                    if (x == null) {
                        return;
                    }
                    results[x] = BenchSupport.doSomeWork(x);
                }
            });
        }
        for (Thread thread : threads) {
            thread.join();
        }
        bh.consume(results);
    }

    /** non_marl_bench MultiQueueTaskExecutor: tasks pre-partitioned per thread, no locking. */
    @Benchmark
    @OperationsPerInvocation(WORK_TASKS)
    public void someWork_multiQueue(Threads t, Blackhole bh) throws InterruptedException {
        int n = t.poolThreads;
        Thread[] threads = new Thread[n];
        int[] results = new int[WORK_TASKS];
        for (int k = 0; k < n; k++) {
            int first = k;
            threads[k] = Thread.ofPlatform().start(() -> {
                for (int x = first; x < WORK_TASKS; x += n) {
                    results[x] = BenchSupport.doSomeWork(x);
                }
            });
        }
        for (Thread thread : threads) {
            thread.join();
        }
        bh.consume(results);
    }
}
