package org.marl4j.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.marl4j.Event;
import org.marl4j.Scheduler;
import org.marl4j.Task;
import org.marl4j.WaitGroup;

/**
 * MemoryBenchmark measures heap bytes per suspended fiber: 100,000 marl4j fibers blocked on one
 * MANUAL {@link Event}, vs 100,000 virtual threads parked with {@link LockSupport#park()}. Not a
 * JMH benchmark (heap after GC is not a timing): RunSuite runs each case in a fresh JVM, several
 * times. Usage: {@code MemoryBenchmark marl4j <workers>} or {@code MemoryBenchmark virtualThreads};
 * prints {@code bytesPerFiber=<n>}.
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

    private MemoryBenchmark() {}

    public static void main(String[] args) throws Exception {
        String what = args.length > 0 ? args[0] : "marl4j";
        long perFiber = switch (what) {
            case "marl4j" -> marl4j(args.length > 1 ? Integer.parseInt(args[1]) : 2);
            case "virtualThreads" -> virtualThreads();
            default -> throw new IllegalArgumentException("usage: MemoryBenchmark marl4j <workers> | virtualThreads");
        };
        System.out.println("bytesPerFiber=" + perFiber);
    }

    /** The fibers are enqueued by a bound helper thread, which then blocks (and, with 0 workers, runs them). */
    static long marl4j(int workers) throws InterruptedException {
        try (Scheduler scheduler = BenchSupport.newScheduler(workers)) {
            Event release = new Event(Event.Mode.MANUAL);
            AtomicInteger blocked = new AtomicInteger();
            Runnable body = () -> {
                blocked.incrementAndGet();
                release.await();
            };
            // Load and warm the classes involved, off the measured heap.
            warmUpMarl(scheduler);
            long before = usedHeapAfterGc();
            Thread owner = Thread.ofPlatform().start(() -> {
                scheduler.bind();
                WaitGroup done = new WaitGroup(FIBERS);
                for (int i = 0; i < FIBERS; i++) {
                    scheduler.enqueue(new Task(() -> {
                        body.run();
                        done.done();
                    }));
                }
                done.await();
                scheduler.unbind();
            });
            long during = usedHeapWhenBlocked(blocked);
            release.signal();
            owner.join();
            return (during - before) / FIBERS;
        }
    }

    private static void warmUpMarl(Scheduler scheduler) throws InterruptedException {
        Thread t = Thread.ofPlatform().start(() -> {
            scheduler.bind();
            Event go = new Event(Event.Mode.MANUAL);
            WaitGroup done = new WaitGroup(2);
            for (int i = 0; i < 2; i++) {
                scheduler.enqueue(new Task(() -> {
                    go.await();
                    done.done();
                }));
            }
            scheduler.enqueue(new Task(go::signal));
            done.await();
            scheduler.unbind();
        });
        t.join();
    }

    static long virtualThreads() throws InterruptedException {
        Thread[] threads = new Thread[FIBERS]; // allocated before the baseline: not counted
        AtomicInteger blocked = new AtomicInteger();
        boolean[] released = {false};
        Runnable body = () -> {
            blocked.incrementAndGet();
            while (!isReleased(released)) {
                LockSupport.park();
            }
        };
        Thread.ofVirtual().start(() -> {}).join(); // load and warm the classes involved
        long before = usedHeapAfterGc();
        for (int i = 0; i < FIBERS; i++) {
            threads[i] = Thread.ofVirtual().start(body);
        }
        long during = usedHeapWhenBlocked(blocked);
        synchronized (released) {
            released[0] = true;
        }
        for (Thread t : threads) {
            LockSupport.unpark(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        return (during - before) / FIBERS;
    }

    private static boolean isReleased(boolean[] released) {
        synchronized (released) {
            return released[0];
        }
    }

    private static long usedHeapWhenBlocked(AtomicInteger blocked) throws InterruptedException {
        while (blocked.get() < FIBERS) {
            Thread.sleep(10);
        }
        Thread.sleep(SETTLE_MILLIS);
        long used = usedHeapAfterGc();
        // -Dmemory.holdMillis=N keeps the fibers blocked a while longer, for jcmd GC.class_histogram.
        Thread.sleep(Long.getLong("memory.holdMillis", 0));
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
