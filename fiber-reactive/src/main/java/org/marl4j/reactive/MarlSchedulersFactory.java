package org.marl4j.reactive;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import org.marl4j.FiberEngine;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * MarlSchedulersFactory is a Reactor {@link Schedulers.Factory} that makes Reactor's own schedulers
 * {@link MarlScheduler}s over one marl4j {@link org.marl4j.Scheduler}: after
 * {@code Schedulers.setFactory(MarlSchedulersFactory.of(scheduler))}, {@code Schedulers.parallel()},
 * {@code single()}, {@code boundedElastic()} and their {@code new*} variants, and so the timers of
 * {@code Flux.interval}, {@code delayElements}, {@code timeout} and the other time operators, run
 * on marl4j's fibers. {@code Schedulers.resetFactory()} undoes it.
 *
 * <pre>{@code
 * Schedulers.setFactory(MarlSchedulersFactory.of(scheduler));
 * Flux.interval(Duration.ofMillis(10)).take(3).blockLast();   // ticks on marl4j's fibers
 * Schedulers.resetFactory();
 * }</pre>
 *
 * <p>The marl scheduler is borrowed: disposing a Reactor scheduler made here (including
 * {@code Schedulers.shutdownNow()}, which {@code setFactory} and {@code resetFactory} call) never
 * closes it; close it yourself after {@code resetFactory()}. Setting the factory is global to the
 * JVM (Reactor's own rule): do it once, at start-up.
 *
 * <p>What each kind becomes:
 * <ul>
 *   <li>parallel: a {@link MarlScheduler#from} view. The parallelism and the thread factory Reactor
 *       passes are ignored: the marl scheduler's worker threads run everything.
 *   <li>single: a serial MarlScheduler. Tasks scheduled on it directly (and its delayed and
 *       periodic ones) run one at a time, in order, as on Reactor's single thread; but not on one
 *       thread (any worker may run the next), so thread-locals do not carry from one task to the
 *       next, and its {@code createWorker()} workers are serial each but not with one another.
 *   <li>boundedElastic, the scheduler for blocking calls: on the {@link FiberEngine#VIRTUAL_THREADS}
 *       engine, a MarlScheduler view: a blocking JDK call there parks only its fiber, and the worker
 *       thread goes on with other tasks, so blocking is allowed. The bounds Reactor passes (thread
 *       and queue caps) do not apply: tasks are never rejected for capacity. On
 *       {@link FiberEngine#CONTINUATIONS}, a blocking call would hold a marl worker thread and starve
 *       every other Reactor scheduler now on marl4j, so boundedElastic stays Reactor's own.
 * </ul>
 */
public final class MarlSchedulersFactory implements Schedulers.Factory {
    private final org.marl4j.Scheduler scheduler;

    private MarlSchedulersFactory(org.marl4j.Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /**
     * of(scheduler) returns a factory of Reactor schedulers over {@code scheduler}, which it borrows.
     *
     * @param scheduler the marl scheduler to run Reactor's schedulers on; it must have worker threads
     * @return a factory for {@link Schedulers#setFactory}
     * @throws NullPointerException if scheduler is null
     * @throws IllegalArgumentException if scheduler has no worker threads (Reactor schedules from
     *     arbitrary threads)
     */
    public static MarlSchedulersFactory of(org.marl4j.Scheduler scheduler) {
        Objects.requireNonNull(scheduler, "scheduler must not be null: pass the marl4j Scheduler for Reactor's schedulers to run on");
        MarlScheduler.from(scheduler); // the same checks as every scheduler this factory makes, now rather than later
        return new MarlSchedulersFactory(scheduler);
    }

    /**
     * scheduler() returns the marl scheduler this factory's Reactor schedulers run on.
     *
     * @return the borrowed marl scheduler
     */
    public org.marl4j.Scheduler scheduler() {
        return scheduler;
    }

    /**
     * newParallel(parallelism, threadFactory) returns a {@link MarlScheduler} over the marl scheduler;
     * both arguments are ignored.
     *
     * @param parallelism ignored: the marl scheduler's worker count applies
     * @param threadFactory ignored: the marl scheduler's threads run the tasks
     * @return a new MarlScheduler, borrowing the marl scheduler
     */
    @Override
    public Scheduler newParallel(int parallelism, ThreadFactory threadFactory) {
        return MarlScheduler.from(scheduler);
    }

    /**
     * newSingle(threadFactory) returns a serial {@link MarlScheduler}: see the class comment.
     *
     * @param threadFactory ignored: the marl scheduler's threads run the tasks
     * @return a new serial MarlScheduler, borrowing the marl scheduler
     */
    @Override
    public Scheduler newSingle(ThreadFactory threadFactory) {
        return MarlScheduler.serial(scheduler);
    }

    /**
     * newBoundedElastic(threadCap, queuedTaskCap, threadFactory, ttlSeconds) returns a
     * {@link MarlScheduler} on the virtual-thread engine, Reactor's own otherwise: see the class comment.
     *
     * @param threadCap the thread cap (Reactor's scheduler only)
     * @param queuedTaskCap the queued task cap (Reactor's scheduler only)
     * @param threadFactory the thread factory (Reactor's scheduler only)
     * @param ttlSeconds the idle threads' time to live (Reactor's scheduler only)
     * @return a new scheduler for blocking tasks
     */
    @Override
    public Scheduler newBoundedElastic(int threadCap, int queuedTaskCap, ThreadFactory threadFactory, int ttlSeconds) {
        if (blockingFreesWorkers()) {
            return MarlScheduler.from(scheduler);
        }
        return Schedulers.Factory.super.newBoundedElastic(threadCap, queuedTaskCap, threadFactory, ttlSeconds);
    }

    /**
     * newThreadPerTaskBoundedElastic(threadCap, queuedTaskCap, threadFactory) is
     * {@link #newBoundedElastic}'s counterpart for Reactor's thread-per-task kind.
     *
     * @param threadCap the thread cap (Reactor's scheduler only)
     * @param queuedTaskCap the queued task cap (Reactor's scheduler only)
     * @param threadFactory the thread factory (Reactor's scheduler only)
     * @return a new scheduler for blocking tasks
     */
    @Override
    public Scheduler newThreadPerTaskBoundedElastic(int threadCap, int queuedTaskCap, ThreadFactory threadFactory) {
        if (blockingFreesWorkers()) {
            return MarlScheduler.from(scheduler);
        }
        return Schedulers.Factory.super.newThreadPerTaskBoundedElastic(threadCap, queuedTaskCap, threadFactory);
    }

    /** blockingFreesWorkers() is whether a blocking JDK call on one of the scheduler's fibers parks only that fiber. */
    private boolean blockingFreesWorkers() {
        return scheduler.fiberEngine() == FiberEngine.VIRTUAL_THREADS;
    }

    @Override
    public String toString() {
        return "MarlSchedulersFactory[" + scheduler + "]";
    }
}
