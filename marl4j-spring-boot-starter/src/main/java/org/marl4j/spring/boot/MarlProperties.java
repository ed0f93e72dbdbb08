package org.marl4j.spring.boot;

import java.time.Duration;

import org.marl4j.FiberEngine;
import org.marl4j.Scheduler;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * MarlProperties are the {@code marl4j.*} settings of the application's marl4j {@link Scheduler}:
 * what {@link #toConfig()} turns into a {@link Scheduler.Config}.
 *
 * <pre>
 * marl4j.worker-threads=8
 * marl4j.fiber-engine=virtual-threads
 * marl4j.reactor.schedulers-factory=true
 * </pre>
 */
@ConfigurationProperties("marl4j")
public class MarlProperties {

    /** Whether to auto-configure marl4j at all. */
    private boolean enabled = true;

    /** Number of worker threads, 1 to 256; unset means one per available processor. */
    private Integer workerThreads;

    /**
     * How fibers suspend and resume: VIRTUAL_THREADS (blocking JDK calls free the worker) or
     * CONTINUATIONS (blocking JDK calls hold the worker). Unset means FiberEngine.defaultEngine():
     * the org.marl4j.fiberEngine system property, else virtual threads if the JVM allows them.
     */
    private FiberEngine fiberEngine;

    /** How long an idle worker spins, looking for work to steal, before it sleeps; 0 turns spinning off. */
    private Duration spin = Duration.ofMillis(1);

    /** Start of every worker thread's name, followed by the worker's id. */
    private String threadNamePrefix = "marl-worker-";

    private final Reactor reactor = new Reactor();

    /*
     * The defaults above are written out, not read from a new Scheduler.Config, so that the
     * configuration processor records them in the metadata; MarlPropertiesTest checks they match.
     */

    /** MarlProperties() holds the defaults; Spring binds the {@code marl4j.*} properties over them. */
    public MarlProperties() {}

    /**
     * isEnabled() is whether marl4j is auto-configured ({@code marl4j.enabled}, default true).
     *
     * @return whether marl4j is auto-configured
     */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * setEnabled(enabled) switches the auto-configuration on or off.
     *
     * @param enabled whether marl4j is auto-configured
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * getWorkerThreads() is the number of worker threads, or null for one per available processor.
     *
     * @return the worker count, or null
     */
    public Integer getWorkerThreads() {
        return workerThreads;
    }

    /**
     * setWorkerThreads(workerThreads) sets the number of worker threads (null: all cores).
     *
     * @param workerThreads 1 to {@value Scheduler#MAX_WORKER_THREADS}, or null
     */
    public void setWorkerThreads(Integer workerThreads) {
        this.workerThreads = workerThreads;
    }

    /**
     * getFiberEngine() is the fiber engine asked for, or null for {@link FiberEngine#defaultEngine()}.
     *
     * @return the engine, or null
     */
    public FiberEngine getFiberEngine() {
        return fiberEngine;
    }

    /**
     * setFiberEngine(fiberEngine) chooses the fiber engine (null: the default).
     *
     * @param fiberEngine the engine, or null
     */
    public void setFiberEngine(FiberEngine fiberEngine) {
        this.fiberEngine = fiberEngine;
    }

    /**
     * getSpin() is how long an idle worker spins before it sleeps.
     *
     * @return the spin duration
     */
    public Duration getSpin() {
        return spin;
    }

    /**
     * setSpin(spin) sets how long an idle worker spins before it sleeps (0 to 1 s).
     *
     * @param spin the spin duration
     */
    public void setSpin(Duration spin) {
        this.spin = spin;
    }

    /**
     * getThreadNamePrefix() is the start of every worker thread's name.
     *
     * @return the prefix
     */
    public String getThreadNamePrefix() {
        return threadNamePrefix;
    }

    /**
     * setThreadNamePrefix(threadNamePrefix) sets the start of every worker thread's name.
     *
     * @param threadNamePrefix the prefix
     */
    public void setThreadNamePrefix(String threadNamePrefix) {
        this.threadNamePrefix = threadNamePrefix;
    }

    /**
     * getReactor() holds the {@code marl4j.reactor.*} settings.
     *
     * @return the Reactor settings
     */
    public Reactor getReactor() {
        return reactor;
    }

    /**
     * toConfig() is the scheduler configuration these properties describe.
     *
     * @return a new config
     * @throws IllegalArgumentException naming the property, if a value is out of range
     */
    public Scheduler.Config toConfig() {
        Scheduler.Config config = Scheduler.Config.allCores();
        if (workerThreads != null) {
            if (workerThreads < 1 || workerThreads > Scheduler.MAX_WORKER_THREADS) {
                // Zero workers is legal for a Scheduler (tasks run on bound threads), but Spring's
                // threads never bind, so every request and @Async task would wait for ever.
                throw new IllegalArgumentException("marl4j.worker-threads must be between 1 and "
                        + Scheduler.MAX_WORKER_THREADS + ", was " + workerThreads
                        + ": leave it unset for one worker per available processor");
            }
            config.setWorkerThreadCount(workerThreads);
        }
        try {
            config.setSpinDuration(spin);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("marl4j.spin must be between 0 and 1s (0 turns spinning off), was " + spin, e);
        }
        if (threadNamePrefix == null || threadNamePrefix.isEmpty()) {
            throw new IllegalArgumentException("marl4j.thread-name-prefix must not be empty: the worker threads would be named by their ids alone");
        }
        config.setThreadNamePrefix(threadNamePrefix);
        config.setFiberEngine(fiberEngine);
        return config;
    }

    /** Reactor holds the {@code marl4j.reactor.*} settings. */
    public static class Reactor {

        /**
         * Whether all of Reactor's own schedulers (parallel(), single(), boundedElastic() and the
         * timers of interval, delayElements and timeout) run on marl4j, through
         * Schedulers.setFactory; reset when the application context closes.
         */
        private boolean schedulersFactory;

        /** Reactor() holds the default: Reactor's own schedulers are left alone. */
        public Reactor() {}

        /**
         * isSchedulersFactory() is whether Reactor's own schedulers are moved onto marl4j.
         *
         * @return whether the Reactor schedulers factory is installed
         */
        public boolean isSchedulersFactory() {
            return schedulersFactory;
        }

        /**
         * setSchedulersFactory(schedulersFactory) moves Reactor's own schedulers onto marl4j, or not.
         *
         * @param schedulersFactory whether to install the Reactor schedulers factory
         */
        public void setSchedulersFactory(boolean schedulersFactory) {
            this.schedulersFactory = schedulersFactory;
        }
    }
}
