package org.marl4j.spring.boot;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ThreadPool;
import org.marl4j.Scheduler;
import org.marl4j.futures.MarlExecutorService;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.jetty.JettyWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.core.Ordered;

/**
 * MarlJettyCustomizer makes the embedded Jetty run request handling on marl4j fibers: Jetty's
 * {@link QueuedThreadPool} gets a {@link MarlExecutorService} over the application's scheduler as
 * its "virtual threads executor", which Jetty uses for the work that may block (the servlet, the
 * application's handlers). Jetty's selectors and acceptors stay on the pool's platform threads:
 * they loop for the server's whole life and would otherwise hold marl4j's workers.
 *
 * <p>If the factory has no {@code QueuedThreadPool} (none yet, or the {@code VirtualThreadPool}
 * of {@code spring.threads.virtual.enabled}), it gets a new one with Jetty's defaults. Tomcat is
 * the other server the starter supports; Jetty does not shut down this executor, this bean does
 * when the context closes, after the web server has stopped.
 */
final class MarlJettyCustomizer implements WebServerFactoryCustomizer<JettyWebServerFactory>, Ordered, DisposableBean, WebServerExecutor {
    private static final Log LOG = LogFactory.getLog(MarlJettyCustomizer.class);

    private final MarlExecutorService executor;

    MarlJettyCustomizer(Scheduler scheduler) {
        this.executor = new MarlExecutorService(scheduler);
    }

    @Override
    public MarlExecutorService executor() {
        return executor;
    }

    @Override
    public String metricsName() {
        return "jetty";
    }

    @Override
    public void customize(JettyWebServerFactory factory) {
        ThreadPool pool = factory.getThreadPool();
        QueuedThreadPool queued;
        if (pool instanceof QueuedThreadPool q) {
            queued = q;
        } else {
            if (pool != null) {
                LOG.info("marl4j replaces Jetty's thread pool " + pool + " with a QueuedThreadPool that hands request handling to marl4j");
            }
            queued = new QueuedThreadPool();
            factory.setThreadPool(queued);
        }
        queued.setVirtualThreadsExecutor(executor);
    }

    /** After Boot's own Jetty customizers (orders 0 and 1), which set the thread pool this one extends. */
    @Override
    public int getOrder() {
        return MarlTomcatCustomizer.ORDER;
    }

    @Override
    public void destroy() {
        executor.shutdown();
    }
}
