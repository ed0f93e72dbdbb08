package org.marl4j.examples;

import org.marl4j.Marl;
import org.marl4j.Scheduler;
import org.marl4j.WaitGroup;

/**
 * TasksInTasks is marl's {@code examples/tasks_in_tasks.cpp}: a task that schedules tasks, and
 * waits for them, from inside a task. A task blocked in {@link WaitGroup#await()} only suspends its
 * fiber, so even a single worker thread runs the child tasks meanwhile.
 */
public final class TasksInTasks {
    private TasksInTasks() {}

    public static void main(String[] args) {
        try (Scheduler scheduler = new Scheduler(Scheduler.Config.allCores())) {
            scheduler.bind();
            try {
                WaitGroup done = new WaitGroup(1);
                Marl.schedule(() -> {
                    System.out.println("Hello from task A");
                    WaitGroup children = new WaitGroup(2);
                    Marl.schedule(() -> {
                        System.out.println("Hello from task B (scheduled by A)");
                        WaitGroup grandchild = new WaitGroup(1);
                        Marl.schedule(() -> {
                            System.out.println("Hello from task D (scheduled by B)");
                            grandchild.done();
                        });
                        grandchild.await();
                        children.done();
                    });
                    Marl.schedule(() -> {
                        System.out.println("Hello from task C (scheduled by A)");
                        children.done();
                    });
                    children.await(); // A's fiber suspends until B and C are done
                    System.out.println("Task A: B, C and D are done");
                    done.done();
                });
                done.await();
                System.out.println("All tasks done.");
            } finally {
                scheduler.unbind();
            }
        }
    }
}
