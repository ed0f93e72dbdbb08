package org.marl4j;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Closing is how a {@link Scheduler} closes, marl's destructor: it refuses a close that would wait
 * for itself, unbinds the closing thread if it is bound, waits for the other bound threads to
 * unbind, stops the workers and waits for their threads to end, then stops the monitor. It also
 * writes the reports a long close or unbind logs, and does the cancelling of
 * {@link Scheduler#close(java.time.Duration)} at its timeout; {@link CloseWatch} decides when.
 *
 * <p>Used by the closing thread only, and holds no lock of its own. The walks over every worker
 * (the report, the cancelling) take one worker's lock at a time, over a
 * {@link BoundThreads#snapshot()}, so no worker lock is ever taken under the register's lock.
 */
final class Closing {
    private final Scheduler scheduler;
    private final Worker[] workers;
    private final BoundThreads bound;
    /** The monitor thread, stopped once the worker threads have ended; null without worker threads. */
    private final Monitor monitor;
    /** How long a close waits before it logs what it waits for. */
    private final long warnAfterNanos;

    Closing(Scheduler scheduler, Worker[] workers, BoundThreads bound, Monitor monitor, long warnAfterNanos) {
        this.scheduler = scheduler;
        this.workers = workers;
        this.bound = bound;
        this.monitor = monitor;
        this.warnAfterNanos = warnAfterNanos;
    }

    /** closeWithin(timeoutNanos) is {@link Scheduler#close()}, or with a timeout of zero or more, {@link Scheduler#close(java.time.Duration)}. */
    void closeWithin(long timeoutNanos) {
        close(timeoutNanos, -1);
    }

    /**
     * close(timeoutNanos, joinLimitNanos) is {@link #closeWithin}, except that with a joinLimitNanos
     * of zero or more it stops waiting for the worker threads that long after it began, and returns
     * those still alive (they have been told to stop, and end by themselves); empty otherwise.
     */
    private List<Thread> close(long timeoutNanos, long joinLimitNanos) {
        long start = System.nanoTime();
        List<Thread> left = new ArrayList<>();
        CloseWatch watch = new CloseWatch(this, scheduler, warnAfterNanos, timeoutNanos);
        Worker current = Worker.current();
        if (current != null && current.scheduler == scheduler) {
            checkMayClose(current);
            scheduler.unbind(current, watch);
        }
        // Close goes on uninterruptibly; an interrupt is restored once it is done.
        boolean interrupted = bound.closeAndAwaitUnbound(watch);
        for (Worker worker : workers) {
            worker.work.requestStop();
        }
        interrupted |= Thread.interrupted();
        for (Worker worker : workers) {
            Thread thread = worker.thread(); // null for a worker a failed constructor never started
            while (thread != null && thread.isAlive()) {
                long waitNanos = watch.nanosUntilDue();
                if (joinLimitNanos >= 0) {
                    waitNanos = Math.min(waitNanos, joinLimitNanos - (System.nanoTime() - start));
                }
                try {
                    thread.join(Math.max(1, Math.min(waitNanos / 1_000_000, Long.MAX_VALUE / 2)));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
                // Before the watch: given up on, the thread is reported by the caller, not by close's warning.
                if (joinLimitNanos >= 0 && thread.isAlive() && System.nanoTime() - start >= joinLimitNanos) {
                    left.add(thread);
                    break;
                }
                if (watch.due()) {
                    watch.act();
                }
            }
        }
        if (monitor != null) {
            monitor.stop();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return left;
    }

    /**
     * abandonStart(failure) undoes a constructor that failed part way through starting its threads:
     * it closes the scheduler at once (a close(Duration.ZERO): whatever a worker thread's initializer
     * may already have queued is cancelled rather than waited for) and joins the threads it started.
     * A failure of that clean-up is added to {@code failure} as suppressed. Called by the
     * constructing thread, which then rethrows failure.
     *
     * <p>It waits for the threads only as long as a close waits before it warns: a worker thread's
     * initializer may wait for something the constructing thread holds (a lock taken around
     * {@code new Scheduler}), and joining it for ever would deadlock where the caller expects an
     * exception. A thread given up on is named in a suppressed exception; told to stop, it ends by
     * itself once its initializer returns.
     */
    void abandonStart(Throwable failure) {
        try {
            List<Thread> left = close(0, warnAfterNanos);
            if (!left.isEmpty()) {
                failure.addSuppressed(new IllegalStateException("worker thread(s) "
                        + left.stream().map(Thread::getName).toList() + " still ran "
                        + warnAfterNanos / 1_000_000 + " ms after the failed constructor stopped them (in the "
                        + "thread initializer, or a task it queued): each ends by itself once that returns"));
            }
        } catch (Throwable cleanup) {
            failure.addSuppressed(cleanup);
        }
    }

    /** checkMayClose(current) refuses close() on one of the scheduler's own threads where it would wait for itself. */
    private void checkMayClose(Worker current) {
        if (current.mode == Worker.Mode.MULTI_THREADED) {
            throw new IllegalStateException("close() called from a task of " + scheduler
                    + ": it would wait for itself; close from another thread");
        }
        if (current.forBlockingCall) {
            throw new IllegalStateException("close() called inside Marl.blockingCall on " + scheduler + ": the fiber "
                    + "waiting for the call keeps the scheduler running, so close would wait for itself; "
                    + "return from the call and close the scheduler from outside its tasks");
        }
        if (current.current != current.main) {
            throw new IllegalStateException("close() called from a task running on a thread bound to " + scheduler
                    + ": it would wait for itself; close from the thread's own code, after the tasks it waits for");
        }
    }

    /**
     * cancelAllWaits() is close(Duration) giving up: every worker's suspended fibers are cancelled
     * and its pending delayed tasks dropped. Returns what it did, for the close's log, or null if
     * there was nothing to cancel.
     */
    String cancelAllWaits() {
        List<Worker> all = new ArrayList<>(List.of(workers));
        all.addAll(bound.snapshot().values());
        int fibers = 0;
        int delayed = 0;
        for (Worker w : all) {
            fibers += cancelWaits(w.work);
            delayed += Deadlines.dropDelayed(w.work);
        }
        if (fibers == 0 && delayed == 0) {
            return null;
        }
        return "cancelled the waits of " + fibers + " suspended fiber(s) and " + delayed + " pending delayed task(s)";
    }

    /**
     * cancelWaits(work) resumes every suspended fiber of one worker with a {@link
     * FiberCancelledException} thrown from its wait, and makes every later wait there throw one at
     * once, so that the fibers unwind (their finally blocks run) and the worker drains. Returns how
     * many it woke.
     */
    @Excludes("work.lock")
    @SuppressWarnings("GuardedBy") // every listed fiber is the work's: work.lock is the fiber.worker.work.lock its state needs
    static int cancelWaits(Work work) {
        List<VirtualFiber> blockedInJdk = new ArrayList<>();
        int woken = 0;
        work.lock.lock();
        try {
            work.waitsCancelled = true;
            for (Fiber f : work.suspendedFibers()) {
                if (f.blockedInJdk()) {
                    blockedInJdk.add(f.virtualThread()); // interrupted below, as shutdownNow() does a pool's threads
                    woken++;
                } else if (f.state == Fiber.State.YIELDED || f.state == Fiber.State.WAITING) {
                    f.wakeEpoch++;
                    work.addReadyFiber(f);
                    woken++;
                }
            }
            work.wakeOwner();
        } finally {
            work.lock.unlock();
        }
        // Outside the lock: the interrupt wakes the fiber through its worker (VirtualFiber.execute).
        blockedInJdk.forEach(VirtualFiber::interrupt);
        return woken;
    }

    /**
     * closeReport() describes, for close()'s warning, what it is waiting for: suspended fibers,
     * pending delayed tasks, threads still bound, and each worker thread busy in a task, with its
     * stack. Takes each worker's lock in turn.
     */
    String closeReport() {
        StringBuilder report = new StringBuilder();
        Map<Thread, Worker> boundNow = bound.snapshot();
        List<Worker> all = new ArrayList<>(List.of(workers));
        all.addAll(boundNow.values());
        for (Worker worker : all) {
            report.append(waitReport(worker));
        }
        for (Thread t : boundNow.keySet()) {
            report.append("thread ").append(t.getName()).append(t == Thread.currentThread()
                    ? ", which called close(), is unbinding: it runs the tasks of its worker until they end\n"
                    : " is still bound: close() waits for it to call unbind()\n");
        }
        for (Worker worker : workers) {
            Thread thread = worker.thread();
            if (thread != null && thread.isAlive() && worker.work.activity() == Work.ACTIVE) {
                report.append(worker).append(" is busy in a task (").append(thread.getState()).append("):\n")
                        .append(worker.threadStack(12)).append(LockCheck.blockedHint(thread, worker.scheduler.checkLocks));
            }
        }
        return report.toString();
    }

    /**
     * waitReport(worker) describes what one worker waits for before it may stop: its suspended
     * fibers and its pending delayed tasks. A long unbind()'s warning is this of its worker.
     */
    static String waitReport(Worker worker) {
        List<SuspendedFiber> fibers = new ArrayList<>();
        SuspendedFiber.addSuspendedOf(worker, fibers);
        StringBuilder report = new StringBuilder();
        fibers.forEach(report::append);
        String delayed = Deadlines.delayedSummary(worker.work);
        if (!delayed.isEmpty()) {
            report.append(worker).append(": ").append(delayed).append('\n');
        }
        return report.toString();
    }
}
