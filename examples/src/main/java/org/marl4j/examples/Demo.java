package org.marl4j.examples;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.marl4j.Fiber;
import org.marl4j.Marl;
import org.marl4j.Scheduler;
import org.marl4j.WaitGroup;

/**
 * Demo is the README's main demo: marl's two hello examples, then what fibers buy you: 100,000
 * tasks that each sleep 100 ms finish in about 100 ms on the machine's few worker threads, because
 * a sleeping task suspends its fiber instead of its thread.
 */
public final class Demo {
    private Demo() {}

    public static void main(String[] args) {
        System.out.println("== hello_task ==");
        HelloTask.main(args);
        System.out.println();
        System.out.println("== tasks_in_tasks ==");
        TasksInTasks.main(args);
        System.out.println();
        System.out.println("== 100,000 sleeping tasks ==");
        sleepers(100_000, Duration.ofMillis(100));
    }

    private static void sleepers(int count, Duration sleep) {
        Scheduler.Config config = Scheduler.Config.allCores();
        try (Scheduler scheduler = new Scheduler(config)) {
            scheduler.bind();
            try {
                WaitGroup done = new WaitGroup(count);
                AtomicInteger woke = new AtomicInteger();
                long start = System.nanoTime();
                for (int i = 0; i < count; i++) {
                    Marl.schedule(() -> {
                        Fiber.sleep(sleep);
                        woke.incrementAndGet();
                        done.done();
                    });
                }
                done.await();
                long millis = (System.nanoTime() - start) / 1_000_000;
                System.out.printf("%,d tasks each slept %d ms on %d worker threads: all done in %,d ms%n",
                        woke.get(), sleep.toMillis(), config.getWorkerThreadCount(), millis);
            } finally {
                scheduler.unbind();
            }
        }
    }
}
