package org.marl4j.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

class MarlMetricsAutoConfigurationTest {
    private static final AutoConfigurations METRICS = AutoConfigurations.of(MetricsAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class);
    private static final AutoConfigurations MARL = AutoConfigurations.of(MarlAutoConfiguration.class,
            MarlMetricsAutoConfiguration.class, TaskExecutionAutoConfiguration.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(MARL)
            .withConfiguration(METRICS)
            .withPropertyValues("marl4j.worker-threads=2");

    @Test
    void withARegistry_theSchedulerAndTheTaskExecutorAreMetered() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(MarlMeterBinder.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            MarlTaskExecutor executor = context.getBean(MarlTaskExecutor.class);
            executor.submit(() -> 1).get(30, TimeUnit.SECONDS);

            FunctionCounter scheduler = registry.find("executor.completed").tag("name", "marl4j").functionCounter();
            FunctionCounter tasks = registry.find("executor.completed").tag("name", "applicationTaskExecutor").functionCounter();
            assertThat(scheduler).isNotNull();
            assertThat(tasks).isNotNull();
            // The executor counts a task once it has returned, which is after its future completed.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(tasks.count()).isGreaterThanOrEqualTo(1));
            assertThat(registry.find("marl4j.fibers.created").tag("name", "marl4j").functionCounter()).isNotNull();
        });
    }

    @Test
    void inAWebApplication_theWebServersExecutorIsMetered() {
        new WebApplicationContextRunner()
                .withConfiguration(MARL)
                .withConfiguration(METRICS)
                .withPropertyValues("marl4j.worker-threads=2")
                .run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.find("executor.completed").tag("name", "tomcat").functionCounter()).isNotNull();
                    assertThat(registry.find("executor.completed").tag("name", "jetty").functionCounter()).isNotNull();
                });
    }

    @Test
    void withoutARegistry_nothingIsMetered() {
        new ApplicationContextRunner().withConfiguration(MARL).withPropertyValues("marl4j.worker-threads=2")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(MarlMeterBinder.class);
                });
    }

    @Test
    void withoutMarl4jMicrometer_nothingIsMetered() {
        runner.withClassLoader(new FilteredClassLoader("org.marl4j.micrometer")).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(MarlMeterBinder.class);
            assertThat(context.getBean(MeterRegistry.class).find("executor.completed").tag("name", "marl4j").functionCounter()).isNull();
        });
    }

    @Test
    void disabled_nothingIsMetered() {
        runner.withPropertyValues("marl4j.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(MarlMeterBinder.class);
        });
    }
}
