package org.marl4j.spring.boot;

import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;

import org.marl4j.Scheduler;
import org.marl4j.futures.MarlExecutorService;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.TaskRejectedException;

/**
 * MarlTaskExecutor is Spring's {@link AsyncTaskExecutor} on marl4j: every task runs on a fiber of
 * a {@link Scheduler}, through a {@link MarlExecutorService} that borrows it. The auto-configuration
 * makes one the {@code applicationTaskExecutor}, which {@code @Async} methods and Spring MVC's
 * asynchronous request processing use, as Spring Boot makes a virtual-thread executor with
 * {@code spring.threads.virtual.enabled}.
 *
 * <p>A task that waits on a marl4j primitive ({@code Futures.await}, a {@code WaitGroup}, a
 * {@code Future.get()} of this executor) suspends only its fiber. Whether a blocking JDK call (JDBC,
 * {@code Thread.sleep}, socket I/O) frees the worker thread too depends on the scheduler's
 * {@link org.marl4j.FiberEngine}: it does on virtual threads, it does not on continuations.
 *
 * <p>{@link #shutdown()} (called when the application context closes) refuses new tasks and leaves
 * the scheduler open: the tasks already accepted finish as the scheduler closes.
 */
public final class MarlTaskExecutor implements AsyncTaskExecutor {
    private final MarlExecutorService executor;
    private final TaskDecorator decorator;

    /**
     * MarlTaskExecutor(scheduler, decorator) runs tasks on the scheduler's fibers, each first passed
     * through the decorator (MDC or security context propagation, say), if there is one.
     *
     * @param scheduler the scheduler to borrow; it stays open when this executor shuts down
     * @param decorator wraps every task before it is queued, or null for none
     */
    public MarlTaskExecutor(Scheduler scheduler, TaskDecorator decorator) {
        this.executor = new MarlExecutorService(Objects.requireNonNull(scheduler, "scheduler must not be null"));
        this.decorator = decorator;
    }

    /**
     * executorService() is the {@link MarlExecutorService} this executor hands its tasks to.
     *
     * @return the executor service
     */
    public MarlExecutorService executorService() {
        return executor;
    }

    /**
     * execute(task) runs the task on a fiber.
     *
     * @param task the task
     * @throws TaskRejectedException if the executor or its scheduler is shut down
     */
    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task must not be null");
        try {
            executor.execute(decorate(task));
        } catch (RejectedExecutionException e) {
            throw rejected(task, e);
        }
    }

    /**
     * submit(task) runs the task on a fiber; the future's {@code get()} suspends only the fiber
     * that calls it.
     *
     * @param task the task
     * @return the task's future
     * @throws TaskRejectedException if the executor or its scheduler is shut down
     */
    @Override
    public Future<?> submit(Runnable task) {
        Objects.requireNonNull(task, "task must not be null");
        try {
            return executor.submit(decorate(task));
        } catch (RejectedExecutionException e) {
            throw rejected(task, e);
        }
    }

    /**
     * submit(task) runs the task on a fiber; the future's {@code get()} suspends only the fiber
     * that calls it.
     *
     * @param task the task
     * @param <T> the task's result type
     * @return the task's future
     * @throws TaskRejectedException if the executor or its scheduler is shut down
     */
    @Override
    public <T> Future<T> submit(Callable<T> task) {
        Objects.requireNonNull(task, "task must not be null");
        if (decorator == null) {
            try {
                return executor.submit(task);
            } catch (RejectedExecutionException e) {
                throw rejected(task, e);
            }
        }
        // A TaskDecorator wraps Runnables only: carry the Callable's result through one.
        Object[] result = new Object[1];
        Runnable body = decorator.decorate(() -> {
            try {
                result[0] = task.call();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new CallableFailure(e);
            }
        });
        try {
            return executor.submit(() -> {
                try {
                    body.run();
                } catch (CallableFailure e) {
                    throw (Exception) e.getCause();
                }
                @SuppressWarnings("unchecked")
                T value = (T) result[0];
                return value;
            });
        } catch (RejectedExecutionException e) {
            throw rejected(task, e);
        }
    }

    /**
     * shutdown() refuses new tasks; those already accepted run to the end on the scheduler, which
     * stays open (the application context closes it after this executor).
     */
    public void shutdown() {
        executor.shutdown();
    }

    @Override
    public String toString() {
        return "MarlTaskExecutor[" + executor + "]";
    }

    private Runnable decorate(Runnable task) {
        return decorator == null ? task : decorator.decorate(task);
    }

    private TaskRejectedException rejected(Object task, RejectedExecutionException cause) {
        return new TaskRejectedException("marl4j's application task executor did not accept " + task
                + ": it is shut down, or its scheduler " + executor.scheduler() + " is closing", cause);
    }

    /** A checked exception of a decorated Callable, carried through the decorator's Runnable. */
    private static final class CallableFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CallableFailure(Exception cause) {
            super(cause);
        }
    }
}
