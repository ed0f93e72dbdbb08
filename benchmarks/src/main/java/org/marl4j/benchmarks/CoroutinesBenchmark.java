package org.marl4j.benchmarks;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import kotlinx.coroutines.CoroutineDispatcher;
import kotlinx.coroutines.Dispatchers;
import kotlinx.coroutines.ExecutorsKt;
import org.marl4j.FiberEngine;
import org.marl4j.Scheduler;
import org.marl4j.kotlin.MarlDispatcherKt;
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
 * CoroutinesBenchmark: Kotlin coroutines on fiber-kotlin's MarlDispatcher (a scheduler with two
 * worker threads, the machine's cores) against {@code Dispatchers.Default} and a fixed pool of two
 * threads {@code asCoroutineDispatcher()}, in the same run. Workloads (in {@link CoroutineWorkloads}):
 * launch and join 1,000,000 no-op coroutines; a rendezvous-Channel ping-pong of 100,000 round trips;
 * 100,000 coroutines each {@code delay(1)}. SingleShot; scores are ns per coroutine / round trip.
 * The marl4j rows run once per fiber engine ({@code engine} parameter of {@link MarlDispatcher2}).
 *
 * <p>Two floor rows, not baselines, show what kotlinx itself costs with no dispatch to pay for:
 * {@code launch_floorUndispatched} launches each coroutine {@code CoroutineStart.UNDISPATCHED} on
 * {@code Dispatchers.Default} (it runs to its end inside {@code launch}, so nothing is queued or
 * handed to another thread), and {@code channel_floorOneThread} plays the ping-pong on
 * {@code runBlocking}'s own single-thread event loop (no other thread, no synchronized queue).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@Fork(value = 1, jvmArgsAppend = {BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS, "-Xms1g", "-Xmx1g", BenchSupport.PRE_TOUCH})
public class CoroutinesBenchmark {
    static final int LAUNCHES = 1_000_000;
    static final int ROUND_TRIPS = 100_000;
    static final int DELAYS = 100_000;
    /** Threads of every dispatcher compared: the machine's two cores. */
    static final int THREADS = 2;

    /** The fixed pool of two threads, the baseline beside Dispatchers.Default. */
    @State(Scope.Benchmark)
    public static class Dispatchers2 {
        ExecutorService fixed;
        CoroutineDispatcher fixedPool;

        @Setup(Level.Trial)
        public void create() {
            fixed = Executors.newFixedThreadPool(THREADS);
            fixedPool = ExecutorsKt.from(fixed);
        }

        @TearDown(Level.Trial)
        public void close() {
            BenchSupport.shutdown(fixed);
        }
    }

    /** The marl4j dispatcher: two workers and the fiber {@code engine}, a state of its own so that only marl4j rows run per engine. */
    @State(Scope.Benchmark)
    public static class MarlDispatcher2 {
        @Param({"VIRTUAL_THREADS", "CONTINUATIONS"})
        public FiberEngine engine;
        Scheduler scheduler;
        CoroutineDispatcher marl;

        @Setup(Level.Trial)
        public void create() {
            scheduler = BenchSupport.newScheduler(THREADS, engine);
            marl = MarlDispatcherKt.asCoroutineDispatcher(scheduler);
        }

        /** Closing prints the scheduler's counters, warm-up included (fibers created, idle sleeps). */
        @TearDown(Level.Trial)
        public void close() {
            scheduler.close();
            System.out.println("marl4j engine=" + engine + ": " + scheduler.stats());
        }
    }

    @Benchmark
    @OperationsPerInvocation(LAUNCHES)
    public int launch_marl4j(MarlDispatcher2 d) {
        return CoroutineWorkloads.launchAndJoin(d.marl, LAUNCHES);
    }

    @Benchmark
    @OperationsPerInvocation(LAUNCHES)
    public int launch_dispatchersDefault() {
        return CoroutineWorkloads.launchAndJoin(Dispatchers.getDefault(), LAUNCHES);
    }

    @Benchmark
    @OperationsPerInvocation(LAUNCHES)
    public int launch_floorUndispatched() {
        return CoroutineWorkloads.launchUndispatched(Dispatchers.getDefault(), LAUNCHES);
    }

    @Benchmark
    @OperationsPerInvocation(ROUND_TRIPS)
    public int channel_floorOneThread() {
        return CoroutineWorkloads.channelPingPongOnEventLoop(ROUND_TRIPS);
    }

    @Benchmark
    @OperationsPerInvocation(LAUNCHES)
    public int launch_fixedPool(Dispatchers2 d) {
        return CoroutineWorkloads.launchAndJoin(d.fixedPool, LAUNCHES);
    }

    @Benchmark
    @OperationsPerInvocation(ROUND_TRIPS)
    public int channel_marl4j(MarlDispatcher2 d) {
        return CoroutineWorkloads.channelPingPong(d.marl, ROUND_TRIPS);
    }

    @Benchmark
    @OperationsPerInvocation(ROUND_TRIPS)
    public int channel_dispatchersDefault() {
        return CoroutineWorkloads.channelPingPong(Dispatchers.getDefault(), ROUND_TRIPS);
    }

    @Benchmark
    @OperationsPerInvocation(ROUND_TRIPS)
    public int channel_fixedPool(Dispatchers2 d) {
        return CoroutineWorkloads.channelPingPong(d.fixedPool, ROUND_TRIPS);
    }

    @Benchmark
    @OperationsPerInvocation(DELAYS)
    public int delay_marl4j(MarlDispatcher2 d) {
        return CoroutineWorkloads.delayEach(d.marl, DELAYS);
    }

    @Benchmark
    @OperationsPerInvocation(DELAYS)
    public int delay_dispatchersDefault() {
        return CoroutineWorkloads.delayEach(Dispatchers.getDefault(), DELAYS);
    }

    @Benchmark
    @OperationsPerInvocation(DELAYS)
    public int delay_fixedPool(Dispatchers2 d) {
        return CoroutineWorkloads.delayEach(d.fixedPool, DELAYS);
    }
}
