package org.marl4j.spring.boot;

import org.marl4j.Scheduler;
import org.marl4j.reactive.MarlSchedulersFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;

import reactor.core.scheduler.Schedulers;

/**
 * ReactorSchedulersSwitch moves all of Reactor's own schedulers onto the application's marl4j
 * scheduler while the context lives ({@code marl4j.reactor.schedulers-factory=true}):
 * {@code Schedulers.setFactory} as this bean starts, {@code Schedulers.resetFactory()} as it is
 * destroyed, which is before the scheduler closes.
 *
 * <p>Reactor's factory is one per JVM. Setting it disposes the {@code parallel()}, {@code single()}
 * and {@code boundedElastic()} instances already cached, so code that kept one from before this
 * bean started holds a disposed scheduler; and two contexts with the switch on in one JVM undo
 * each other's.
 */
final class ReactorSchedulersSwitch implements InitializingBean, DisposableBean {
    private final Scheduler scheduler;

    ReactorSchedulersSwitch(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    @Override
    public void afterPropertiesSet() {
        Schedulers.setFactory(MarlSchedulersFactory.of(scheduler));
        FiberEngineReport.LOG.info("marl4j.reactor.schedulers-factory=true: Reactor's own schedulers run on " + scheduler);
    }

    @Override
    public void destroy() {
        Schedulers.resetFactory();
    }
}
