package org.marl4j.benchmarks;

import java.util.concurrent.TimeUnit;
import org.marl4j.Scheduler;
import org.marl4j.Task;
import org.marl4j.Ticket;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * TicketBenchmark is marl's {@code src/ticket_bench.cpp} (Schedule/Ticket): take a ticket per
 * task; each task awaits its ticket and finishes it; the benchmark takes one more ticket and awaits
 * it. Beside the same in-order hand-over on virtual threads, each parking until its predecessor
 * releases it, on the default scheduler and on one carrier ({@code _1carrier}, beside threads=0 and
 * 1). SingleShot; scores are ns per ticket.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 20)
@Measurement(iterations = 40)
@Fork(value = 1, jvmArgsAppend = {BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS, "-Xms1g", "-Xmx1g", BenchSupport.PRE_TOUCH})
public class TicketBenchmark {
    /** Tickets per iteration: marl's value. */
    static final int TICKETS = 512;

    @Benchmark
    @OperationsPerInvocation(TICKETS)
    public Ticket ticket_marl4j(BoundScheduler m) {
        Scheduler s = m.scheduler;
        Ticket.Queue queue = new Ticket.Queue();
        for (int i = 0; i < TICKETS; i++) {
            Ticket ticket = queue.take();
            s.enqueue(new Task(() -> {
                ticket.await();
                ticket.done();
            }));
        }
        Ticket last = queue.take();
        last.await();
        return last;
    }

    /** The same hand-over on virtual threads, default scheduler (one carrier per core): beside threads=2. */
    @Benchmark
    @OperationsPerInvocation(TICKETS)
    public Thread[] ticket_virtualThreads(VirtualCarriers carriers) throws InterruptedException {
        return handOverVirtual();
    }

    /** The same hand-over on virtual threads on one carrier: beside threads=0 and threads=1. */
    @Benchmark
    @OperationsPerInvocation(TICKETS)
    @Fork(value = 1, jvmArgsAppend = {BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS, "-Xms1g", "-Xmx1g", BenchSupport.PRE_TOUCH,
            BenchSupport.VT_ONE_CARRIER, BenchSupport.VT_MAX_ONE_CARRIER})
    public Thread[] ticket_virtualThreads_1carrier(VirtualCarriers carriers) throws InterruptedException {
        return handOverVirtual();
    }

    /** Thread i parks until released, then releases i+1. */
    private static Thread[] handOverVirtual() throws InterruptedException {
        Thread[] threads = new Thread[TICKETS + 1];
        VarFlags flags = new VarFlags(TICKETS + 1);
        threads[TICKETS] = Thread.currentThread();
        for (int i = TICKETS - 1; i >= 0; i--) {
            int me = i;
            Thread next = threads[i + 1];
            threads[i] = Thread.ofVirtual().start(() -> {
                flags.awaitSet(me);
                flags.set(me + 1, next);
            });
        }
        flags.set(0, threads[0]);
        flags.awaitSet(TICKETS);
        return threads;
    }
}
