package org.marl4j.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.marl4j.FiberEngine;
import org.marl4j.Scheduler;

class MarlPropertiesTest {

    @Test
    void defaults_areTheSchedulerConfigsOwn() {
        MarlProperties properties = new MarlProperties();
        Scheduler.Config defaults = Scheduler.Config.allCores();
        Scheduler.Config config = properties.toConfig();

        assertTrue(properties.isEnabled());
        assertEquals(defaults.getWorkerThreadCount(), config.getWorkerThreadCount());
        assertEquals(defaults.getSpinDuration(), config.getSpinDuration());
        assertEquals(defaults.getThreadNamePrefix(), config.getThreadNamePrefix());
        assertNull(config.getFiberEngine(), "no engine named: the scheduler takes FiberEngine.defaultEngine()");
        assertEquals(false, properties.getReactor().isSchedulersFactory());
    }

    @Test
    void toConfig_carriesEverySetting() {
        MarlProperties properties = new MarlProperties();
        properties.setWorkerThreads(3);
        properties.setSpin(Duration.ZERO);
        properties.setThreadNamePrefix("app-");
        properties.setFiberEngine(FiberEngine.CONTINUATIONS);

        Scheduler.Config config = properties.toConfig();

        assertEquals(3, config.getWorkerThreadCount());
        assertEquals(Duration.ZERO, config.getSpinDuration());
        assertEquals("app-", config.getThreadNamePrefix());
        assertEquals(FiberEngine.CONTINUATIONS, config.getFiberEngine());
    }

    @Test
    void toConfig_zeroWorkers_isRefusedNamingTheProperty() {
        MarlProperties properties = new MarlProperties();
        properties.setWorkerThreads(0);

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, properties::toConfig);
        assertTrue(e.getMessage().contains("marl4j.worker-threads"), e.getMessage());
    }

    @Test
    void toConfig_tooManyWorkers_isRefusedNamingTheProperty() {
        MarlProperties properties = new MarlProperties();
        properties.setWorkerThreads(Scheduler.MAX_WORKER_THREADS + 1);

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, properties::toConfig);
        assertTrue(e.getMessage().contains("marl4j.worker-threads"), e.getMessage());
    }

    @Test
    void toConfig_spinOverOneSecond_isRefusedNamingTheProperty() {
        MarlProperties properties = new MarlProperties();
        properties.setSpin(Duration.ofSeconds(2));

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, properties::toConfig);
        assertTrue(e.getMessage().contains("marl4j.spin"), e.getMessage());
    }

    @Test
    void toConfig_emptyThreadNamePrefix_isRefusedNamingTheProperty() {
        MarlProperties properties = new MarlProperties();
        properties.setThreadNamePrefix("");

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, properties::toConfig);
        assertTrue(e.getMessage().contains("marl4j.thread-name-prefix"), e.getMessage());
    }
}
