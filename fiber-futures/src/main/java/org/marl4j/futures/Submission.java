package org.marl4j.futures;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.marl4j.FiberCancellation;
import org.marl4j.FiberEngine;

/**
 * One task accepted by a {@link MarlExecutorService}, as the body of the scheduler {@code Task}
 * that runs it. The Scheduler has no way to remove a queued task, so
 * {@link MarlExecutorService#shutdownNow()} "takes back" a submission instead: whoever wins the CAS
 * out of NEW decides whether the user's task runs (STARTED) or is handed back to the caller of
 * shutdownNow (TAKEN), after which the queued scheduler task finds it TAKEN and does nothing. A
 * started task runs in a {@link FiberCancellation}, which shutdownNow() cancels, as
 * {@code ThreadPoolExecutor.shutdownNow()} interrupts its running tasks. (A future from submit()
 * opens a second scope inside it, for its own cancel(true); sharing one would need the future to
 * learn of a cancel that lands between this CAS and its own, which costs more than the scope.)
 */
final class Submission implements Runnable {
    private static final int NEW = 0;
    private static final int STARTED = 1;
    private static final int TAKEN = 2;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Submission.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final MarlExecutorService executor;
    /** The user's task: the Runnable given to execute(), or the future submit() returned. */
    final Runnable task;
    /** Submission order, so shutdownNow can return tasks in the order they were accepted. */
    final long sequence;
    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;
    /** The scope the task runs in: written before the CAS to STARTED, so whoever sees STARTED reads it. */
    private FiberCancellation running;
    /** Set when the task's waits are to be cancelled whenever it starts (see cancelWaitsFromStart). */
    private volatile boolean cancelled;

    Submission(MarlExecutorService executor, Runnable task, long sequence) {
        this.executor = executor;
        this.task = task;
        this.sequence = sequence;
    }

    /**
     * run() runs the user's task unless it was taken back. An exception from the task propagates to
     * the scheduler, which reports it to its uncaught-exception handler (execute()'s contract);
     * the executor has already counted the task as finished by then.
     */
    @Override
    public void run() {
        if (state != NEW) {
            return;
        }
        boolean started = false;
        boolean interruptedHere = false;
        try (FiberCancellation scope = FiberCancellation.open()) {
            running = scope;
            if (!STATE.compareAndSet(this, NEW, STARTED)) {
                return;
            }
            started = true;
            if (cancelled) {
                scope.cancel();
                interruptedHere = interruptOwnVirtualThread();
            }
            task.run();
        } finally {
            if (interruptedHere) {
                Thread.interrupted(); // it was for the task only, not for onFinish, which runs on this thread too
            }
            if (started) {
                executor.onFinish(this); // once the scope is closed: finishing may close an owned scheduler
            }
        }
    }

    /**
     * interruptOwnVirtualThread() interrupts the current thread if it is the fiber's own virtual
     * thread (the VIRTUAL_THREADS engine), and returns whether it did. Why: a scope cancelled from
     * its own fiber interrupts nothing, but on that engine shutdownNow() interrupts every task it
     * reaches, and one accepted while it ran must not be the exception: blocked in a JDK call
     * (sleep, a queue, a socket read) it would keep the executor from terminating. As
     * ThreadPoolExecutor, a task that starts after shutdownNow() starts interrupted. On CONTINUATIONS
     * the thread is the worker's (or a bound caller's), shared by other fibers: left alone.
     */
    private boolean interruptOwnVirtualThread() {
        if (executor.scheduler().fiberEngine() != FiberEngine.VIRTUAL_THREADS || !Thread.currentThread().isVirtual()) {
            return false;
        }
        Thread.currentThread().interrupt();
        return true;
    }

    /** takeBack() claims a submission that has not started, so that it never runs; returns whether it did. */
    boolean takeBack() {
        return STATE.compareAndSet(this, NEW, TAKEN);
    }

    /** cancelWaits() cancels the fiber waits of a started task until it ends; nothing once it has. */
    void cancelWaits() {
        if (state == STARTED) {
            running.cancel();
        }
    }

    /**
     * cancelWaitsFromStart() cancels the task's fiber waits whether it has started or starts later:
     * for a task accepted while shutdownNow() ran, which that call may not have seen. The flag is
     * written before the state is read here, and the state before the flag is read in run(), so at
     * least one side cancels.
     */
    void cancelWaitsFromStart() {
        cancelled = true;
        cancelWaits();
    }

    @Override
    public String toString() {
        return "Submission[" + task + "]";
    }
}
