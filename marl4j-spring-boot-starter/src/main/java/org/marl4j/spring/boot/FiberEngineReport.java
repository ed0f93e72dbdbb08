package org.marl4j.spring.boot;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.marl4j.FiberEngine;
import org.marl4j.Scheduler;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * FiberEngineReport logs, once the application's singletons exist, which fiber engine the marl4j
 * scheduler runs on, and warns when that engine lets blocking calls hold worker threads: a
 * Spring application blocks (JDBC, HTTP clients, Tomcat's own socket reads) on the very threads
 * the auto-configuration moved onto marl4j.
 */
final class FiberEngineReport implements SmartInitializingSingleton {
    /** The logger, named for the auto-configuration so that one category covers the starter. */
    static final Log LOG = LogFactory.getLog(MarlAutoConfiguration.class);

    private final ObjectProvider<Scheduler> schedulers;

    FiberEngineReport(ObjectProvider<Scheduler> schedulers) {
        this.schedulers = schedulers;
    }

    @Override
    public void afterSingletonsInstantiated() {
        // Several schedulers of the application's own: it chose them, there is no one engine to report.
        Scheduler scheduler = schedulers.getIfUnique();
        if (scheduler == null) {
            return;
        }
        FiberEngine engine = scheduler.fiberEngine();
        LOG.info("marl4j scheduler " + scheduler + " runs its fibers on " + engine
                + " (" + scheduler.config().getWorkerThreadCount() + " worker threads)");
        if (engine == FiberEngine.CONTINUATIONS) {
            LOG.warn("marl4j runs on the CONTINUATIONS fiber engine: a blocking call in a request handler or"
                    + " @Async method (JDBC, Thread.sleep, socket I/O, synchronized) holds its worker thread,"
                    + " and with all " + scheduler.config().getWorkerThreadCount() + " held the application stalls."
                    + " Fix: start the JVM with --add-opens java.base/java.lang=ALL-UNNAMED and leave"
                    + " marl4j.fiber-engine unset (or set it to VIRTUAL_THREADS), so blocking calls suspend only the fiber.");
        }
    }
}
