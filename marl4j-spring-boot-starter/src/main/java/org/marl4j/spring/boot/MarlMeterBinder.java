package org.marl4j.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.Map;

import org.marl4j.Scheduler;
import org.marl4j.micrometer.MarlExecutorServiceMetrics;
import org.marl4j.micrometer.SchedulerMetrics;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * MarlMeterBinder binds marl4j's meters for what the auto-configuration made: the scheduler
 * (tag {@code name=marl4j}), each {@link MarlTaskExecutor} bean (tagged with its bean name,
 * {@code applicationTaskExecutor}, as Boot tags its own executors) and the web server's executor
 * ({@code name=tomcat} or {@code name=jetty}). Spring Boot binds every {@link MeterBinder} bean to
 * every registry, so they show in Actuator's {@code /actuator/metrics}.
 */
final class MarlMeterBinder implements MeterBinder {
    /** The {@code name} tag of the scheduler's meters. */
    static final String SCHEDULER_NAME = "marl4j";

    private final ListableBeanFactory beans;

    MarlMeterBinder(ListableBeanFactory beans) {
        this.beans = beans;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        // Looked up when the registry binds (after the singletons exist), not when this bean is made,
        // so that the web server's customizer, made late, is there.
        Map<String, Scheduler> schedulers = beans.getBeansOfType(Scheduler.class, false, false);
        if (schedulers.size() == 1) {
            new SchedulerMetrics(schedulers.values().iterator().next(), SCHEDULER_NAME, Tags.empty()).bindTo(registry);
        }
        beans.getBeansOfType(MarlTaskExecutor.class, false, false).forEach((name, executor) ->
                new MarlExecutorServiceMetrics(executor.executorService(), name, Tags.empty()).bindTo(registry));
        beans.getBeansOfType(WebServerExecutor.class, false, false).values().forEach(server ->
                new MarlExecutorServiceMetrics(server.executor(), server.metricsName(), Tags.empty()).bindTo(registry));
    }
}
