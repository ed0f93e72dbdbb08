package org.marl4j;

import java.util.Objects;

/**
 * Marl holds marl's free functions, which act on the scheduler bound to the calling thread.
 *
 * <pre>{@code
 * scheduler.bind();
 * Marl.schedule(() -> System.out.println("on a fiber"));
 * }</pre>
 */
public final class Marl {
    private Marl() {}

    /**
     * schedule(body) enqueues {@code body} as a task on the scheduler bound to the calling thread
     * (marl's {@code marl::schedule}).
     *
     * @throws IllegalStateException if no scheduler is bound to the calling thread
     */
    public static void schedule(Runnable body) {
        Objects.requireNonNull(body, "task body must not be null");
        bound().enqueue(new Task(body));
    }

    /** schedule(task) enqueues {@code task} on the scheduler bound to the calling thread. */
    public static void schedule(Task task) {
        Objects.requireNonNull(task, "task must not be null");
        bound().enqueue(task);
    }

    private static Scheduler bound() {
        Scheduler scheduler = Scheduler.get();
        if (scheduler == null) {
            throw new IllegalStateException("Marl.schedule() needs a scheduler bound to thread "
                    + Thread.currentThread().getName() + ": call scheduler.bind() first, or use scheduler.enqueue()");
        }
        return scheduler;
    }
}
