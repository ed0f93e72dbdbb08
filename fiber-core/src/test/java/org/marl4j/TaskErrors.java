package org.marl4j;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Collects what tasks throw, so that an assertion failing inside a task fails the test instead of
 * being printed by a worker's uncaught-exception handler and forgotten.
 */
public final class TaskErrors implements Thread.UncaughtExceptionHandler {
    /** How long a wait that must succeed may take before the test calls the feature broken. */
    public static final Duration LONG = TestSchedulers.PATIENCE;

    private final Queue<Throwable> errors = new ConcurrentLinkedQueue<>();

    @Override
    public void uncaughtException(Thread thread, Throwable error) {
        errors.add(error);
    }

    /** config(workers) is {@link TestSchedulers#config(int)} reporting task exceptions here. */
    public Scheduler.Config config(int workers) {
        return TestSchedulers.config(workers).setUncaughtExceptionHandler(this);
    }

    public List<Throwable> errors() {
        return List.copyOf(errors);
    }

    /** assertNone() fails with the first collected throwable as cause, the others suppressed. */
    public void assertNone() {
        List<Throwable> all = errors();
        if (!all.isEmpty()) {
            AssertionError failure = new AssertionError(all.size() + " task(s) threw; first: " + all.get(0), all.get(0));
            all.stream().skip(1).forEach(failure::addSuppressed);
            throw failure;
        }
    }

    /** join(thread) waits up to {@link #LONG} for a plain thread and fails if it is still alive. */
    public static void join(Thread thread) {
        try {
            if (!thread.join(LONG)) {
                throw new AssertionError(thread.getName() + " did not finish within " + LONG);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while joining " + thread.getName(), e);
        }
    }
}
