package org.marl4j.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.marl4j.Event;
import org.marl4j.Scheduler;
import org.marl4j.Task;
import org.marl4j.WaitGroup;
import org.marl4j.futures.Futures;

/**
 * MemoryBenchmark measures heap bytes per suspended fiber: 100,000 marl4j fibers blocked on one
 * MANUAL {@link Event}, vs 100,000 virtual threads parked with {@link LockSupport#park()}. Not a
 * JMH benchmark (heap after GC is not a timing): RunSuite runs each case in a fresh JVM, several
 * times. Usage: {@code MemoryBenchmark marl4j|marl4jAwait <workers> [fibers]} or
 * {@code MemoryBenchmark virtualThreads|virtualThreadsJoin|virtualThreadsLatch [fibers]}; prints {@code bytesPerFiber=<n>}
 * and {@code resumeMillis=<n>} (from the release until every fiber has finished). The marl4j cases use
 * the fiber engine {@code -Dbench.engine=VIRTUAL_THREADS|CONTINUATIONS} names (unset: the default engine).
 *
 * <p>{@code marl4j} fibers wait on one MANUAL {@link Event}; {@code marl4jAwait} fibers are each inside
 * {@link Futures#await} on their own {@link CompletableFuture}, against virtual threads in
 * {@code join()} on theirs ({@code virtualThreadsJoin}). The futures are allocated before the
 * baseline, so only what waiting adds is counted. RunSuite also runs 1,000,000 fibers inside
 * {@code -Xmx512m} (the burst case): there the point is that it completes.
 *
 * <p>Heap used is read after {@link System#gc()} (several rounds) once before the fibers exist and
 * once while all of them are blocked; the difference divided by the count is the cost of one
 * suspended fiber with everything only it keeps alive: its task and lambda, its waiter node and its
 * continuation's stack chunk (a virtual thread: its Thread object, continuation and stack chunk).
 * Both block at about the same shallow stack depth.
 */
public final class MemoryBenchmark {
    static final int FIBERS = 100_000;
    /** Rounds of System.gc() before reading the heap. */
    private static final int GC_ROUNDS = 5;
    /** Settle time after the last fiber announced itself, so it has really suspended. */
    private static final long SETTLE_MILLIS = 300;
    /**
     * Rounds of the same case at memory.warmupFibers (default 20,000) before the measured one; more
     * with -Dmemory.warmupRounds=N, for a steady state in which every frame of the wait is compiled.
     */
    private static final int WARMUP_ROUNDS = Integer.getInteger("memory.warmupRounds", 3);

    private MemoryBenchmark() {}

    public static void main(String[] args) throws Exception {
        String what = args.length > 0 ? args[0] : "marl4j";
        boolean marl = what.startsWith("marl4j");
        int workers = marl && args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int countArg = marl ? 2 : 1;
        int fibers = args.length > countArg ? Integer.parseInt(args[countArg]) : FIBERS;
        // Warm-up: run the same case at a smaller count first, so that both marl4j's and the JDK's
        // wait paths are JIT-compiled when the measured fibers freeze: an interpreted frame is several
        // times larger than a compiled one, and a cold run measures the interpreter, not the design.
        int warmup = Integer.getInteger("memory.warmupFibers", 20_000);
        for (int round = 0; round < WARMUP_ROUNDS && warmup > 0; round++) {
            run(what, workers, Math.min(warmup, fibers));
        }
        long[] result = run(what, workers, fibers);
        System.out.println("bytesPerFiber=" + result[0]);
        System.out.println("resumeMillis=" + result[1]);
    }

    private static long[] run(String what, int workers, int fibers) throws InterruptedException {
        return switch (what) {
            case "marl4j" -> marl4j(workers, fibers, false);
            case "marl4jAwait" -> marl4j(workers, fibers, true);
            case "virtualThreads" -> virtualThreads(fibers, false);
            case "virtualThreadsJoin" -> virtualThreads(fibers, true);
            case "virtualThreadsLatch" -> virtualThreadsOnLatch(fibers);
            default -> throw new IllegalArgumentException("usage: MemoryBenchmark marl4j|marl4jAwait <workers> [fibers]"
                    + " | virtualThreads|virtualThreadsJoin|virtualThreadsLatch [fibers]");
        };
    }

    /** The fibers are enqueued by a bound helper thread, which then blocks (and, with 0 workers, runs them). */
    static long[] marl4j(int workers, int fibers, boolean await) throws InterruptedException {
        try (Scheduler scheduler = BenchSupport.newScheduler(workers, BenchSupport.mainEngine())) {
            Event release = new Event(Event.Mode.MANUAL);
            CompletableFuture<Integer>[] futures = await ? newFutures(fibers) : null;
            AtomicInteger blocked = new AtomicInteger();
            // Load and warm the classes involved, off the measured heap.
            warmUpMarl(scheduler);
            long before = usedHeapAfterGc();
            Thread owner = Thread.ofPlatform().start(() -> {
                scheduler.bind();
                WaitGroup done = new WaitGroup(fibers);
                // One lambda per case, not one with a branch: a compiled frame is sized for everything
                // its method inlines, so a shared body would give each case's fibers the other's frame.
                for (int i = 0; i < fibers; i++) {
                    int index = i;
                    scheduler.enqueue(new Task(await ? () -> {
                        blocked.incrementAndGet();
                        Futures.await(futures[index]);
                        done.done();
                    } : () -> {
                        blocked.incrementAndGet();
                        release.await();
                        done.done();
                    }));
                }
                done.await();
                scheduler.unbind();
            });
            long during = usedHeapWhenBlocked(blocked, fibers);
            long start = System.nanoTime();
            if (await) {
                for (int i = 0; i < fibers; i++) {
                    futures[i].complete(i);
                }
            } else {
                release.signal();
            }
            owner.join();
            return new long[] {(during - before) / fibers, (System.nanoTime() - start) / 1_000_000};
        }
    }

    @SuppressWarnings("unchecked")
    private static CompletableFuture<Integer>[] newFutures(int n) {
        CompletableFuture<Integer>[] futures = new CompletableFuture[n];
        for (int i = 0; i < n; i++) {
            futures[i] = new CompletableFuture<>();
        }
        return futures;
    }

    private static void warmUpMarl(Scheduler scheduler) throws InterruptedException {
        Thread t = Thread.ofPlatform().start(() -> {
            scheduler.bind();
            Event go = new Event(Event.Mode.MANUAL);
            CompletableFuture<Integer> f = new CompletableFuture<>();
            WaitGroup done = new WaitGroup(3);
            for (int i = 0; i < 2; i++) {
                scheduler.enqueue(new Task(() -> {
                    go.await();
                    done.done();
                }));
            }
            scheduler.enqueue(new Task(() -> {
                Futures.await(f);
                done.done();
            }));
            scheduler.enqueue(new Task(() -> {
                go.signal();
                f.complete(1);
            }));
            done.await();
            scheduler.unbind();
        });
        t.join();
    }

    static long[] virtualThreads(int fibers, boolean join) throws InterruptedException {
        Thread[] threads = new Thread[fibers]; // allocated before the baseline: not counted
        CompletableFuture<Integer>[] futures = join ? newFutures(fibers) : null;
        AtomicInteger blocked = new AtomicInteger();
        boolean[] released = {false};
        Thread.ofVirtual().start(() -> {}).join(); // load and warm the classes involved
        long before = usedHeapAfterGc();
        for (int i = 0; i < fibers; i++) {
            int index = i;
            threads[i] = Thread.ofVirtual().start(() -> {
                blocked.incrementAndGet();
                if (join) {
                    futures[index].join();
                    return;
                }
                while (!isReleased(released)) {
                    LockSupport.park();
                }
            });
        }
        long during = usedHeapWhenBlocked(blocked, fibers);
        long start = System.nanoTime();
        if (join) {
            for (int i = 0; i < fibers; i++) {
                futures[i].complete(i);
            }
        } else {
            synchronized (released) {
                released[0] = true;
            }
            for (Thread t : threads) {
                LockSupport.unpark(t);
            }
        }
        for (Thread t : threads) {
            t.join();
        }
        return new long[] {(during - before) / fibers, (System.nanoTime() - start) / 1_000_000};
    }

    /**
     * virtualThreadsOnLatch(fibers) is the marl4j case's shape on virtual threads: each waits on one
     * {@link CountDownLatch}, and once released counts down one shared latch that the main thread
     * awaits, as the fibers wait on one Event and count down one WaitGroup. Its release time is the
     * like-for-like baseline for the marl4j case's (the other cases join each thread instead, which
     * writes nothing shared).
     */
    static long[] virtualThreadsOnLatch(int fibers) throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(fibers);
        AtomicInteger blocked = new AtomicInteger();
        Thread.ofVirtual().start(() -> {}).join(); // load and warm the classes involved
        long before = usedHeapAfterGc();
        for (int i = 0; i < fibers; i++) {
            Thread.ofVirtual().start(() -> {
                blocked.incrementAndGet();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                done.countDown();
            });
        }
        long during = usedHeapWhenBlocked(blocked, fibers);
        long start = System.nanoTime();
        release.countDown();
        done.await();
        return new long[] {(during - before) / fibers, (System.nanoTime() - start) / 1_000_000};
    }

    private static boolean isReleased(boolean[] released) {
        synchronized (released) {
            return released[0];
        }
    }

    private static long usedHeapWhenBlocked(AtomicInteger blocked, int fibers) throws InterruptedException {
        while (blocked.get() < fibers) {
            Thread.sleep(10);
        }
        Thread.sleep(SETTLE_MILLIS);
        long used = usedHeapAfterGc();
        // -Dmemory.holdMillis=N keeps the fibers blocked a while longer, for jcmd GC.class_histogram;
        // the line on stderr tells a script when (warm-up rounds hold too).
        long hold = Long.getLong("memory.holdMillis", 0);
        if (hold > 0) {
            System.err.println("holding " + fibers + " blocked for " + hold + " ms");
        }
        Thread.sleep(hold);
        return used;
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < GC_ROUNDS; i++) {
            System.gc();
            Thread.sleep(50);
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
