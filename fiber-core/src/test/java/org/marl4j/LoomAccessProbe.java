package org.marl4j;

import java.time.Duration;

/**
 * Run in a child JVM by LoomAccessTest: constructs a scheduler with the engine named by its
 * argument ("default" for none) and runs a task that waits on an Event and sleeps, printing the
 * engine it ran on.
 */
final class LoomAccessProbe {
    private LoomAccessProbe() {}

    public static void main(String[] args) throws Exception {
        Scheduler.Config config = new Scheduler.Config().setWorkerThreadCount(1);
        if (args.length > 0 && !args[0].equals("default")) {
            config.setFiberEngine(FiberEngine.valueOf(args[0]));
        }
        try (Scheduler scheduler = new Scheduler(config)) {
            System.out.println("constructed " + scheduler);
            Event started = new Event(Event.Mode.MANUAL);
            Event done = new Event(Event.Mode.MANUAL);
            scheduler.enqueue(new Task(() -> {
                started.await();
                Fiber.sleep(Duration.ofMillis(1));
                done.signal();
            }));
            started.signal();
            if (!done.await(Duration.ofSeconds(30))) {
                throw new AssertionError("the task did not finish");
            }
            System.out.println("ran on " + scheduler.fiberEngine());
        }
    }
}
