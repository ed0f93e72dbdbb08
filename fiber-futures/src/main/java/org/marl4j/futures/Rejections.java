package org.marl4j.futures;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.marl4j.Scheduler;

/**
 * The rejections of one {@link MarlExecutorService}: builds the {@link RejectedExecutionException}
 * it throws, saying why and what to do, and logs the first rejection of each {@link Kind} once, at
 * WARNING (logger {@code org.marl4j.futures.MarlExecutorService}).
 *
 * <p>Why log at all: a caller that swallows the exception (an {@code HttpServer} logs it at FINER
 * and sends an empty reply) would otherwise make the executor fail silently. Why once per kind:
 * the warning says what later tasks can expect, which differs by kind, and one kind must not use
 * up the warning of another (a task from an unbound thread, then the real mistake of a shutdown).
 */
final class Rejections {
    private static final System.Logger LOGGER = System.getLogger(MarlExecutorService.class.getName());

    /** Why a task was rejected, and the warning's sentence about later tasks: only what holds for that kind. */
    enum Kind {
        /** The executor is shut down: permanent. */
        SHUT_DOWN("Every later task will be rejected too (logged only this once). Whatever submitted it (an "
                + "HttpServer whose executor this is, say) is still running after the executor was shut down or "
                + "closed: stop it first (server.stop(...)), or close the executor only after it."),
        /**
         * The scheduler (a borrowed one: an owned one closes only after termination) is closed or
         * closing, which shuts the executor down: permanent.
         */
        SCHEDULER_CLOSED("Every later task will be rejected too (logged only this once): the scheduler this "
                + "executor borrows was closed while the executor still runs, which shuts the executor down. Shut "
                + "the executor down, and stop whatever submits to it, before closing the scheduler."),
        /** From a thread not bound to a scheduler without worker threads: says nothing of bound threads. */
        UNBOUND_THREAD("Tasks from other threads not bound to the scheduler will be rejected too (logged only "
                + "this once); tasks from its bound threads and from its own tasks are still accepted."),
        /** Any other refusal by the scheduler: nothing is claimed about later tasks. */
        OTHER("(Logged only this once.)");

        final String outlook;

        Kind(String outlook) {
            this.outlook = outlook;
        }
    }

    /** One bit per Kind whose warning has been logged. */
    private final AtomicInteger logged = new AtomicInteger();

    /** shutDown(executor) is the rejection of a task submitted after shutdown, logged. */
    RejectedExecutionException shutDown(MarlExecutorService executor) {
        return log(Kind.SHUT_DOWN, new RejectedExecutionException(executor + " is shut down: it accepts no new tasks"));
    }

    /**
     * schedulerClosed(executor, scheduler) is the rejection, logged, of a task submitted to an
     * executor that shut down because its scheduler was closed under it.
     */
    RejectedExecutionException schedulerClosed(MarlExecutorService executor, Scheduler scheduler) {
        return log(Kind.SCHEDULER_CLOSED, new RejectedExecutionException(executor + " is shut down: it accepts no "
                + "new tasks, since its scheduler, " + scheduler + ", was closed under it"));
    }

    /**
     * refused(executor, scheduler, e) is the rejection, logged, of a task that scheduler refused
     * with e. Classified after the fact, so that accepting a task pays for no check.
     */
    RejectedExecutionException refused(MarlExecutorService executor, Scheduler scheduler, RuntimeException e) {
        if (e instanceof RejectedExecutionException rejection) {
            return log(Kind.SCHEDULER_CLOSED, rejection); // the only reason a Scheduler gives one
        }
        if (e instanceof IllegalStateException && Scheduler.get() != scheduler
                && scheduler.config().getWorkerThreadCount() == 0) {
            return log(Kind.UNBOUND_THREAD, new RejectedExecutionException(executor + " rejected a task from thread \""
                    + Thread.currentThread().getName() + "\": this thread is not bound to " + scheduler
                    + ", a scheduler with zero worker threads, whose tasks run only on the threads bound to it. "
                    + "Submit from a thread bound to it (call scheduler.bind() on this thread first) or from one "
                    + "of its tasks, or use a scheduler with worker threads (Scheduler.Config.setWorkerThreadCount(n))",
                    e));
        }
        return log(Kind.OTHER, new RejectedExecutionException(scheduler + " refused the task: " + e.getMessage(), e));
    }

    /** log(kind, e) logs e if it is the first rejection of its kind, and returns it to throw. */
    private RejectedExecutionException log(Kind kind, RejectedExecutionException e) {
        int bit = 1 << kind.ordinal();
        if ((logged.getAndUpdate(bits -> bits | bit) & bit) == 0) {
            LOGGER.log(System.Logger.Level.WARNING, () -> "Rejected a task: " + e.getMessage() + ". " + kind.outlook, e);
        }
        return e;
    }
}
