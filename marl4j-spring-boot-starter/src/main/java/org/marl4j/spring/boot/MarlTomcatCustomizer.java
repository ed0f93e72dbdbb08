package org.marl4j.spring.boot;

import org.marl4j.Scheduler;
import org.marl4j.futures.MarlExecutorService;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.core.Ordered;

/**
 * MarlTomcatCustomizer makes the embedded Tomcat run every request on a marl4j fiber: its protocol
 * handler's executor becomes a {@link MarlExecutorService} over the application's scheduler, where
 * {@code spring.threads.virtual.enabled} puts one virtual thread per request. Tomcat's own thread
 * pool settings ({@code server.tomcat.threads.*}) then no longer apply.
 *
 * <p>Tomcat does not shut down an executor it was given; this bean does, when the context closes,
 * which is after the web server has stopped.
 */
final class MarlTomcatCustomizer implements WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory>, Ordered, DisposableBean, WebServerExecutor {
    /**
     * After Boot's own Tomcat customizer (order 0) and its virtual-thread one (1): protocol handler
     * customizers run in the order they were added, so with both properties set marl4j's executor
     * is the one Tomcat keeps.
     */
    static final int ORDER = 2;

    private final MarlExecutorService executor;

    MarlTomcatCustomizer(Scheduler scheduler) {
        this.executor = new MarlExecutorService(scheduler);
    }

    @Override
    public MarlExecutorService executor() {
        return executor;
    }

    @Override
    public String metricsName() {
        return "tomcat";
    }

    @Override
    public void customize(ConfigurableTomcatWebServerFactory factory) {
        factory.addProtocolHandlerCustomizers(handler -> handler.setExecutor(executor));
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public void destroy() {
        executor.shutdown();
    }
}
