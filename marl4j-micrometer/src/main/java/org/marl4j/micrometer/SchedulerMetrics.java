package org.marl4j.micrometer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import org.marl4j.Scheduler;

/**
 * SchedulerMetrics binds a marl4j {@link Scheduler}'s figures ({@link Scheduler#stats()}) to a
 * Micrometer registry, under Micrometer's executor names where they apply and marl4j's own
 * beyond them, every meter tagged {@code name=<name>} plus the given tags.
 *
 * <pre>{@code
 * new SchedulerMetrics(scheduler, "marl", Tags.empty()).bindTo(registry);
 * }</pre>
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>base unit</th><th>what</th></tr>
 *   <tr><td>{@code executor.completed}</td><td>function counter</td><td>tasks</td><td>tasks completed</td></tr>
 *   <tr><td>{@code executor.active}</td><td>gauge</td><td>threads</td><td>threads running a task now</td></tr>
 *   <tr><td>{@code executor.queued}</td><td>gauge</td><td>tasks</td><td>tasks queued, not yet started</td></tr>
 *   <tr><td>{@code executor.pool.size}</td><td>gauge</td><td>threads</td><td>worker threads plus bound threads</td></tr>
 *   <tr><td>{@code executor.pool.core}</td><td>gauge</td><td>threads</td><td>worker threads</td></tr>
 *   <tr><td>{@code executor.steals}</td><td>function counter</td><td>(none, as for a ForkJoinPool)</td><td>tasks stolen by idle workers</td></tr>
 *   <tr><td>{@code marl4j.tasks.started}</td><td>function counter</td><td>tasks</td><td>tasks started</td></tr>
 *   <tr><td>{@code marl4j.tasks.blocking}</td><td>function counter</td><td>tasks</td><td>tasks that held a worker thread past the blocking threshold</td></tr>
 *   <tr><td>{@code marl4j.fibers.created}</td><td>function counter</td><td>fibers</td><td>fibers created</td></tr>
 *   <tr><td>{@code marl4j.fibers.idle}</td><td>gauge</td><td>fibers</td><td>fibers idle, kept for reuse</td></tr>
 *   <tr><td>{@code marl4j.fibers.blocked}</td><td>gauge</td><td>fibers</td><td>fibers suspended in a wait</td></tr>
 *   <tr><td>{@code marl4j.idle.sleeps}</td><td>function counter</td><td>events</td><td>times a thread out of work went to sleep</td></tr>
 *   <tr><td>{@code marl4j.spin.time}</td><td>function counter</td><td>seconds</td><td>time spent spinning for work</td></tr>
 *   <tr><td>{@code marl4j.threads.bound}</td><td>gauge</td><td>threads</td><td>threads bound now</td></tr>
 * </table>
 *
 * <p>No {@code executor.pool.max}: a scheduler never adds worker threads, but any number of
 * threads may bind to it, so it has no maximum. {@code executor.active} counts threads running a
 * task; a task suspended in a wait holds no thread and shows in {@code marl4j.fibers.blocked}
 * instead.
 *
 * <p>The meters hold the scheduler weakly, as Micrometer's gauges do by default: the registry does
 * not keep a scheduler that nothing else uses from being collected (its meters then read NaN). This
 * binder itself holds it strongly, as Micrometer's own binders hold their executor. A closed
 * scheduler that is still referenced keeps reporting its final counts. Meter names and tags identify
 * a meter: bind each scheduler under its own name, or the registry keeps the first one's meters.
 */
public final class SchedulerMetrics implements MeterBinder {
    private final SchedulerMeters<Scheduler> meters;

    /**
     * SchedulerMetrics(scheduler, name, tags) makes a binder for scheduler's meters, tagged
     * {@code name=<name>} and with tags.
     *
     * @param scheduler the scheduler to measure
     * @param name the value of every meter's {@code name} tag
     * @param tags further tags for every meter; null means none
     * @throws NullPointerException if scheduler or name is null
     * @throws IllegalArgumentException if name is blank
     */
    public SchedulerMetrics(Scheduler scheduler, String name, Iterable<Tag> tags) {
        Objects.requireNonNull(scheduler, "scheduler must not be null: pass the Scheduler whose meters to bind");
        meters = new SchedulerMeters<>(scheduler, Scheduler::stats, SchedulerMeters.checkName(name), tags);
    }

    /**
     * bindTo(registry) registers the scheduler's meters in registry.
     *
     * @param registry the registry to register the meters in
     * @throws NullPointerException if registry is null
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        meters.register(registry);
    }
}
