package org.marl4j.micrometer;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TestSchedulers.PATIENCE;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.marl4j.Event;
import org.marl4j.TestSchedulers;
import org.marl4j.futures.MarlExecutorService;

class MarlExecutorServiceMetricsTest {
    private static final String NAME = "test-executor";

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private double gauge(String name) {
        return registry.get(name).tag("name", NAME).gauge().value();
    }

    private double counter(String name) {
        return registry.get(name).tag("name", NAME).functionCounter().count();
    }

    @Test
    void metersFollowTheExecutorsTasks() throws Exception {
        try (MarlExecutorService executor = new MarlExecutorService(TestSchedulers.config(2))) {
            new MarlExecutorServiceMetrics(executor, NAME, Tags.of("app", "test")).bindTo(registry);
            for (Meter meter : registry.getMeters()) {
                assertEquals(NAME, meter.getId().getTag("name"), meter.getId().toString());
                assertEquals("test", meter.getId().getTag("app"), meter.getId().toString());
            }
            assertEquals(2.0, gauge("executor.pool.core"));
            int tasks = 100;
            CountDownLatch ran = new CountDownLatch(tasks);
            for (int i = 0; i < tasks; i++) {
                executor.execute(ran::countDown);
            }
            assertTrue(ran.await(PATIENCE.toSeconds(), TimeUnit.SECONDS));
            await().atMost(PATIENCE).until(() -> counter("executor.completed") >= tasks);

            Event release = new Event(Event.Mode.MANUAL);
            Future<?> waiting = executor.submit(() -> release.await());
            await().atMost(PATIENCE).until(() -> gauge("marl4j.fibers.blocked") == 1);
            release.signal();
            waiting.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            await().atMost(PATIENCE).until(() -> gauge("marl4j.fibers.blocked") == 0);
        }
    }

    @Test
    void refusesANullExecutorOrName() {
        NullPointerException noExecutor = assertThrows(NullPointerException.class,
                () -> new MarlExecutorServiceMetrics(null, NAME, Tags.empty()));
        assertTrue(noExecutor.getMessage().contains("executor must not be null"), noExecutor.getMessage());
        try (MarlExecutorService executor = new MarlExecutorService(TestSchedulers.config(1))) {
            NullPointerException noName = assertThrows(NullPointerException.class,
                    () -> new MarlExecutorServiceMetrics(executor, null, Tags.empty()));
            assertTrue(noName.getMessage().contains("name must not be null"), noName.getMessage());
            assertThrows(IllegalArgumentException.class, () -> new MarlExecutorServiceMetrics(executor, "", Tags.empty()));
        }
    }
}
