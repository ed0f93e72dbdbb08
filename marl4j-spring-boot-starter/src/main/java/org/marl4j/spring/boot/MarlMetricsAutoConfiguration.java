package org.marl4j.spring.boot;

import org.marl4j.Scheduler;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * MarlMetricsAutoConfiguration registers marl4j's Micrometer meters (see
 * {@code org.marl4j.micrometer.SchedulerMetrics}) for the scheduler and the executors the
 * starter made, when the application has {@code marl4j-micrometer} and a {@code MeterRegistry}
 * bean (Spring Boot Actuator's, say): they then show in {@code /actuator/metrics}.
 */
@AutoConfiguration(after = MarlAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnBooleanProperty(name = "marl4j.enabled", matchIfMissing = true)
@ConditionalOnClass(name = {"io.micrometer.core.instrument.MeterRegistry", "org.marl4j.micrometer.SchedulerMetrics"})
@ConditionalOnBean(type = "io.micrometer.core.instrument.MeterRegistry", value = Scheduler.class)
public final class MarlMetricsAutoConfiguration {

    MarlMetricsAutoConfiguration() {}

    @Bean
    MarlMeterBinder marl4jMeterBinder(ListableBeanFactory beans) {
        return new MarlMeterBinder(beans);
    }
}
