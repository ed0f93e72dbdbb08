package org.marl4j.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.marl4j.Scheduler;

/**
 * SchedulerMeters registers the meters of one {@link Scheduler.Stats} source: Micrometer's executor
 * meters where they apply (with the names, base units and descriptions of Micrometer's
 * {@code ExecutorServiceMetrics}, so that a registry that needs one description per name, as
 * Prometheus does, takes marl4j's beside a JDK pool's), then marl4j's own. Shared by {@link SchedulerMetrics} and
 * {@link MarlExecutorServiceMetrics}, which differ only in what they measure through.
 *
 * <p>Every meter holds its source weakly (Micrometer's default for gauges and function counters):
 * a registry that outlives a scheduler does not keep it, or its threads' fibers, from being
 * collected; its meters then read NaN. Each reading takes a fresh {@link Scheduler#stats()}, which
 * takes no worker's lock.
 */
final class SchedulerMeters<T> {
    /** Fibers, for marl4j's own meters: Micrometer has no base unit for them. */
    static final String FIBERS = "fibers";

    private final T source;
    private final Function<T, Scheduler.Stats> stats;
    private final Tags tags;

    SchedulerMeters(T source, Function<T, Scheduler.Stats> stats, String name, Iterable<Tag> tags) {
        this.source = source;
        this.stats = stats;
        this.tags = Tags.concat(tags == null ? Tags.empty() : tags, "name", name);
    }

    /** checkName(name) refuses a null or blank name, which every meter carries as its "name" tag. */
    static String checkName(String name) {
        Objects.requireNonNull(name, "name must not be null: pass the name to tag this scheduler's meters with");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank: pass the name to tag this scheduler's meters with");
        }
        return name;
    }

    /** register(registry) registers every meter in registry. */
    void register(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry must not be null");
        counter(registry, "executor.completed", "The approximate total number of tasks that have completed execution",
                BaseUnits.TASKS, Scheduler.Stats::tasksCompleted);
        gauge(registry, "executor.active", "The approximate number of threads that are actively executing tasks",
                BaseUnits.THREADS, Scheduler.Stats::tasksRunning);
        gauge(registry, "executor.queued", "The approximate number of tasks that are queued for execution",
                BaseUnits.TASKS, Scheduler.Stats::tasksQueued);
        gauge(registry, "executor.pool.size", "The current number of threads in the pool",
                BaseUnits.THREADS, s -> s.workerThreads() + s.boundThreads());
        gauge(registry, "executor.pool.core", "The core number of threads for the pool",
                BaseUnits.THREADS, Scheduler.Stats::workerThreads);
        counter(registry, "executor.steals", "Estimate of the total number of tasks stolen from one thread's work queue by another",
                null, Scheduler.Stats::tasksStolen); // no base unit, as for a ForkJoinPool: one series for both

        counter(registry, "marl4j.tasks.started", "The total number of tasks started, including those still running or suspended",
                BaseUnits.TASKS, Scheduler.Stats::tasksRun);
        counter(registry, "marl4j.tasks.blocking",
                "The total number of tasks seen holding a worker thread, without suspending, past the blocking threshold",
                BaseUnits.TASKS, Scheduler.Stats::tasksBlocking);
        counter(registry, "marl4j.fibers.created", "The total number of fibers created; steady-state work reuses idle ones",
                FIBERS, Scheduler.Stats::fibersCreated);
        gauge(registry, "marl4j.fibers.idle", "The number of fibers idle, kept for reuse", FIBERS, Scheduler.Stats::fibersIdle);
        gauge(registry, "marl4j.fibers.blocked", "The number of fibers suspended in a wait", FIBERS,
                Scheduler.Stats::fibersBlocked);
        counter(registry, "marl4j.idle.sleeps",
                "The total number of times a worker or bound thread, out of work, went to sleep rather than finding work while it spun",
                BaseUnits.EVENTS, Scheduler.Stats::idleSleeps);
        counter(registry, "marl4j.spin.time", "The total time worker threads spent spinning for work before sleeping",
                "seconds", s -> s.timeSpinning().toNanos() / 1e9);
        gauge(registry, "marl4j.threads.bound", "The number of threads bound to the scheduler", BaseUnits.THREADS,
                Scheduler.Stats::boundThreads);
    }

    /**
     * read(stats, value) is a meter's function. It captures only these two, never this object, whose
     * strong reference to the source would defeat the meter's weak one.
     */
    private static <T> ToDoubleFunction<T> read(Function<T, Scheduler.Stats> stats, ToDoubleFunction<Scheduler.Stats> value) {
        return source -> value.applyAsDouble(stats.apply(source));
    }

    private void gauge(MeterRegistry registry, String name, String description, String unit,
            ToDoubleFunction<Scheduler.Stats> value) {
        Gauge.builder(name, source, read(stats, value))
                .tags(tags)
                .description(description)
                .baseUnit(unit)
                .register(registry);
    }

    private void counter(MeterRegistry registry, String name, String description, String unit,
            ToDoubleFunction<Scheduler.Stats> value) {
        FunctionCounter.builder(name, source, read(stats, value))
                .tags(tags)
                .description(description)
                .baseUnit(unit)
                .register(registry);
    }
}
