package org.marl4j.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.marl4j.Fiber;
import org.marl4j.FiberEngine;
import org.marl4j.Scheduler;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

class ReactorSchedulersSwitchTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MarlAutoConfiguration.class))
            .withPropertyValues("marl4j.worker-threads=2");

    @AfterEach
    void resetReactor() {
        Schedulers.resetFactory();
    }

    /** The marl4j scheduler the calling code runs on, or null. */
    private static Scheduler where() {
        return Fiber.current() == null ? null : Scheduler.get();
    }

    private static Scheduler whereParallelRuns() {
        return Mono.fromCallable(ReactorSchedulersSwitchTest::where).subscribeOn(Schedulers.parallel())
                .block(Duration.ofSeconds(30));
    }

    @Test
    void on_reactorsOwnSchedulersAndTimersRunOnTheSchedulerBean() {
        runner.withPropertyValues("marl4j.reactor.schedulers-factory=true").run(context -> {
            Scheduler scheduler = context.getBean(Scheduler.class);
            assertThat(context).hasSingleBean(ReactorSchedulersSwitch.class);
            assertThat(whereParallelRuns()).isSameAs(scheduler);
            // boundedElastic, for blocking calls, moves only where a blocking call frees the worker.
            Scheduler blocking = scheduler.fiberEngine() == FiberEngine.VIRTUAL_THREADS ? scheduler : null;
            assertThat(Mono.fromCallable(ReactorSchedulersSwitchTest::where).subscribeOn(Schedulers.boundedElastic())
                    .block(Duration.ofSeconds(30))).isSameAs(blocking);
            assertThat(Flux.interval(Duration.ofMillis(1)).take(3).map(tick -> where() == scheduler)
                    .collectList().block(Duration.ofSeconds(30))).containsOnly(true);
        });
    }

    @Test
    void on_isResetWhenTheContextCloses() {
        runner.withPropertyValues("marl4j.reactor.schedulers-factory=true")
                .run(context -> assertThat(whereParallelRuns()).isNotNull());

        assertThat(whereParallelRuns()).isNull();
    }

    @Test
    void off_byDefault_reactorKeepsItsOwnSchedulers() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(ReactorSchedulersSwitch.class);
            assertThat(whereParallelRuns()).isNull();
        });
    }

    @Test
    void withoutReactor_theSwitchIsIgnored() {
        runner.withPropertyValues("marl4j.reactor.schedulers-factory=true")
                .withClassLoader(new FilteredClassLoader("reactor.core"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(ReactorSchedulersSwitch.class);
                });
    }
}
