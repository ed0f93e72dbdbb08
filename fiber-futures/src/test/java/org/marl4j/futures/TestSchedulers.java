package org.marl4j.futures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.marl4j.Fiber;
import org.marl4j.Scheduler;
import org.marl4j.Task;

/**
 * Test fixtures: a scheduler per test (bound to the test thread when it has no worker threads, so
 * its tasks run there), and a way to run code on one of its fibers and get the result back.
 */
final class TestSchedulers {
    /** How long a test waits for something that should happen promptly before it fails. */
    static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private TestSchedulers() {}

    /** A config with the given worker count and a thread-name prefix unique to this scheduler. */
    static Scheduler.Config config(int workers) {
        return new Scheduler.Config()
                .setWorkerThreadCount(workers)
                .setThreadNamePrefix("futures-test-" + SEQUENCE.incrementAndGet() + "-worker-");
    }

    /**
     * withScheduler(workers, body) creates a scheduler, binds it to the test thread if it has no
     * workers, runs body, unbinds (running what is left), closes it, and checks no worker outlived it.
     */
    static void withScheduler(int workers, Consumer<Scheduler> body) {
        Scheduler.Config config = config(workers);
        Scheduler scheduler = new Scheduler(config);
        try {
            if (workers == 0) {
                scheduler.bind();
            }
            try {
                body.accept(scheduler);
            } finally {
                if (workers == 0) {
                    scheduler.unbind();
                }
            }
        } finally {
            scheduler.close();
        }
        assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    /**
     * onFiber(scheduler, body) runs body as a task of scheduler, checks it ran on a fiber, and
     * returns the future of its result.
     */
    static <T> CompletableFuture<T> onFiber(Scheduler scheduler, Callable<T> body) {
        CompletableFuture<T> result = new CompletableFuture<>();
        scheduler.enqueue(new Task(() -> {
            try {
                assertNotNull(Fiber.current(), "a task runs on a fiber");
                result.complete(body.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        }));
        return result;
    }

    /**
     * get(future) waits for a test's result: on a bound test thread it must wait on a marl4j
     * primitive so the scheduler's tasks run; elsewhere a plain timed get.
     */
    static <T> T get(CompletableFuture<T> future) {
        try {
            if (Fiber.current() != null) {
                return Futures.await(future, PATIENCE);
            }
            return future.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError("the task failed", e.getCause());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** runOnFiber(scheduler, body) is get(onFiber(scheduler, body)). */
    static <T> T runOnFiber(Scheduler scheduler, Callable<T> body) {
        return get(onFiber(scheduler, body));
    }

    /** assertNoThreadsLeft(prefix) fails if a live thread's name starts with prefix. */
    static void assertNoThreadsLeft(String prefix) {
        List<String> alive = Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(name -> name.startsWith(prefix))
                .toList();
        assertEquals(List.of(), alive, "worker threads outlived close()");
    }

    /** startThread(body) runs body on a new plain (unbound) thread. */
    static Thread startThread(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
