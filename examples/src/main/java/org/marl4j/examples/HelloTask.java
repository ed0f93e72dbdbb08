package org.marl4j.examples;

import org.marl4j.Event;
import org.marl4j.Marl;
import org.marl4j.Scheduler;
import org.marl4j.WaitGroup;

/**
 * HelloTask is marl's {@code examples/hello_task.cpp}: ten tasks wait on a manual Event, the main
 * thread signals it, and a WaitGroup tells the main thread when all ten have said hello.
 */
public final class HelloTask {
    private HelloTask() {}

    public static void main(String[] args) {
        // One worker thread per logical processor.
        try (Scheduler scheduler = new Scheduler(Scheduler.Config.allCores())) {
            scheduler.bind(); // this thread may now use Marl.schedule()
            try {
                int numTasks = 10;
                Event sayHello = new Event(Event.Mode.MANUAL);
                WaitGroup saidHello = new WaitGroup(numTasks);
                for (int i = 0; i < numTasks; i++) {
                    int task = i;
                    Marl.schedule(() -> {
                        sayHello.await(); // suspends this task's fiber, not its worker thread
                        System.out.printf("Hello from task %d!%n", task);
                        saidHello.done();
                    });
                }
                sayHello.signal(); // releases all ten at once
                saidHello.await();
                System.out.println("All tasks said hello.");
            } finally {
                scheduler.unbind();
            }
        }
    }
}
