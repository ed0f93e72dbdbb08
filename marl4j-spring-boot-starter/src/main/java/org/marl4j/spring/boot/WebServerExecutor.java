package org.marl4j.spring.boot;

import org.marl4j.futures.MarlExecutorService;

/**
 * WebServerExecutor is a web server customizer's own {@link MarlExecutorService}, named for the
 * meters: lets {@link MarlMeterBinder} find it without loading any web server's classes.
 */
interface WebServerExecutor {

    /** executor() is the executor the web server runs requests on. */
    MarlExecutorService executor();

    /** metricsName() is the {@code name} tag of the executor's meters: the server's name. */
    String metricsName();
}
