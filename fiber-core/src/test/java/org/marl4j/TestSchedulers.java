package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Test fixtures shared by every module (through fiber-core's test-jar): marl's
 * {@code WithBoundScheduler}, a check that no worker thread outlives close(), and a way to run code
 * on one of a scheduler's fibers and get the result back.
 */
public final class TestSchedulers {
    /** How long a test waits for something that should happen promptly before it fails. */
    public static final Duration PATIENCE = Duration.ofSeconds(30);

    /** How long closing after a failed test body waits before it cancels the fibers the body left waiting. */
    private static final Duration AFTER_FAILURE = Duration.ofMillis(100);

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private TestSchedulers() {}

    /**
     * workerThread() is the thread that carries the caller as its scheduler sees it: the worker's
     * thread (or the bound thread) whatever the fiber engine, where {@code Thread.currentThread()}
     * would be a fiber's own virtual thread; the current thread off a scheduler.
     */
    public static Thread workerThread() {
        Worker worker = Worker.current();
        return worker == null ? Thread.currentThread() : worker.thread();
    }

    /** A config with the given worker count and a thread-name prefix unique to this scheduler. */
    public static Scheduler.Config config(int workers) {
        return new Scheduler.Config()
                .setWorkerThreadCount(workers)
                .setThreadNamePrefix("marl-test-" + SEQUENCE.incrementAndGet() + "-worker-");
    }

    /**
     * withBoundScheduler(workers, body) creates a scheduler, binds it to this thread, runs body,
     * unbinds (unless body did, or closed the scheduler), closes, asserts that none of its worker
     * threads is still alive, and fails if any task threw (see {@link TaskErrors}). A body that
     * throws is reported after a close that soon cancels the fibers it left waiting.
     */
    public static void withBoundScheduler(int workers, Consumer<Scheduler> body) {
        withBoundScheduler(config(workers), body);
    }

    /**
     * withBoundScheduler(config, body) is {@link #withBoundScheduler(int, Consumer)} for a given
     * config. A config with an uncaught-exception handler of its own keeps it: the test then judges
     * what its tasks threw; any other fails if a task threw.
     */
    public static void withBoundScheduler(Scheduler.Config config, Consumer<Scheduler> body) {
        TaskErrors errors = new TaskErrors();
        Scheduler.Config used = config.copy();
        if (used.getUncaughtExceptionHandler() == null) {
            used.setUncaughtExceptionHandler(errors);
        }
        Scheduler scheduler = new Scheduler(used);
        runThenClose(scheduler, () -> {
            scheduler.bind();
            body.accept(scheduler);
        });
        assertNoThreadsLeft(config.getThreadNamePrefix());
        errors.assertNone();
    }

    /**
     * runThenClose(scheduler, body) runs body, then closes scheduler (which unbinds this thread
     * first, unless body did). A body that failed may have left fibers waiting for a signal it never
     * sent: an unbounded close would wait for them for ever and hide the failure behind the test's
     * timeout, so the close after a failure cancels them within {@link #AFTER_FAILURE}.
     */
    private static void runThenClose(Scheduler scheduler, Runnable body) {
        try {
            body.run();
        } catch (Throwable failure) {
            try {
                scheduler.close(AFTER_FAILURE);
            } catch (Throwable closing) {
                failure.addSuppressed(closing);
            }
            throw failure;
        }
        scheduler.close();
    }

    /**
     * withScheduler(workers, body) creates a scheduler, binds it to the test thread only if it has
     * no workers (so its tasks run there), runs body, unbinds (running what is left), closes it, and
     * checks no worker outlived it. A body that throws is reported as {@link #withBoundScheduler} reports it.
     */
    public static void withScheduler(int workers, Consumer<Scheduler> body) {
        Scheduler.Config config = config(workers);
        Scheduler scheduler = new Scheduler(config);
        runThenClose(scheduler, () -> {
            if (workers == 0) {
                scheduler.bind(); // close() unbinds it, running what is left
            }
            body.accept(scheduler);
        });
        assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    /**
     * onFiber(scheduler, body) runs body as a task of scheduler, checks it ran on a fiber, and
     * returns the future of its result.
     */
    public static <T> CompletableFuture<T> onFiber(Scheduler scheduler, Callable<T> body) {
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
     * get(future) waits up to {@link #PATIENCE} for a test's result: on a fiber (a bound test
     * thread) it waits on a marl4j {@link Event} so the scheduler's tasks run meanwhile; elsewhere
     * a plain timed get. A failed future fails the test with its cause.
     */
    public static <T> T get(CompletableFuture<T> future) {
        try {
            if (Fiber.current() != null) {
                Event done = new Event(Event.Mode.MANUAL);
                future.whenComplete((value, error) -> done.signal());
                if (!done.await(PATIENCE)) {
                    throw new AssertionError("no result within " + PATIENCE);
                }
            }
            return future.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("the task failed", e.getCause());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** runOnFiber(scheduler, body) is get(onFiber(scheduler, body)). */
    public static <T> T runOnFiber(Scheduler scheduler, Callable<T> body) {
        return get(onFiber(scheduler, body));
    }

    /** assertNoThreadsLeft(prefix) fails if a live thread's name starts with prefix (worker threads and the monitor). */
    public static void assertNoThreadsLeft(String prefix) {
        List<String> alive = Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(name -> name.startsWith(prefix))
                .toList();
        assertEquals(List.of(), alive, "worker threads outlived close()");
    }

    /** startThread(name, body) runs body on a new plain (unbound) daemon thread. */
    public static Thread startThread(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /**
     * joinQuietly(thread) waits up to {@link #PATIENCE} for a helper thread to end; an interrupt is
     * restored, not thrown (the test's own assertions decide the outcome).
     */
    public static void joinQuietly(Thread thread) {
        try {
            thread.join(PATIENCE.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** stress() is true when stress tests should run their long configuration (-DstressTest=true). */
    public static boolean stress() {
        return Boolean.getBoolean("stressTest");
    }
}
