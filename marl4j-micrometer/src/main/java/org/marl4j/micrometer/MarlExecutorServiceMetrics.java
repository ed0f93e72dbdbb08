package org.marl4j.micrometer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import org.marl4j.futures.MarlExecutorService;

/**
 * MarlExecutorServiceMetrics binds the meters of a {@link MarlExecutorService}'s scheduler to a
 * Micrometer registry: the meters of {@link SchedulerMetrics} (see its table), tagged
 * {@code name=<name>} plus the given tags, read through the executor.
 *
 * <pre>{@code
 * new MarlExecutorServiceMetrics(executor, "http", Tags.empty()).bindTo(registry);
 * }</pre>
 *
 * <p>The figures are the scheduler's: an executor over a borrowed scheduler that other code also
 * uses reports that code's tasks too. The meters hold the executor weakly (Micrometer's default):
 * once nothing else references it, it can be collected and the meters read NaN.
 * Needs {@code fiber-futures} on the class path (an optional dependency of this module).
 */
public final class MarlExecutorServiceMetrics implements MeterBinder {
    private final SchedulerMeters<MarlExecutorService> meters;

    /**
     * MarlExecutorServiceMetrics(executor, name, tags) makes a binder for executor's meters, tagged
     * {@code name=<name>} and with tags.
     *
     * @param executor the executor to measure
     * @param name the value of every meter's {@code name} tag
     * @param tags further tags for every meter; null means none
     * @throws NullPointerException if executor or name is null
     * @throws IllegalArgumentException if name is blank
     */
    public MarlExecutorServiceMetrics(MarlExecutorService executor, String name, Iterable<Tag> tags) {
        Objects.requireNonNull(executor, "executor must not be null: pass the MarlExecutorService whose meters to bind");
        meters = new SchedulerMeters<>(executor, e -> e.scheduler().stats(), SchedulerMeters.checkName(name), tags);
    }

    /**
     * bindTo(registry) registers the executor's meters in registry.
     *
     * @param registry the registry to register the meters in
     * @throws NullPointerException if registry is null
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        meters.register(registry);
    }
}
