package org.marl4j.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.marl4j.Fiber;
import org.marl4j.Scheduler;
import org.marl4j.TestSchedulers;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.TaskRejectedException;

class MarlTaskExecutorTest {
    private final Scheduler scheduler = new Scheduler(TestSchedulers.config(2));

    @AfterEach
    void closeScheduler() {
        scheduler.close();
    }

    @Test
    void execute_runsTheTaskOnAFiberOfTheScheduler() throws Exception {
        MarlTaskExecutor executor = new MarlTaskExecutor(scheduler, null);
        CompletableFuture<Boolean> onFiber = new CompletableFuture<>();

        executor.execute(() -> onFiber.complete(Fiber.current() != null && Scheduler.get() == scheduler));

        assertTrue(onFiber.get(TestSchedulers.PATIENCE.toSeconds(), TimeUnit.SECONDS));
    }

    @Test
    void submitCallable_returnsTheResultFromAFiber() throws Exception {
        MarlTaskExecutor executor = new MarlTaskExecutor(scheduler, null);

        assertEquals(Boolean.TRUE, executor.submit(() -> Fiber.current() != null).get(30, TimeUnit.SECONDS));
    }

    @Test
    void decorator_wrapsExecuteSubmitAndCallables() throws Exception {
        AtomicInteger decorated = new AtomicInteger();
        TaskDecorator counting = task -> () -> {
            decorated.incrementAndGet();
            task.run();
        };
        MarlTaskExecutor executor = new MarlTaskExecutor(scheduler, counting);
        CompletableFuture<Void> ran = new CompletableFuture<>();

        executor.execute(() -> ran.complete(null));
        ran.get(30, TimeUnit.SECONDS);
        executor.submit(() -> { }).get(30, TimeUnit.SECONDS);
        assertEquals("result", executor.submit(() -> "result").get(30, TimeUnit.SECONDS));

        assertEquals(3, decorated.get());
    }

    @Test
    void decoratedCallable_checkedException_reachesTheFutureAsItIs() {
        MarlTaskExecutor executor = new MarlTaskExecutor(scheduler, task -> task);

        ExecutionException e = assertThrows(ExecutionException.class,
                () -> executor.submit(() -> { throw new IOException("disk"); }).get(30, TimeUnit.SECONDS));
        assertInstanceOf(IOException.class, e.getCause());
    }

    @Test
    void shutdown_refusesNewTasksAndLeavesTheSchedulerOpen() {
        MarlTaskExecutor executor = new MarlTaskExecutor(scheduler, null);

        executor.shutdown();

        TaskRejectedException e = assertThrows(TaskRejectedException.class, () -> executor.execute(() -> { }));
        assertNotNull(e.getCause());
        assertThrows(TaskRejectedException.class, () -> executor.submit(() -> 1));
        assertFalse(scheduler.isClosed());
    }

    @Test
    void constructor_nullScheduler_isRefused() {
        assertThrows(NullPointerException.class, () -> new MarlTaskExecutor(null, null));
    }
}
