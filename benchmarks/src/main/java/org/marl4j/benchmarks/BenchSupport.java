package org.marl4j.benchmarks;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import org.marl4j.FiberEngine;
import org.marl4j.Scheduler;
import org.marl4j.Task;
import org.marl4j.WaitGroup;

/** BenchSupport holds the fixtures and helpers the benchmarks share. */
final class BenchSupport {
    /** The JVM flag the CONTINUATIONS engine needs: marl4j's continuations live in java.base/jdk.internal.vm. */
    static final String ADD_EXPORTS = "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED";

    /**
     * The JVM flag the VIRTUAL_THREADS engine needs: its fibers are made with java.lang's
     * package-private virtual-thread builder. Every fork and fresh JVM carries both flags, so that
     * either engine can run in it.
     */
    static final String ADD_OPENS = "--add-opens=java.base/java.lang=ALL-UNNAMED";

    /**
     * The system property that picks the engine of the plain-{@code main} workloads (HttpBenchmark,
     * MemoryBenchmark, IdleBenchmark): {@code VIRTUAL_THREADS} or {@code CONTINUATIONS}; unset, the
     * JVM's {@link FiberEngine#defaultEngine()}. The JMH benchmarks take an {@code engine} parameter instead.
     */
    static final String ENGINE_PROPERTY = "bench.engine";

    /**
     * Every fork fixes its heap (-Xms = -Xmx) and touches it all at start-up. Without this, the
     * first pass of allocation through each part of the young generation page-faults: a 100,000-fiber
     * round ran at 350 or 700 ns a fiber depending on whether its chunks landed on fresh pages, and
     * that, not the code, made single-shot scores bimodal.
     */
    static final String PRE_TOUCH = "-XX:+AlwaysPreTouch";

    /**
     * With {@link #VT_MAX_ONE_CARRIER}, the JDK's virtual-thread scheduler gets one carrier thread:
     * the like-for-like baseline of marl4j with 0 or 1 worker threads. A method-level
     * {@code @Fork} replaces the class's, so a {@code _1carrier} method repeats ADD_EXPORTS, ADD_OPENS and
     * the heap flags, and {@link VirtualCarriers} checks in the fork that the flags took effect.
     */
    static final String VT_ONE_CARRIER = "-Djdk.virtualThreadScheduler.parallelism=1";
    /** No extra carrier either when a virtual thread pins or blocks (the pool may not grow past 1). */
    static final String VT_MAX_ONE_CARRIER = "-Djdk.virtualThreadScheduler.maxPoolSize=1";

    /** Worker threads are named WORKER_PREFIX + id, so a task can tell which worker runs it. */
    static final String WORKER_PREFIX = "bench-worker-";

    private BenchSupport() {}

    /** newScheduler(workers, engine) makes a scheduler with marl's defaults, the given worker count and fiber engine. */
    static Scheduler newScheduler(int workers, FiberEngine engine) {
        return new Scheduler(newConfig(workers, engine));
    }

    /** newConfig(workers, engine) is the configuration newScheduler(workers, engine) uses. */
    static Scheduler.Config newConfig(int workers, FiberEngine engine) {
        return new Scheduler.Config()
                .setWorkerThreadCount(workers)
                .setThreadNamePrefix(WORKER_PREFIX)
                .setFiberEngine(engine);
    }

    /** mainEngine() is the engine a plain-main workload uses: {@value #ENGINE_PROPERTY} if set, else the default. */
    static FiberEngine mainEngine() {
        String named = System.getProperty(ENGINE_PROPERTY);
        return named == null || named.isBlank() ? FiberEngine.defaultEngine()
                : FiberEngine.valueOf(named.trim().toUpperCase(java.util.Locale.ROOT));
    }

    /**
     * workerId() returns the id of the marl4j worker running the caller, or -1. With CONTINUATIONS a
     * fiber runs as its worker's thread ({@code bench-worker-1}); with VIRTUAL_THREADS it is a virtual
     * thread named after that worker ({@code bench-worker-1/fiber}).
     */
    static int workerId() {
        String name = Thread.currentThread().getName();
        if (!name.startsWith(WORKER_PREFIX)) {
            return -1;
        }
        int end = name.indexOf('/', WORKER_PREFIX.length());
        return Integer.parseInt(name.substring(WORKER_PREFIX.length(), end < 0 ? name.length() : end));
    }

    /** doSomeWork(x) is marl's benchmark work unit (src/marl_bench.h): ~170 µs of bit twiddling. */
    static int doSomeWork(int x) {
        int q = x;
        for (int i = 0; i < 100_000; i++) {
            x = (x << 4) | x;
            x = x | 0x1020;
            x = (x >>> 2) & q;
        }
        return x;
    }

    /** shutdown(pool) stops a baseline executor and waits for it. */
    static void shutdown(ExecutorService pool) {
        pool.shutdown();
        try {
            if (!pool.awaitTermination(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException(pool + " did not terminate");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** enqueueAndAwait(s, tasks) enqueues that many tasks that only count down a WaitGroup, and waits for all. */
    static WaitGroup enqueueAndAwait(Scheduler s, int tasks) {
        WaitGroup wg = new WaitGroup(tasks);
        Runnable done = wg::done;
        for (int i = 0; i < tasks; i++) {
            s.enqueue(new Task(done));
        }
        wg.await();
        return wg;
    }
}
