package org.marl4j.benchmarks;

import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;

import org.marl4j.Event;
import org.marl4j.FiberEngine;
import org.marl4j.Marl;
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

/**
 * PingPongBenchmark: two fibers take turns over two AUTO {@link Event}s; one round trip is two
 * suspends and two wakes. marl4j on one worker (both fibers SAME_THREAD; with 0 worker threads on
 * the bound benchmark thread) and across two workers, vs two virtual threads over
 * park/unpark (on the default scheduler, and on one carrier: {@code virtualThreads_1carrier}, beside
 * threads=0 and 1) and vs a pair of {@link SynchronousQueue}s between two platform threads.
 *
 * <p>AverageTime; one invocation plays {@value #ROUNDS} round trips (the fibers or threads are
 * started once per invocation, which adds under 1% here); scores are ns per round trip.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS, "-Xms1g", "-Xmx1g", BenchSupport.PRE_TOUCH})
public class PingPongBenchmark {
    static final int ROUNDS = 10_000;

    /** A scheduler with 0, 1 or 2 workers and either fiber engine; with workers, a resident fiber on each. */
    @State(Scope.Thread)
    public static class SameWorker {
        @Param({"0", "1", "2"})
        public int threads;
        @Param({"VIRTUAL_THREADS", "CONTINUATIONS"})
        public FiberEngine engine;
        Scheduler scheduler;
        Resident[] residents;

        @Setup(Level.Trial)
        public void create() throws InterruptedException {
            scheduler = BenchSupport.newScheduler(threads, engine);
            residents = Resident.place(scheduler, threads);
        }

        @Setup(Level.Iteration)
        public void bind() {
            scheduler.bind();
        }

        @TearDown(Level.Iteration)
        public void unbind() {
            scheduler.unbind();
        }

        @TearDown(Level.Trial)
        public void close() {
            Resident.endAll(residents);
            scheduler.close();
        }
    }

    /** A scheduler with two workers, either fiber engine, and a resident fiber on each. */
    @State(Scope.Thread)
    public static class CrossWorker {
        @Param({"VIRTUAL_THREADS", "CONTINUATIONS"})
        public FiberEngine engine;
        Scheduler scheduler;
        Resident[] residents;

        @Setup(Level.Trial)
        public void create() throws InterruptedException {
            scheduler = BenchSupport.newScheduler(2, engine);
            residents = Resident.place(scheduler, 2);
        }

        @TearDown(Level.Trial)
        public void close() {
            Resident.endAll(residents);
            scheduler.close();
        }
    }

    /** A platform thread that answers every put on {@code ping} with a put on {@code pong}. */
    @State(Scope.Thread)
    public static class Queues {
        final SynchronousQueue<Integer> ping = new SynchronousQueue<>();
        final SynchronousQueue<Integer> pong = new SynchronousQueue<>();
        Thread echo;

        @Setup(Level.Trial)
        public void start() {
            echo = Thread.ofPlatform().daemon().start(() -> {
                try {
                    while (true) {
                        Integer x = ping.take();
                        if (x < 0) {
                            return;
                        }
                        pong.put(x);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }

        @TearDown(Level.Trial)
        public void stop() throws InterruptedException {
            ping.put(-1);
            echo.join();
        }
    }

    /** Both fibers on one worker: SAME_THREAD tasks from the bound thread or from a resident. */
    @Benchmark
    @OperationsPerInvocation(ROUNDS)
    public WaitGroup sameWorker_marl4j(SameWorker s) {
        Event toPong = new Event(Event.Mode.AUTO);
        Event toPing = new Event(Event.Mode.AUTO);
        WaitGroup done = new WaitGroup(2);
        Runnable ping = () -> ping(toPong, toPing, done);
        Runnable pong = () -> pong(toPong, toPing, done);
        if (s.threads == 0) {
            s.scheduler.enqueue(new Task(pong, Task.Flag.SAME_THREAD));
            s.scheduler.enqueue(new Task(ping, Task.Flag.SAME_THREAD));
        } else {
            s.residents[0].run(() -> {
                Marl.schedule(new Task(pong, Task.Flag.SAME_THREAD));
                ping.run();
            });
        }
        done.await();
        return done;
    }

    /** The two fibers on different worker threads. */
    @Benchmark
    @OperationsPerInvocation(ROUNDS)
    public WaitGroup crossWorker_marl4j(CrossWorker c) {
        Event toPong = new Event(Event.Mode.AUTO);
        Event toPing = new Event(Event.Mode.AUTO);
        WaitGroup done = new WaitGroup(2);
        c.residents[1].run(() -> pong(toPong, toPing, done));
        c.residents[0].run(() -> ping(toPong, toPing, done));
        done.await();
        return done;
    }

    /** Two virtual threads on the default scheduler (one carrier per core): beside threads=2 and crossWorker. */
    @Benchmark
    @OperationsPerInvocation(ROUNDS)
    public PingPong virtualThreads(VirtualCarriers carriers) throws InterruptedException {
        return PingPong.onVirtualThreads(ROUNDS);
    }

    /** Two virtual threads on one carrier: the like-for-like baseline of sameWorker with threads=0 and 1. */
    @Benchmark
    @OperationsPerInvocation(ROUNDS)
    @Fork(value = 1, jvmArgsAppend = {BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS, "-Xms1g", "-Xmx1g", BenchSupport.PRE_TOUCH,
            BenchSupport.VT_ONE_CARRIER, BenchSupport.VT_MAX_ONE_CARRIER})
    public PingPong virtualThreads_1carrier(VirtualCarriers carriers) throws InterruptedException {
        return PingPong.onVirtualThreads(ROUNDS);
    }

    /** One platform thread that runs whatever the JDK hands it: the floor under any virtual-thread scheduler of one's own. */
    @State(Scope.Benchmark)
    public static class Carrier {
        OwnCarrier carrier;

        @Setup(Level.Trial)
        public void start() {
            carrier = new OwnCarrier();
        }

        @TearDown(Level.Trial)
        public void stop() throws InterruptedException {
            carrier.close();
        }
    }

    /**
     * Two virtual threads over park/unpark on a scheduler that does nothing but run them, in the
     * order the JDK hands them over: the JDK's mount and unmount alone, the floor of the
     * VIRTUAL_THREADS engine's sameWorker rows.
     */
    @Benchmark
    @OperationsPerInvocation(ROUNDS)
    public PingPong floorOwnCarrier_parkUnpark(Carrier c) throws InterruptedException {
        return PingPong.onThreads(c.carrier, ROUNDS);
    }

    /**
     * Two raw continuations taking turns on the benchmark thread, which runs each until it yields:
     * the floor of the CONTINUATIONS engine's sameWorker rows, as floorOwnCarrier_parkUnpark is
     * the VIRTUAL_THREADS engine's.
     */
    @Benchmark
    @OperationsPerInvocation(ROUNDS)
    public int floorContinuations() {
        return ContinuationPair.play(ROUNDS);
    }

    @Benchmark
    @OperationsPerInvocation(ROUNDS)
    public Integer synchronousQueue(Queues q) throws InterruptedException {
        Integer last = null;
        for (int r = 0; r < ROUNDS; r++) {
            q.ping.put(r);
            last = q.pong.take();
        }
        return last;
    }

    private static void ping(Event toPong, Event toPing, WaitGroup done) {
        for (int r = 0; r < ROUNDS; r++) {
            toPong.signal();
            toPing.await();
        }
        done.done();
    }

    private static void pong(Event toPong, Event toPing, WaitGroup done) {
        for (int r = 0; r < ROUNDS; r++) {
            toPong.await();
            toPing.signal();
        }
        done.done();
    }
}
