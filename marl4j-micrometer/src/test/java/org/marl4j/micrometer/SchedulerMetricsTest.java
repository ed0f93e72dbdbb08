package org.marl4j.micrometer;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TestSchedulers.PATIENCE;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.marl4j.Event;
import org.marl4j.ForEachWorkerCount;
import org.marl4j.Marl;
import org.marl4j.Scheduler;
import org.marl4j.Task;
import org.marl4j.TestSchedulers;
import org.marl4j.WaitGroup;
import org.marl4j.WorkerHold;

class SchedulerMetricsTest {
    private static final String NAME = "test-scheduler";

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private double gauge(String name) {
        return registry.get(name).tag("name", NAME).gauge().value();
    }

    private double counter(String name) {
        return registry.get(name).tag("name", NAME).functionCounter().count();
    }

    private void bind(Scheduler scheduler) {
        new SchedulerMetrics(scheduler, NAME, Tags.of("app", "test")).bindTo(registry);
    }

    @Test
    void registersMicrometersExecutorMetersAndMarl4jsOwnTaggedWithTheName() {
        TestSchedulers.withScheduler(2, scheduler -> {
            bind(scheduler);
            Set<String> names = registry.getMeters().stream()
                    .map(m -> m.getId().getName())
                    .collect(Collectors.toCollection(TreeSet::new));
            assertEquals(new TreeSet<>(List.of("executor.completed", "executor.active", "executor.queued",
                    "executor.pool.size", "executor.pool.core", "executor.steals", "marl4j.tasks.started",
                    "marl4j.tasks.blocking", "marl4j.fibers.created", "marl4j.fibers.idle", "marl4j.fibers.blocked",
                    "marl4j.idle.sleeps", "marl4j.spin.time", "marl4j.threads.bound")), names);
            for (Meter meter : registry.getMeters()) {
                assertEquals(NAME, meter.getId().getTag("name"), meter.getId().toString());
                assertEquals("test", meter.getId().getTag("app"), meter.getId().toString());
            }
            Meter.Id completed = registry.get("executor.completed").functionCounter().getId();
            assertEquals("tasks", completed.getBaseUnit());
            assertEquals("threads", registry.get("executor.active").gauge().getId().getBaseUnit());
            assertEquals(2.0, gauge("executor.pool.core"));
            assertEquals(2.0, gauge("executor.pool.size"));
            assertEquals(0.0, gauge("marl4j.threads.bound"));
        });
    }

    @ForEachWorkerCount
    void completedAndStartedGrowAsTasksRun(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            bind(scheduler);
            assertEquals(0.0, counter("executor.completed"));
            int tasks = 200;
            WaitGroup done = new WaitGroup(tasks);
            for (int i = 0; i < tasks; i++) {
                Marl.schedule(done::done);
            }
            done.await();
            // A task counts as completed once its body has returned, just after done().
            await().atMost(PATIENCE).until(() -> counter("executor.completed") == tasks);
            assertEquals(tasks, counter("marl4j.tasks.started"));
            assertEquals(workers + 1, gauge("executor.pool.size"), "worker threads and this bound thread");
            assertEquals(1.0, gauge("marl4j.threads.bound"));
        });
    }

    @ForEachWorkerCount
    void blockedFibersShowWhileTasksWaitForAnEvent(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            bind(scheduler);
            int tasks = 10;
            Event release = new Event(Event.Mode.MANUAL);
            WaitGroup started = new WaitGroup(tasks);
            WaitGroup done = new WaitGroup(tasks);
            for (int i = 0; i < tasks; i++) {
                Marl.schedule(() -> {
                    started.done();
                    release.await();
                    done.done();
                });
            }
            started.await();
            await().atMost(PATIENCE).until(() -> gauge("marl4j.fibers.blocked") == tasks);
            // A task suspended in a wait holds no thread: none is active.
            assertEquals(0.0, gauge("executor.active"));
            assertEquals(0.0, counter("executor.completed"));
            assertTrue(counter("marl4j.fibers.created") >= tasks - 1, "each blocked task needs a fiber of its own");
            release.signal();
            done.await();
            await().atMost(PATIENCE).until(() -> gauge("marl4j.fibers.blocked") == 0 && counter("executor.completed") == tasks);
            // Which fibers end idle depends on where the tasks ran: a worker's last fiber stays current.
            assertTrue(gauge("marl4j.fibers.idle") <= counter("marl4j.fibers.created"), "idle fibers are created ones");
        });
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void activeAndQueuedFollowWorkerThreadsHeldByTasks(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            bind(scheduler);
            WorkerHold hold = new WorkerHold();
            try {
                for (int i = 0; i < workers; i++) {
                    scheduler.enqueue(new Task(hold::hold));
                }
                await().atMost(PATIENCE).until(() -> gauge("executor.active") == workers);
                for (int i = 0; i < 7; i++) {
                    scheduler.enqueue(new Task(() -> {}));
                }
                await().atMost(PATIENCE).until(() -> gauge("executor.queued") == 7);
                assertEquals(workers, gauge("executor.active"));
            } finally {
                hold.release();
            }
            await().atMost(PATIENCE).until(() -> gauge("executor.queued") == 0 && gauge("executor.active") == 0
                    && counter("executor.completed") == workers + 7);
        });
    }

    @Test
    void stealsCountTasksAnIdleWorkerTookFromAHeldOne() {
        TestSchedulers.withBoundScheduler(2, scheduler -> {
            bind(scheduler);
            WorkerHold hold = new WorkerHold();
            WaitGroup done = new WaitGroup(5);
            try {
                scheduler.enqueue(new Task(() -> {
                    for (int i = 0; i < 5; i++) {
                        Marl.schedule(done::done); // a worker's own tasks stay on its queue
                    }
                    hold.hold();
                }));
                done.await(); // only the other worker can run them: it steals them
                assertTrue(counter("executor.steals") >= 1, "steals: " + counter("executor.steals"));
            } finally {
                hold.release();
            }
        });
    }

    @Test
    void countsTasksThatHoldAWorkerPastTheBlockingThreshold() {
        Scheduler.Config config = TestSchedulers.config(1).setBlockingTaskThreshold(Duration.ofMillis(20));
        TestSchedulers.withBoundScheduler(config, scheduler -> {
            bind(scheduler);
            WorkerHold hold = new WorkerHold();
            try {
                scheduler.enqueue(new Task(hold::hold));
                await().atMost(PATIENCE).until(() -> counter("marl4j.tasks.blocking") >= 1);
            } finally {
                hold.release();
            }
        });
    }

    @Test
    void idleSleepsAndSpinTimeGrowAsWorkersRunOutOfWork() {
        Scheduler.Config config = TestSchedulers.config(1).setSpinDuration(Duration.ofMillis(2));
        TestSchedulers.withBoundScheduler(config, scheduler -> {
            bind(scheduler);
            await().atMost(PATIENCE).until(() -> counter("marl4j.idle.sleeps") >= 1);
            double asleep = counter("marl4j.idle.sleeps");
            WaitGroup done = new WaitGroup(1);
            scheduler.enqueue(new Task(done::done));
            done.await();
            // Out of work again, the worker spins for the spin duration, then sleeps once more.
            await().atMost(PATIENCE).until(() -> counter("marl4j.idle.sleeps") > asleep);
            assertTrue(counter("marl4j.spin.time") > 0, "spin time: " + counter("marl4j.spin.time"));
        });
    }

    @Test
    void aClosedSchedulerKeepsItsFinalCounts() {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(2));
        bind(scheduler);
        WaitGroup done = new WaitGroup(50);
        for (int i = 0; i < 50; i++) {
            scheduler.enqueue(new Task(done::done));
        }
        scheduler.close(); // waits for the tasks
        assertEquals(50.0, counter("executor.completed"));
        assertEquals(0.0, gauge("executor.active"));
    }

    @Test
    void theMetersDoNotKeepAnUnusedSchedulerFromBeingCollected() {
        bindClosedScheduler();
        Gauge poolCore = registry.get("executor.pool.core").tag("name", NAME).gauge();
        await().atMost(PATIENCE).until(() -> {
            System.gc(); // a weak reference clears only in a collection
            return Double.isNaN(poolCore.value());
        });
    }

    private void bindClosedScheduler() {
        try (Scheduler scheduler = new Scheduler(TestSchedulers.config(1))) {
            new SchedulerMetrics(scheduler, NAME, Tags.empty()).bindTo(registry);
            assertEquals(1.0, gauge("executor.pool.core"));
        }
    }

    @Test
    void refusesANullSchedulerOrNameOrABlankName() {
        TestSchedulers.withScheduler(1, scheduler -> {
            NullPointerException noScheduler = assertThrows(NullPointerException.class,
                    () -> new SchedulerMetrics(null, NAME, Tags.empty()));
            assertTrue(noScheduler.getMessage().contains("scheduler must not be null"), noScheduler.getMessage());
            NullPointerException noName = assertThrows(NullPointerException.class,
                    () -> new SchedulerMetrics(scheduler, null, Tags.empty()));
            assertTrue(noName.getMessage().contains("name must not be null"), noName.getMessage());
            IllegalArgumentException blank = assertThrows(IllegalArgumentException.class,
                    () -> new SchedulerMetrics(scheduler, " ", Tags.empty()));
            assertTrue(blank.getMessage().contains("name must not be blank"), blank.getMessage());
            NullPointerException noRegistry = assertThrows(NullPointerException.class,
                    () -> new SchedulerMetrics(scheduler, NAME, Tags.empty()).bindTo(null));
            assertTrue(noRegistry.getMessage().contains("registry must not be null"), noRegistry.getMessage());
        });
    }

    @Test
    void nullTagsMeanNoTagsButTheName() {
        TestSchedulers.withScheduler(1, scheduler -> {
            new SchedulerMetrics(scheduler, NAME, (Iterable<Tag>) null).bindTo(registry);
            for (Meter meter : registry.getMeters()) {
                assertEquals(List.of(Tag.of("name", NAME)), meter.getId().getTags(), meter.getId().toString());
            }
        });
    }
}
