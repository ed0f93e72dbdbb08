package org.marl4j.examples;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintStream;
import org.marl4j.Scheduler;
import org.marl4j.Task;
import org.marl4j.WaitGroup;
import org.marl4j.micrometer.SchedulerMetrics;

/**
 * MicrometerExample binds a scheduler's meters to a Micrometer registry, runs some tasks, and
 * prints what the meters read.
 */
public final class MicrometerExample {
    private MicrometerExample() {}

    public static void main(String[] args) {
        try (Scheduler scheduler = new Scheduler(Scheduler.Config.allCores())) {
            run(scheduler, new SimpleMeterRegistry(), System.out);
        }
    }

    /**
     * run(scheduler, registry, out) binds scheduler's meters to registry under the name "marl",
     * runs 1,000 tasks on it, and prints the completed count that the registry reads.
     *
     * @param scheduler the scheduler to measure (left open)
     * @param registry the registry to bind to
     * @param out where to print
     */
    public static void run(Scheduler scheduler, MeterRegistry registry, PrintStream out) {
        // readme:begin micrometer-bind
        new SchedulerMetrics(scheduler, "marl", Tags.empty()).bindTo(registry);
        // readme:end micrometer-bind
        WaitGroup done = new WaitGroup(1_000);
        for (int i = 0; i < 1_000; i++) {
            scheduler.enqueue(new Task(done::done));
        }
        done.await();
        double started = registry.get("marl4j.tasks.started").tag("name", "marl").functionCounter().count();
        out.println("marl4j.tasks.started{name=marl} = " + (long) started);
    }
}
