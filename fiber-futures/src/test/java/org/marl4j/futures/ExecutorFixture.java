package org.marl4j.futures;

import org.marl4j.TestSchedulers;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import org.marl4j.Scheduler;

/**
 * One MarlExecutorService under test: over a scheduler it owns, or over a borrowed one (bound to
 * the test thread when it has no worker threads). Records what the uncaught-exception handler hears.
 */
final class ExecutorFixture implements AutoCloseable {
    final int workers;
    final boolean owned;
    final MarlExecutorService executor;
    final Scheduler scheduler;
    final String threadPrefix;
    final ConcurrentLinkedQueue<Throwable> uncaught = new ConcurrentLinkedQueue<>();

    ExecutorFixture(int workers, boolean owned) {
        this.workers = workers;
        this.owned = owned;
        Scheduler.Config config = TestSchedulers.config(workers).setUncaughtExceptionHandler((t, e) -> uncaught.add(e));
        threadPrefix = config.getThreadNamePrefix();
        if (owned) {
            executor = new MarlExecutorService(config);
            scheduler = executor.scheduler();
        } else {
            scheduler = new Scheduler(config);
            if (workers == 0) {
                scheduler.bind();
            }
            executor = new MarlExecutorService(scheduler);
        }
    }

    /** The (workers, owned) combinations: every worker count borrowed, and owned where it has workers. */
    static Stream<Arguments> kinds() {
        return Stream.of(0, 1, 2, 4, 8, 64).flatMap(w -> w == 0
                ? Stream.of(Arguments.of(w, false))
                : Stream.of(Arguments.of(w, false), Arguments.of(w, true)));
    }

    /** kinds() with worker threads: for tests that submit from plain threads. */
    static Stream<Arguments> kindsWithWorkerThreads() {
        return kinds().filter(a -> (int) a.get()[0] > 0);
    }

    /**
     * kinds() with at most one worker thread: for tests that must hold every worker thread with one
     * blocking task to keep submitted tasks from starting.
     */
    static Stream<Arguments> kindsWithAtMostOneWorkerThread() {
        return kinds().filter(a -> (int) a.get()[0] <= 1);
    }

    /** Shuts down, waits for termination, releases the scheduler, and checks no worker thread outlived it. */
    @Override
    public void close() {
        executor.shutdownNow();
        try {
            assertTrue(executor.awaitTermination(30, TimeUnit.SECONDS), "executor did not terminate");
        } catch (InterruptedException e) {
            throw new AssertionError("interrupted while awaiting termination", e);
        }
        if (!owned) {
            if (workers == 0) {
                scheduler.unbind();
            }
            scheduler.close();
        }
        TestSchedulers.assertNoThreadsLeft(threadPrefix);
    }

    @Override
    public String toString() {
        return (owned ? "owned" : "borrowed") + " scheduler with " + workers + " workers";
    }

    static List<Integer> range(int n) {
        return java.util.stream.IntStream.range(0, n).boxed().toList();
    }
}
