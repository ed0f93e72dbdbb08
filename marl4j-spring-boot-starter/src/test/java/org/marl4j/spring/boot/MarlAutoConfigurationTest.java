package org.marl4j.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.marl4j.Fiber;
import org.marl4j.FiberEngine;
import org.marl4j.Scheduler;
import org.marl4j.TestSchedulers;
import org.marl4j.reactive.MarlScheduler;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

@ExtendWith(OutputCaptureExtension.class)
class MarlAutoConfigurationTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MarlAutoConfiguration.class, TaskExecutionAutoConfiguration.class))
            .withPropertyValues("marl4j.worker-threads=2");

    @Test
    void scheduler_isOneBeanBuiltFromTheProperties() {
        runner.withPropertyValues("marl4j.spin=0ms", "marl4j.thread-name-prefix=app-marl-", "marl4j.fiber-engine=continuations")
                .run(context -> {
                    assertThat(context).hasSingleBean(Scheduler.class);
                    Scheduler scheduler = context.getBean(Scheduler.class);
                    assertThat(scheduler.config().getWorkerThreadCount()).isEqualTo(2);
                    assertThat(scheduler.config().getSpinDuration()).isZero();
                    assertThat(scheduler.config().getThreadNamePrefix()).isEqualTo("app-marl-");
                    assertThat(scheduler.fiberEngine()).isEqualTo(FiberEngine.CONTINUATIONS);
                });
    }

    @Test
    void scheduler_withoutProperties_hasAllCoresAndTheDefaultEngine() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(MarlAutoConfiguration.class)).run(context -> {
            Scheduler scheduler = context.getBean(Scheduler.class);
            assertThat(scheduler.config().getWorkerThreadCount()).isEqualTo(Scheduler.Config.allCores().getWorkerThreadCount());
            assertThat(scheduler.fiberEngine()).isEqualTo(FiberEngine.defaultEngine());
        });
    }

    @Test
    void scheduler_isClosedWithTheContext() {
        Scheduler[] scheduler = new Scheduler[1];
        runner.run(context -> {
            scheduler[0] = context.getBean(Scheduler.class);
            assertThat(scheduler[0].isClosed()).isFalse();
        });
        assertThat(scheduler[0].isClosed()).isTrue();
    }

    @Test
    void zeroWorkers_failsTheContextNamingTheProperty() {
        runner.withPropertyValues("marl4j.worker-threads=0").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("marl4j.worker-threads");
        });
    }

    @Test
    void disabled_leavesEverythingToSpringBoot() {
        runner.withPropertyValues("marl4j.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(Scheduler.class);
            assertThat(context).doesNotHaveBean(MarlTaskExecutor.class);
            assertThat(context).doesNotHaveBean(MarlScheduler.class);
            assertThat(context.getBean(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME))
                    .isInstanceOf(ThreadPoolTaskExecutor.class);
        });
    }

    @Test
    void usersScheduler_winsAndEverythingRunsOnIt() {
        runner.withUserConfiguration(UserScheduler.class).run(context -> {
            assertThat(context).hasSingleBean(Scheduler.class);
            Scheduler users = context.getBean(Scheduler.class);
            assertThat(users.config().getThreadNamePrefix()).isEqualTo("user-");
            MarlTaskExecutor executor = context.getBean(MarlTaskExecutor.class);
            assertThat(executor.executorService().scheduler()).isSameAs(users);
        });
    }

    @Test
    void applicationTaskExecutor_isMarl4jsAndBootsBacksOff() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(Executor.class);
            Object executor = context.getBean(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME);
            assertThat(executor).isInstanceOf(MarlTaskExecutor.class);
            MarlTaskExecutor marl = (MarlTaskExecutor) executor;
            assertThat(marl.executorService().scheduler()).isSameAs(context.getBean(Scheduler.class));
            assertThat(marl.submit(() -> Fiber.current() != null).get(30, TimeUnit.SECONDS)).isTrue();
        });
    }

    @Test
    void applicationTaskExecutor_isShutDownWithTheContext() {
        MarlTaskExecutor[] executor = new MarlTaskExecutor[1];
        runner.run(context -> executor[0] = context.getBean(MarlTaskExecutor.class));
        assertThat(executor[0].executorService().isShutdown()).isTrue();
    }

    @Test
    void usersExecutor_winsOverTheApplicationTaskExecutor() {
        runner.withUserConfiguration(UserExecutor.class).run(context -> {
            assertThat(context).doesNotHaveBean(MarlTaskExecutor.class);
            assertThat(context).doesNotHaveBean(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME);
            assertThat(context).hasSingleBean(Scheduler.class);
        });
    }

    @Test
    void marlScheduler_borrowsTheSchedulerBean() {
        MarlScheduler[] reactor = new MarlScheduler[1];
        Scheduler[] scheduler = new Scheduler[1];
        runner.run(context -> {
            assertThat(context).hasSingleBean(MarlScheduler.class);
            reactor[0] = context.getBean(MarlScheduler.class);
            scheduler[0] = context.getBean(Scheduler.class);
            assertThat(reactor[0].toString()).isNotEmpty();
        });
        assertThat(reactor[0].isDisposed()).isTrue();
        assertThat(scheduler[0].isClosed()).isTrue();
    }

    @Test
    void withoutReactor_thereIsNoMarlScheduler() {
        runner.withClassLoader(new FilteredClassLoader("reactor.core")).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(Scheduler.class);
            assertThat(context).doesNotHaveBean("marl4jReactorScheduler");
        });
    }

    @Test
    void usersMarlScheduler_wins() {
        runner.withUserConfiguration(UserMarlScheduler.class).run(context -> {
            assertThat(context).hasSingleBean(MarlScheduler.class);
            assertThat(context).hasBean("usersMarlScheduler");
        });
    }

    @Test
    void webServerCustomizers_onlyInAWebApplication() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(MarlTomcatCustomizer.class);
            assertThat(context).doesNotHaveBean(MarlJettyCustomizer.class);
        });
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MarlAutoConfiguration.class))
                .withPropertyValues("marl4j.worker-threads=2")
                .run(context -> {
                    assertThat(context).hasSingleBean(MarlTomcatCustomizer.class);
                    assertThat(context).hasSingleBean(MarlJettyCustomizer.class);
                });
    }

    @Test
    void jettyCustomizer_withoutJetty_isAbsent() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MarlAutoConfiguration.class))
                .withPropertyValues("marl4j.worker-threads=2")
                .withClassLoader(new FilteredClassLoader("org.eclipse.jetty"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(MarlJettyCustomizer.class);
                    assertThat(context).hasSingleBean(MarlTomcatCustomizer.class);
                });
    }

    @Test
    void webServerExecutors_areShutDownWithTheContext() {
        WebServerExecutor[] servers = new WebServerExecutor[2];
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MarlAutoConfiguration.class))
                .withPropertyValues("marl4j.worker-threads=2")
                .run(context -> {
                    servers[0] = context.getBean(MarlTomcatCustomizer.class);
                    servers[1] = context.getBean(MarlJettyCustomizer.class);
                });
        assertThat(servers[0].executor().isShutdown()).isTrue();
        assertThat(servers[1].executor().isShutdown()).isTrue();
    }

    @Test
    void tomcatCustomizer_withoutTomcat_isAbsent() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MarlAutoConfiguration.class))
                .withPropertyValues("marl4j.worker-threads=2")
                .withClassLoader(new FilteredClassLoader("org.apache.catalina"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(MarlTomcatCustomizer.class);
                });
    }

    @Test
    void start_logsTheFiberEngine(CapturedOutput output) {
        runner.withPropertyValues("marl4j.fiber-engine=VIRTUAL_THREADS").run(context -> {
            assertThat(output).contains("runs its fibers on VIRTUAL_THREADS");
            assertThat(output).doesNotContain("--add-opens java.base/java.lang=ALL-UNNAMED");
        });
    }

    @Test
    void start_onContinuations_warnsWithTheFlagThatFixesIt(CapturedOutput output) {
        runner.withPropertyValues("marl4j.fiber-engine=CONTINUATIONS").run(context -> {
            assertThat(output).contains("runs its fibers on CONTINUATIONS");
            assertThat(output).containsPattern("WARN.*CONTINUATIONS fiber engine.*--add-opens java.base/java.lang=ALL-UNNAMED");
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class UserScheduler {
        @Bean
        Scheduler usersScheduler() {
            return new Scheduler(TestSchedulers.config(1).setThreadNamePrefix("user-"));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UserExecutor {
        @Bean(destroyMethod = "shutdown")
        Executor usersExecutor() {
            return Executors.newSingleThreadExecutor();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UserMarlScheduler {
        @Bean(destroyMethod = "dispose")
        MarlScheduler usersMarlScheduler(Scheduler scheduler) {
            return MarlScheduler.from(scheduler);
        }
    }
}
