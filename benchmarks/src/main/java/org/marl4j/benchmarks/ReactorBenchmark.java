package org.marl4j.benchmarks;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.marl4j.FiberEngine;
import org.marl4j.Scheduler;
import org.marl4j.futures.Futures;
import org.marl4j.reactive.MarlScheduler;
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
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * ReactorBenchmark: marl4j as a Project Reactor scheduler against Reactor's own, in one JMH run.
 *
 * <ul>
 *   <li>{@code publishOn_*}: {@code Flux.range(0, 1,000,000).publishOn(s).blockLast()}, ns per
 *       element: the hand-off throughput of a scheduler's Worker (one drain task per batch of 256).
 *       marl4j ({@code MarlScheduler.create}, one worker per core) against {@code parallel()},
 *       {@code single()} and {@code fromExecutorService} over a virtual-thread-per-task executor.
 *   <li>{@code publishOn_marl4j_noSpin}: the same on a marl scheduler whose idle workers sleep at once
 *       instead of spinning ~1 ms for work. {@code Flux.range} fuses with {@code publishOn}: one drain
 *       task runs all 1,000,000 elements on one worker, so the scheduler's own cost is one task per
 *       shot, and what differs between schedulers is the thread that runs the loop (and, for marl4j,
 *       the other worker spinning beside it on a 2-core box).
 *   <li>{@code publishOnCrossThread_*}: {@code Flux.range(0, 1,000,000).subscribeOn(single()).publishOn(s)}:
 *       elements arrive from another thread, so {@code publishOn} schedules a drain every few hundred
 *       elements (~5,600 per shot): this one measures a scheduler's per-task cost.
 *   <li>{@code blockingCalls_*}: {@code Flux.range(0, 2,048).flatMap(x ->
 *       Mono.fromCallable(() -> call(x)).subscribeOn(s), 256)}, ns per call, where {@code call}
 *       waits on a CompletableFuture that a timer thread completes ~1 ms later. marl4j waits with
 *       {@code Futures.await} (the fiber suspends; 256 calls can wait at once on 2 threads), with
 *       marl's default spin-for-work and with none ({@code noSpin});
 *       {@code boundedElastic()} waits with {@code join()} on platform threads (capped at 10 ×
 *       cores threads, Reactor's default) and on virtual threads (Reactor's thread-per-task bounded
 *       elastic scheduler, same cap, built with {@code Schedulers.Factory.newThreadPerTaskBoundedElastic}).
 *   <li>{@code blockingSleep_*}: the same {@code flatMap}, but {@code call} is a plain blocking
 *       {@code Thread.sleep(1)} (a JDBC call's stand-in), on marl4j against {@code boundedElastic()}
 *       on platform and on virtual threads. With the VIRTUAL_THREADS engine the sleep suspends only
 *       the fiber; with CONTINUATIONS it holds a worker thread (two here) for the millisecond.
 * </ul>
 * Every marl4j row runs once per fiber engine ({@code engine} parameter of the {@link MarlSchedulers} state);
 * the baselines once. SingleShot, 1 fork; a timer thread (one ScheduledExecutorService) completes every variant's futures.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@Fork(value = 1, jvmArgsAppend = {BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS, "-Xms1g", "-Xmx1g", BenchSupport.PRE_TOUCH})
public class ReactorBenchmark {
    static final int ELEMENTS = 1_000_000;
    static final int CALLS = 2_048;
    static final int CONCURRENCY = 256;
    static final long CALL_MICROS = 1_000;
    /**
     * A publishOn shot takes only ~10 ms and swings 2× from shot to shot on a shared 2-core box
     * (two runs of 5 + 10 shots gave opposite rankings): take many more shots than the class default.
     */
    static final int PUBLISH_ON_WARMUPS = 20;
    static final int PUBLISH_ON_MEASUREMENTS = 60;

    /** The baselines' schedulers and the timer every variant's calls use, created once per trial. */
    @State(Scope.Benchmark)
    public static class Fixture {
        reactor.core.scheduler.Scheduler virtualThreads;
        reactor.core.scheduler.Scheduler boundedElasticVirtual;
        ExecutorService virtualExecutor;
        ScheduledExecutorService timer;

        @Setup(Level.Trial)
        public void setUp() {
            virtualExecutor = Executors.newVirtualThreadPerTaskExecutor();
            virtualThreads = Schedulers.fromExecutorService(virtualExecutor, "virtualThreads");
            boundedElasticVirtual = new Schedulers.Factory() {}.newThreadPerTaskBoundedElastic(
                    Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE, Schedulers.DEFAULT_BOUNDED_ELASTIC_QUEUESIZE,
                    Thread.ofVirtual().name("bounded-elastic-vt-", 0).factory());
            boundedElasticVirtual.init();
            timer = Executors.newSingleThreadScheduledExecutor();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            virtualThreads.dispose();
            boundedElasticVirtual.dispose();
            BenchSupport.shutdown(virtualExecutor);
            BenchSupport.shutdown(timer);
        }

        /** A call's reply: a future the timer thread completes after CALL_MICROS. */
        CompletableFuture<Integer> reply(int x) {
            CompletableFuture<Integer> f = new CompletableFuture<>();
            timer.schedule(() -> f.complete(x), CALL_MICROS, TimeUnit.MICROSECONDS);
            return f;
        }
    }

    /**
     * The marl4j schedulers (one worker per core), with the fiber {@code engine} as a parameter:
     * a state of its own so that only the marl4j rows run once per engine.
     */
    @State(Scope.Benchmark)
    public static class MarlSchedulers {
        @Param({"VIRTUAL_THREADS", "CONTINUATIONS"})
        public FiberEngine engine;
        MarlScheduler marl;
        /** marl4j with no spinning for work: idle workers sleep at once and leave the cores to the timer thread. */
        MarlScheduler marlNoSpin;

        @Setup(Level.Trial)
        public void setUp() {
            marl = MarlScheduler.create(Scheduler.Config.allCores().setThreadNamePrefix(BenchSupport.WORKER_PREFIX)
                    .setFiberEngine(engine));
            marlNoSpin = MarlScheduler.create(Scheduler.Config.allCores().setSpinDuration(java.time.Duration.ZERO)
                    .setThreadNamePrefix("bench-nospin-worker-").setFiberEngine(engine));
        }

        /**
         * Tearing down prints both marl4j schedulers' counters, warm-up included: their time spent
         * spinning and idle sleeps say what an idle worker cost beside the one that drains.
         */
        @TearDown(Level.Trial)
        public void tearDown() {
            System.out.println("marl4j engine=" + engine + ": " + marl.scheduler().stats());
            System.out.println("marl4j engine=" + engine + ", no spin: " + marlNoSpin.scheduler().stats());
            marl.disposeGracefully().block();
            marlNoSpin.disposeGracefully().block();
        }
    }

    @Benchmark
    @Warmup(iterations = PUBLISH_ON_WARMUPS)
    @Measurement(iterations = PUBLISH_ON_MEASUREMENTS)
    @OperationsPerInvocation(ELEMENTS)
    public Integer publishOn_marl4j(MarlSchedulers m) {
        return Flux.range(0, ELEMENTS).publishOn(m.marl).blockLast();
    }

    @Benchmark
    @Warmup(iterations = PUBLISH_ON_WARMUPS)
    @Measurement(iterations = PUBLISH_ON_MEASUREMENTS)
    @OperationsPerInvocation(ELEMENTS)
    public Integer publishOn_parallel() {
        return Flux.range(0, ELEMENTS).publishOn(Schedulers.parallel()).blockLast();
    }

    @Benchmark
    @Warmup(iterations = PUBLISH_ON_WARMUPS)
    @Measurement(iterations = PUBLISH_ON_MEASUREMENTS)
    @OperationsPerInvocation(ELEMENTS)
    public Integer publishOn_single() {
        return Flux.range(0, ELEMENTS).publishOn(Schedulers.single()).blockLast();
    }

    @Benchmark
    @Warmup(iterations = PUBLISH_ON_WARMUPS)
    @Measurement(iterations = PUBLISH_ON_MEASUREMENTS)
    @OperationsPerInvocation(ELEMENTS)
    public Integer publishOn_virtualThreads(Fixture f) {
        return Flux.range(0, ELEMENTS).publishOn(f.virtualThreads).blockLast();
    }

    @Benchmark
    @Warmup(iterations = PUBLISH_ON_WARMUPS)
    @Measurement(iterations = PUBLISH_ON_MEASUREMENTS)
    @OperationsPerInvocation(ELEMENTS)
    public Integer publishOn_marl4j_noSpin(MarlSchedulers m) {
        return Flux.range(0, ELEMENTS).publishOn(m.marlNoSpin).blockLast();
    }

    @Benchmark
    @Warmup(iterations = PUBLISH_ON_WARMUPS)
    @Measurement(iterations = PUBLISH_ON_MEASUREMENTS)
    @OperationsPerInvocation(ELEMENTS)
    public Integer publishOnCrossThread_marl4j(MarlSchedulers m) {
        return Flux.range(0, ELEMENTS).subscribeOn(Schedulers.single()).publishOn(m.marl).blockLast();
    }

    @Benchmark
    @Warmup(iterations = PUBLISH_ON_WARMUPS)
    @Measurement(iterations = PUBLISH_ON_MEASUREMENTS)
    @OperationsPerInvocation(ELEMENTS)
    public Integer publishOnCrossThread_parallel() {
        return Flux.range(0, ELEMENTS).subscribeOn(Schedulers.single()).publishOn(Schedulers.parallel()).blockLast();
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public Long blockingCalls_marl4j_futuresAwait(Fixture f, MarlSchedulers m) {
        return Flux.range(0, CALLS)
                .flatMap(x -> Mono.fromCallable(() -> Futures.await(f.reply(x))).subscribeOn(m.marl), CONCURRENCY)
                .count().block();
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public Long blockingCalls_marl4j_noSpin_futuresAwait(Fixture f, MarlSchedulers m) {
        return Flux.range(0, CALLS)
                .flatMap(x -> Mono.fromCallable(() -> Futures.await(f.reply(x))).subscribeOn(m.marlNoSpin), CONCURRENCY)
                .count().block();
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public Long blockingCalls_boundedElastic_join(Fixture f) {
        return Flux.range(0, CALLS)
                .flatMap(x -> Mono.fromCallable(() -> f.reply(x).join()).subscribeOn(Schedulers.boundedElastic()), CONCURRENCY)
                .count().block();
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public Long blockingCalls_boundedElasticVirtual_join(Fixture f) {
        return Flux.range(0, CALLS)
                .flatMap(x -> Mono.fromCallable(() -> f.reply(x).join()).subscribeOn(f.boundedElasticVirtual), CONCURRENCY)
                .count().block();
    }

    /**
     * A plain blocking call, {@code Thread.sleep(1)} (a JDBC call's stand-in), on marl4j: with
     * VIRTUAL_THREADS the sleep parks the fiber's virtual thread and the worker runs other calls;
     * with CONTINUATIONS it holds the worker thread for the whole millisecond.
     */
    @Benchmark
    @OperationsPerInvocation(CALLS)
    public Long blockingSleep_marl4j(MarlSchedulers m) {
        return Flux.range(0, CALLS)
                .flatMap(x -> Mono.fromCallable(() -> sleepCall(x)).subscribeOn(m.marl), CONCURRENCY)
                .count().block();
    }

    /** The same sleeping calls on Reactor's {@code boundedElastic()}: platform threads, capped at 10 × cores. */
    @Benchmark
    @OperationsPerInvocation(CALLS)
    public Long blockingSleep_boundedElastic() {
        return Flux.range(0, CALLS)
                .flatMap(x -> Mono.fromCallable(() -> sleepCall(x)).subscribeOn(Schedulers.boundedElastic()), CONCURRENCY)
                .count().block();
    }

    /** The same sleeping calls on the thread-per-task bounded elastic scheduler (virtual threads, same cap). */
    @Benchmark
    @OperationsPerInvocation(CALLS)
    public Long blockingSleep_boundedElasticVirtual(Fixture f) {
        return Flux.range(0, CALLS)
                .flatMap(x -> Mono.fromCallable(() -> sleepCall(x)).subscribeOn(f.boundedElasticVirtual), CONCURRENCY)
                .count().block();
    }

    /** A blocking call of CALL_MICROS: Thread.sleep, as a JDBC driver's socket read would block. */
    private static Integer sleepCall(int x) throws InterruptedException {
        Thread.sleep(CALL_MICROS / 1_000);
        return x;
    }
}
