package org.marl4j.benchmarks;

import org.marl4j.FiberEngine;
import org.marl4j.Scheduler;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * BoundScheduler is marl's benchmark fixture as JMH state: a marl4j scheduler with {@code threads}
 * worker threads (0, 1, 2) and fiber {@code engine} (VIRTUAL_THREADS, CONTINUATIONS), bound to the
 * benchmark thread for each iteration. Construction and the final drain at unbind() stay outside the
 * timed region. The engine parameter lives here, on the marl4j state only, so the baselines (which
 * never take this state) run once per fork, not once per engine.
 */
@State(Scope.Thread)
public class BoundScheduler {
    @Param({"0", "1", "2"})
    public int threads;
    @Param({"VIRTUAL_THREADS", "CONTINUATIONS"})
    public FiberEngine engine;
    Scheduler scheduler;

    @Setup(Level.Trial)
    public void create() {
        scheduler = BenchSupport.newScheduler(threads, engine);
    }

    @Setup(Level.Iteration)
    public void bind() {
        scheduler.bind();
    }

    /** Unbinding runs what is left on the bound thread (all of Schedule/Empty with 0 threads). */
    @TearDown(Level.Iteration)
    public void unbind() {
        scheduler.unbind();
    }

    /**
     * Closing prints the scheduler's counters, warm-up included: its idle sleeps against the
     * tasks run say whether cross-thread hand-offs found the other worker spinning or asleep.
     */
    @TearDown(Level.Trial)
    public void close() {
        scheduler.close();
        System.out.println("marl4j threads=" + threads + " engine=" + engine + ": " + scheduler.stats());
    }
}
