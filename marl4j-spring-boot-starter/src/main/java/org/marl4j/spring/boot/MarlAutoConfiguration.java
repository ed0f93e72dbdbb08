package org.marl4j.spring.boot;

import java.util.concurrent.Executor;

import org.marl4j.Scheduler;
import org.marl4j.reactive.MarlScheduler;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.support.CompositeTaskDecorator;

/**
 * MarlAutoConfiguration puts a Spring Boot application on marl4j: one {@link Scheduler} bean built
 * from the {@code marl4j.*} properties ({@link MarlProperties}) and closed with the context; on it,
 * the {@code applicationTaskExecutor} ({@code @Async}, Spring MVC's asynchronous requests), the
 * embedded Tomcat's request executor or Jetty's request handling, and, with Reactor present, a
 * {@link MarlScheduler} bean and (with {@code marl4j.reactor.schedulers-factory=true}) all of
 * Reactor's own schedulers. {@code marl4j.enabled=false} turns all of it off; a bean of the
 * application's own (its {@code Scheduler}, an {@link Executor}, a {@code MarlScheduler}) takes
 * the place of the one here.
 *
 * <p>It runs before Boot's {@link TaskExecutionAutoConfiguration}, which then finds an
 * {@link Executor} bean and backs off, as it does for any executor of the application's own.
 */
@AutoConfiguration(before = TaskExecutionAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "marl4j.enabled", matchIfMissing = true)
@EnableConfigurationProperties(MarlProperties.class)
public final class MarlAutoConfiguration {

    /** The name of the scheduler bean. */
    public static final String SCHEDULER_BEAN_NAME = "marl4jScheduler";

    MarlAutoConfiguration() {}

    /**
     * marl4jScheduler(properties) is the application's scheduler, closed with the context (after
     * the beans that use it: the web server, the task executor, Reactor's schedulers).
     *
     * @param properties the {@code marl4j.*} settings
     * @return the scheduler
     */
    @Bean(name = SCHEDULER_BEAN_NAME, destroyMethod = "close")
    @ConditionalOnMissingBean
    Scheduler marl4jScheduler(MarlProperties properties) {
        return new Scheduler(properties.toConfig());
    }

    @Bean
    FiberEngineReport marl4jFiberEngineReport(ObjectProvider<Scheduler> scheduler) {
        return new FiberEngineReport(scheduler);
    }

    /**
     * applicationTaskExecutor(scheduler, decorators) is the executor of {@code @Async} methods and
     * Spring MVC's asynchronous requests, on marl4j, unless the application has an
     * {@link Executor} of its own (the rule Boot's own applies).
     *
     * @param scheduler the scheduler bean
     * @param decorators the application's task decorators, applied in order
     * @return the executor
     */
    @Bean(name = TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME, destroyMethod = "shutdown")
    @ConditionalOnMissingBean(Executor.class)
    MarlTaskExecutor applicationTaskExecutor(Scheduler scheduler, ObjectProvider<TaskDecorator> decorators) {
        var list = decorators.orderedStream().toList();
        TaskDecorator decorator = list.isEmpty() ? null : list.size() == 1 ? list.get(0) : new CompositeTaskDecorator(list);
        return new MarlTaskExecutor(scheduler, decorator);
    }

    /** The embedded Tomcat's request executor on marl4j. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication
    @ConditionalOnClass(name = {"org.apache.catalina.startup.Tomcat", "org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory"})
    static class TomcatConfiguration {

        @Bean
        MarlTomcatCustomizer marl4jTomcatCustomizer(Scheduler scheduler) {
            return new MarlTomcatCustomizer(scheduler);
        }
    }

    /** The embedded Jetty's request handling on marl4j. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication
    @ConditionalOnClass(name = {"org.eclipse.jetty.server.Server", "org.springframework.boot.jetty.JettyWebServerFactory"})
    static class JettyConfiguration {

        @Bean
        MarlJettyCustomizer marl4jJettyCustomizer(Scheduler scheduler) {
            return new MarlJettyCustomizer(scheduler);
        }
    }

    /** A Reactor {@link MarlScheduler} over the scheduler bean, and the Reactor-wide switch. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"reactor.core.scheduler.Schedulers", "org.marl4j.reactive.MarlScheduler"})
    static class ReactorConfiguration {

        @Bean(destroyMethod = "dispose")
        @ConditionalOnMissingBean
        MarlScheduler marl4jReactorScheduler(Scheduler scheduler) {
            return MarlScheduler.from(scheduler);
        }

        /** All of Reactor's own schedulers on marl4j, behind {@code marl4j.reactor.schedulers-factory}. */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnBooleanProperty("marl4j.reactor.schedulers-factory")
        @ConditionalOnClass(name = "org.marl4j.reactive.MarlSchedulersFactory")
        static class SchedulersFactoryConfiguration {

            @Bean
            ReactorSchedulersSwitch marl4jReactorSchedulersSwitch(Scheduler scheduler) {
                return new ReactorSchedulersSwitch(scheduler);
            }
        }
    }
}
