package org.marl4j.examples;

import org.marl4j.Event;
import org.marl4j.Marl;
import org.marl4j.Scheduler;
import org.marl4j.WaitGroup;

/**
 * QuickStart is the README's quick start: ten tasks wait for one event, the main thread signals
 * it, and a WaitGroup tells it when all ten are done.
 */
public final class QuickStart {
    private QuickStart() {}

    /**
     * main runs the quick start.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        // readme:begin quick-start
        try (Scheduler scheduler = new Scheduler(Scheduler.Config.allCores())) {
            scheduler.bind();                        // this thread may now Marl.schedule(...)
            Event go = new Event(Event.Mode.MANUAL);
            WaitGroup done = new WaitGroup(10);
            for (int i = 0; i < 10; i++) {
                int task = i;
                Marl.schedule(() -> {
                    go.await();                      // suspends this task's fiber, not its thread
                    System.out.println("task " + task);
                    done.done();
                });
            }
            go.signal();                             // the ten fibers wake up
            done.await();                            // this thread waits until all ten have run
        }                                            // close() unbinds this thread, then stops the workers
        // readme:end quick-start
    }
}
