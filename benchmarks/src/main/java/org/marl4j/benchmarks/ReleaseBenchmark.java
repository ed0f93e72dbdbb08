package org.marl4j.benchmarks;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.marl4j.Event;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Release: 100,000 fibers are already suspended on one MANUAL {@link Event} (set up outside the
 * measured time); the benchmark signals it and waits until every one has finished. It measures
 * waking a crowd and running it to completion, against the same crowd of parked virtual threads
 * released by one flag and 100,000 unparks, on the default scheduler (one carrier per core) and on
 * one carrier ({@code virtualThreads_1carrier}, beside threads=0 and 1).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 10)
@Measurement(iterations = 20)
@Fork(value = 1, jvmArgsAppend = {BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS, "-Xms2g", "-Xmx2g", BenchSupport.PRE_TOUCH})
public class ReleaseBenchmark {
    static final int FIBERS = 100_000;

    /**
     * One crowd of suspended marl4j fibers per invocation, on the shared {@link BoundScheduler}
     * fixture. It extends that state rather than using it as a second one: JMH rejects a
     * per-invocation setup that depends on another state's per-iteration one, and an inherited
     * state is the same object, with its trial and iteration setup run first.
     */
    @State(Scope.Thread)
    public static class MarlCrowd extends BoundScheduler {
        Event release;
        WaitGroup done;

        /** Runs on the bound benchmark thread: with 0 workers its wait runs the fibers up to their wait. */
        @Setup(Level.Invocation)
        public void suspendAll() {
            release = new Event(Event.Mode.MANUAL);
            done = new WaitGroup(FIBERS);
            WaitGroup started = new WaitGroup(FIBERS);
            Event r = release;
            WaitGroup d = done;
            for (int i = 0; i < FIBERS; i++) {
                scheduler.enqueue(new Task(() -> {
                    started.done();
                    r.await();
                    d.done();
                }));
            }
            started.await();
        }
    }

    /** One crowd of parked virtual threads per invocation. */
    @State(Scope.Thread)
    public static class VirtualCrowd {
        volatile boolean released;
        Thread[] threads;
        CountDownLatch done;

        @Setup(Level.Invocation)
        public void parkAll() throws InterruptedException {
            released = false;
            threads = new Thread[FIBERS];
            done = new CountDownLatch(FIBERS);
            CountDownLatch started = new CountDownLatch(FIBERS);
            for (int i = 0; i < FIBERS; i++) {
                threads[i] = Thread.ofVirtual().start(() -> {
                    started.countDown();
                    while (!released) {
                        LockSupport.park();
                    }
                    done.countDown();
                });
            }
            started.await();
        }
    }

    @Benchmark
    @OperationsPerInvocation(FIBERS)
    public WaitGroup marl4j(MarlCrowd crowd) {
        crowd.release.signal();
        crowd.done.await();
        return crowd.done;
    }

    /** Virtual threads on the JDK's default scheduler: one carrier per core (2 here), beside threads=2. */
    @Benchmark
    @OperationsPerInvocation(FIBERS)
    public CountDownLatch virtualThreads(VirtualCrowd crowd, VirtualCarriers carriers) throws InterruptedException {
        return releaseVirtual(crowd);
    }

    /** Virtual threads on one carrier: the like-for-like baseline of threads=0 and threads=1. */
    @Benchmark
    @OperationsPerInvocation(FIBERS)
    @Fork(value = 1, jvmArgsAppend = {BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS, "-Xms2g", "-Xmx2g", BenchSupport.PRE_TOUCH,
            BenchSupport.VT_ONE_CARRIER, BenchSupport.VT_MAX_ONE_CARRIER})
    public CountDownLatch virtualThreads_1carrier(VirtualCrowd crowd, VirtualCarriers carriers) throws InterruptedException {
        return releaseVirtual(crowd);
    }

    private static CountDownLatch releaseVirtual(VirtualCrowd crowd) throws InterruptedException {
        crowd.released = true;
        for (Thread t : crowd.threads) {
            LockSupport.unpark(t);
        }
        crowd.done.await();
        return crowd.done;
    }
}
