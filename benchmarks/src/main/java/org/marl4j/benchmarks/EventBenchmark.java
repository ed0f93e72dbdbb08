package org.marl4j.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.marl4j.Event;
import org.marl4j.Scheduler;
import org.marl4j.Task;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * EventBenchmark is marl's {@code src/event_bench.cpp}: Schedule/Event (a chain of 512 tasks, each
 * waiting on its event and signalling the next) and Schedule/EventBaton (two SAME_THREAD tasks pass
 * a baton through two AUTO events), beside the same shapes on virtual threads with
 * {@link LockSupport#park()}/{@link LockSupport#unpark(Thread)}, on the default scheduler (one carrier
 * per core) and on one carrier ({@code _1carrier}, the like-for-like baseline of threads=0 and 1).
 *
 * <p>SingleShot: one invocation is one of marl's iterations; scores are per hop (chain) or per
 * round trip (baton). EventBaton uses 65,536 round trips per iteration instead of marl's 262,144.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 20)
@Measurement(iterations = 40)
@Fork(value = 1, jvmArgsAppend = {BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS, "-Xms1g", "-Xmx1g", BenchSupport.PRE_TOUCH})
public class EventBenchmark {
    /** Tasks in the Schedule/Event chain: marl's value. */
    static final int CHAIN = 512;
    /** Baton round trips per iteration. */
    static final int PASSES = 65_536;
    /** Schedule/Event: task i waits event[i] and signals event[i+1]. */
    @Benchmark
    @OperationsPerInvocation(CHAIN)
    public Event[] chain_marl4j(BoundScheduler m) {
        Scheduler s = m.scheduler;
        Event[] events = new Event[CHAIN + 1];
        for (int i = 0; i <= CHAIN; i++) {
            events[i] = new Event(Event.Mode.AUTO);
        }
        for (int i = 0; i < CHAIN; i++) {
            Event mine = events[i];
            Event next = events[i + 1];
            s.enqueue(new Task(() -> {
                mine.await();
                next.signal();
            }));
        }
        events[0].signal();
        events[CHAIN].await();
        return events;
    }

    /** Schedule/Event on virtual threads, default scheduler (one carrier per core): beside threads=2. */
    @Benchmark
    @OperationsPerInvocation(CHAIN)
    public Thread[] chain_virtualThreads(VirtualCarriers carriers) throws InterruptedException {
        return chainVirtual();
    }

    /** Schedule/Event on virtual threads on one carrier: beside threads=0 and threads=1. */
    @Benchmark
    @OperationsPerInvocation(CHAIN)
    @Fork(value = 1, jvmArgsAppend = {BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS, "-Xms1g", "-Xmx1g", BenchSupport.PRE_TOUCH,
            BenchSupport.VT_ONE_CARRIER, BenchSupport.VT_MAX_ONE_CARRIER})
    public Thread[] chain_virtualThreads_1carrier(VirtualCarriers carriers) throws InterruptedException {
        return chainVirtual();
    }

    /** Thread i parks until released, then releases i+1. */
    private static Thread[] chainVirtual() throws InterruptedException {
        Thread[] threads = new Thread[CHAIN + 1];
        VarFlags flags = new VarFlags(CHAIN + 1);
        threads[CHAIN] = Thread.currentThread();
        for (int i = CHAIN - 1; i >= 0; i--) {
            int me = i;
            Thread next = threads[i + 1];
            threads[i] = Thread.ofVirtual().unstarted(() -> {
                flags.awaitSet(me);
                flags.set(me + 1, next);
            });
        }
        for (int i = 0; i < CHAIN; i++) {
            threads[i].start();
        }
        flags.set(0, threads[0]);
        flags.awaitSet(CHAIN);
        return threads;
    }

    /** Schedule/EventBaton: two SAME_THREAD tasks on the bound thread pass a baton through AUTO events. */
    @Benchmark
    @OperationsPerInvocation(PASSES)
    public Event baton_marl4j(BoundScheduler m) {
        Scheduler s = m.scheduler;
        Event passToA = new Event(Event.Mode.AUTO);
        Event passToB = new Event(Event.Mode.AUTO);
        Event done = new Event(Event.Mode.AUTO);
        s.enqueue(new Task(() -> {
            for (int i = 0; i < PASSES; i++) {
                passToA.await();
                passToB.signal();
            }
        }, Task.Flag.SAME_THREAD));
        s.enqueue(new Task(() -> {
            for (int i = 0; i < PASSES; i++) {
                passToB.await();
                passToA.signal();
            }
            done.signal();
        }, Task.Flag.SAME_THREAD));
        passToA.signal();
        done.await();
        return done;
    }

    /** EventBaton on two virtual threads with park/unpark, default scheduler: beside threads=2. */
    @Benchmark
    @OperationsPerInvocation(PASSES)
    public PingPong baton_virtualThreads(VirtualCarriers carriers) throws InterruptedException {
        return PingPong.onVirtualThreads(PASSES);
    }

    /** EventBaton on two virtual threads on one carrier: beside threads=0 and threads=1. */
    @Benchmark
    @OperationsPerInvocation(PASSES)
    @Fork(value = 1, jvmArgsAppend = {BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS, "-Xms1g", "-Xmx1g", BenchSupport.PRE_TOUCH,
            BenchSupport.VT_ONE_CARRIER, BenchSupport.VT_MAX_ONE_CARRIER})
    public PingPong baton_virtualThreads_1carrier(VirtualCarriers carriers) throws InterruptedException {
        return PingPong.onVirtualThreads(PASSES);
    }
}
