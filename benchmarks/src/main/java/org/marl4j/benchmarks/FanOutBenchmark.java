package org.marl4j.benchmarks;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.marl4j.Task;
import org.marl4j.WaitGroup;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;
import org.marl4j.futures.Futures;

/**
 * FanOutBenchmark: fan out 100,000 fibers that each block on their own {@link CompletableFuture},
 * which another platform thread completes once all of them are waiting; fan in on a WaitGroup. vs
 * 100,000 virtual threads calling {@code join()} and a CountDownLatch, on the default scheduler (one
 * carrier per core) and on one carrier ({@code virtualThreads_1carrier}, beside threads=0 and 1).
 *
 * <p>The completer starts only when every fiber (virtual thread) has announced that it is about to
 * block, so nearly all of them really suspend. The timed region covers start, block, complete,
 * resume and fan-in. SingleShot; scores are ns per fiber.
 *
 * <p>marl4j awaits with fiber-futures' {@link Futures#await(java.util.concurrent.CompletionStage)}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 10)
@Measurement(iterations = 20)
@Fork(value = 1, jvmArgsAppend = {BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS, "-Xms2g", "-Xmx2g", BenchSupport.PRE_TOUCH})
public class FanOutBenchmark {
    static final int FIBERS = 100_000;
    /** How often the completer checks whether every waiter has announced itself. */
    static final long POLL_NANOS = 20_000;

    @Benchmark
    @OperationsPerInvocation(FIBERS)
    public WaitGroup marl4j(BoundScheduler m) {
        CompletableFuture<Integer>[] futures = newFutures();
        AtomicInteger blocking = new AtomicInteger();
        WaitGroup done = new WaitGroup(FIBERS);
        for (int i = 0; i < FIBERS; i++) {
            CompletableFuture<Integer> f = futures[i];
            m.scheduler.enqueue(new Task(() -> {
                blocking.incrementAndGet();
                Futures.await(f);
                done.done();
            }));
        }
        Thread completer = startCompleter(futures, blocking);
        done.await();
        join(completer);
        return done;
    }

    /** Virtual threads on the JDK's default scheduler: one carrier per core (2 here), beside threads=2. */
    @Benchmark
    @OperationsPerInvocation(FIBERS)
    public CountDownLatch virtualThreads(VirtualCarriers carriers) throws InterruptedException {
        return fanOutVirtual();
    }

    /** Virtual threads on one carrier: the like-for-like baseline of threads=0 and threads=1. */
    @Benchmark
    @OperationsPerInvocation(FIBERS)
    @Fork(value = 1, jvmArgsAppend = {BenchSupport.ADD_EXPORTS, BenchSupport.ADD_OPENS, "-Xms2g", "-Xmx2g", BenchSupport.PRE_TOUCH,
            BenchSupport.VT_ONE_CARRIER, BenchSupport.VT_MAX_ONE_CARRIER})
    public CountDownLatch virtualThreads_1carrier(VirtualCarriers carriers) throws InterruptedException {
        return fanOutVirtual();
    }

    private static CountDownLatch fanOutVirtual() throws InterruptedException {
        CompletableFuture<Integer>[] futures = newFutures();
        AtomicInteger blocking = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(FIBERS);
        for (int i = 0; i < FIBERS; i++) {
            CompletableFuture<Integer> f = futures[i];
            Thread.ofVirtual().start(() -> {
                blocking.incrementAndGet();
                f.join();
                done.countDown();
            });
        }
        Thread completer = startCompleter(futures, blocking);
        done.await();
        join(completer);
        return done;
    }

    @SuppressWarnings("unchecked")
    private static CompletableFuture<Integer>[] newFutures() {
        CompletableFuture<Integer>[] futures = new CompletableFuture[FIBERS];
        for (int i = 0; i < FIBERS; i++) {
            futures[i] = new CompletableFuture<>();
        }
        return futures;
    }

    /** The completer waits until every waiter has announced itself, then completes all futures. */
    private static Thread startCompleter(CompletableFuture<Integer>[] futures, AtomicInteger blocking) {
        return Thread.ofPlatform().start(() -> {
            while (blocking.get() < FIBERS) {
                LockSupport.parkNanos(POLL_NANOS); // poll gently: spinning would steal a core of two
            }
            for (int i = 0; i < FIBERS; i++) {
                futures[i].complete(i);
            }
        });
    }

    private static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
