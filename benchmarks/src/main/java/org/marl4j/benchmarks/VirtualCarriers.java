package org.marl4j.benchmarks;

import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * VirtualCarriers checks, once per trial and outside the timed region, how many carrier threads
 * the JDK's virtual-thread scheduler really uses in this fork, and fails the trial if that is not
 * what the fork asked for: {@code jdk.virtualThreadScheduler.parallelism} when set (the
 * {@code _1carrier} baselines), the machine's cores otherwise. A virtual-thread baseline takes
 * this state so that its like-for-like claim is checked, not assumed.
 */
@State(Scope.Benchmark)
public class VirtualCarriers {
    /** Virtual threads started for the check: more than any carrier count here. */
    private static final int PROBES = 8;
    /** How long each probe keeps its carrier busy, so that other probes must use other carriers. */
    private static final long BUSY_NANOS = 20_000_000;

    @Setup(Level.Trial)
    public void check() throws InterruptedException {
        String asked = System.getProperty("jdk.virtualThreadScheduler.parallelism");
        int expected = asked != null ? Integer.parseInt(asked) : Runtime.getRuntime().availableProcessors();
        Set<String> seen = ConcurrentHashMap.newKeySet();
        Thread[] probes = new Thread[PROBES];
        for (int i = 0; i < PROBES; i++) {
            probes[i] = Thread.ofVirtual().start(() -> {
                seen.add(carrierName());
                long end = System.nanoTime() + BUSY_NANOS;
                while (System.nanoTime() < end) {
                    Thread.onSpinWait(); // no yield: a second probe runs only on a second carrier
                }
            });
        }
        for (Thread t : probes) {
            t.join();
        }
        int parallelism = carrierPoolParallelism();
        String line = "virtual-thread scheduler: parallelism=" + parallelism + ", carriers seen="
                + new TreeSet<>(seen) + " (expected " + expected + ")";
        System.out.println(line);
        if (seen.size() > expected || (parallelism >= 0 && parallelism != expected)) {
            throw new IllegalStateException(line);
        }
    }

    /** The carrier's name, from a virtual thread's toString(): "VirtualThread[#22]/runnable@ForkJoinPool-1-worker-1". */
    private static String carrierName() {
        String s = Thread.currentThread().toString();
        int at = s.lastIndexOf('@');
        return at < 0 ? s : s.substring(at + 1);
    }

    /** The parallelism of the carriers' ForkJoinPool (carriers are ForkJoinWorkerThreads), or -1 if none is found. */
    private static int carrierPoolParallelism() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t instanceof ForkJoinWorkerThread w && t.getClass().getName().equals("jdk.internal.misc.CarrierThread")) {
                ForkJoinPool pool = w.getPool();
                return pool.getParallelism();
            }
        }
        return -1;
    }
}
