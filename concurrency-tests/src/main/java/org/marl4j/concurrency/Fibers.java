package org.marl4j.concurrency;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.marl4j.Scheduler;
import org.marl4j.Task;

/**
 * Where the jcstress tests' fibers run: the calling actor thread's own main fiber (bound to a
 * scheduler with no worker threads, so a wait blocks that thread in marl4j's trampoline), or a
 * task on a scheduler with one worker thread (a wait suspends a fiber while the worker sleeps).
 * Both schedulers live as long as the test JVM: creating one per jcstress state would measure
 * thread start-up, not the protocols.
 */
final class Fibers {
    /**
     * How long a waiter waits before the test calls its wake-up lost. Far longer than any honest
     * hand-off, even on a loaded machine; only a forbidden outcome ever waits this long.
     */
    static final Duration LOST = Duration.ofSeconds(5);

    /**
     * promptly(wait) runs a timed wait (of {@link #LOST}) and returns whether it succeeded before
     * its deadline. Why the clock: a timed wait whose wake-up was lost still returns true once it
     * times out, because the state it waited for is there by then (a notified waiter reports
     * notified, a predicate re-checked after the timeout is true). So the lost wake-up is visible
     * only as a wait that ran to its deadline, which an honest hand-off (microseconds) never does.
     */
    static boolean promptly(BooleanSupplier wait) {
        long start = System.nanoTime();
        boolean ok = wait.getAsBoolean();
        return ok && System.nanoTime() - start < LOST.toNanos();
    }

    // Never closed: daemon workers, so each forked test VM exits by itself (jcstress otherwise
    // reports the live worker as a stale thread and forces the exit).
    private static final Scheduler BOUND = new Scheduler(new Scheduler.Config()
            .setWorkerThreadCount(0).setThreadNamePrefix("jcstress-bound-").setDaemon(true));
    private static final Scheduler ONE_WORKER = new Scheduler(new Scheduler.Config()
            .setWorkerThreadCount(1).setThreadNamePrefix("jcstress-worker-").setDaemon(true));

    private Fibers() {}

    /** bindThisThread() makes the calling actor thread a fiber of its own (once per thread). */
    static void bindThisThread() {
        if (Scheduler.get() == null) {
            BOUND.bind();
        }
    }

    /** oneWorker() is the one-worker scheduler that {@link #onWorker} runs its tasks on. */
    static Scheduler oneWorker() {
        return ONE_WORKER;
    }

    /** onWorker(body) runs body as a task on the one-worker scheduler and returns its result. */
    static boolean onWorker(BooleanSupplier body) {
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        ONE_WORKER.enqueue(new Task(() -> result.complete(body.getAsBoolean())));
        try {
            // Twice LOST: the body itself gives up after LOST, so this only guards the harness.
            return result.get(3 * LOST.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the fiber task did not finish", e);
        }
    }
}
