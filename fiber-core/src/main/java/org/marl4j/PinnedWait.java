package org.marl4j;

import org.marl4j.Work.WorkerLock;

/**
 * A pinned wait: a fiber the JVM could not yield (a native frame or a class initializer on its
 * stack) blocks its worker's thread until it is woken, instead of suspending.
 *
 * <p>While it blocks, the thread is not idle: it takes the worker's stealable tasks (those an idle
 * worker could take, so not {@link Task.Flag#SAME_THREAD} ones) and runs them itself, one at a
 * time, since one of them may be the waker (with one worker thread there is nobody else to run
 * it). Such a task runs without a fiber of its own: {@link Fiber#current()} is null in it, and its
 * waits block the thread as on a plain thread. What it cannot run are this worker's ready fibers
 * and SAME_THREAD tasks: those wait until the pinned fiber is woken. If one of them is the waker,
 * nothing can progress; the wait reports that once, at WARNING through {@link System.Logger},
 * after {@link #STUCK_WARNING_NANOS}. Other workers steal this worker's stealable tasks too (the
 * scheduler's {@link Monitor} sees a worker making no progress).
 */
final class PinnedWait {
    /** How long a pinned wait lets unrunnable work sit queued behind it before it warns once. */
    static final long STUCK_WARNING_NANOS = 1_000_000_000L;

    private static final System.Logger LOG = System.getLogger(Scheduler.class.getName());

    private PinnedWait() {}

    /**
     * block(worker, fiber) blocks the worker's thread until the (mounted, suspended-state) fiber is
     * woken or its deadline passes, running stealable tasks meanwhile. Called with the worker's
     * lock held, on the fiber itself; returns with it held and the fiber QUEUED, out of the policy.
     */
    @SuppressWarnings("GuardedBy") // entered with worker.work.lock held, which the checker cannot carry over from the caller's argument; fiber is worker's, so it is also the fiber.worker.work.lock its state needs
    static void block(Worker worker, Fiber fiber) {
        fiber.setPinned(true);
        long stuckSince = 0;
        boolean warned = false;
        try {
            while (fiber.state != Fiber.State.QUEUED) {
                Task task = worker.work.stealLocked();
                if (task != null) {
                    runInline(worker, fiber, task);
                    stuckSince = 0;
                    continue;
                }
                if (worker.work.num() > 0 && !warned) {
                    long now = System.nanoTime();
                    if (stuckSince == 0) {
                        stuckSince = now;
                    } else if (now - stuckSince >= STUCK_WARNING_NANOS) {
                        warned = true;
                        LOG.log(System.Logger.Level.WARNING, fiber + " is pinned by the JVM (a class initializer"
                                + " or native frame on its stack), so its wait blocks the thread; " + worker.work.num()
                                + " ready fiber(s) or SAME_THREAD task(s) of its worker cannot run until it is"
                                + " woken. If one of them is its waker, this is a deadlock: do not wait on a"
                                + " marl4j primitive inside a static initializer or a native callback.");
                    }
                }
                worker.sleep(false, warned || worker.work.num() == 0 ? Long.MAX_VALUE : STUCK_WARNING_NANOS);
            }
            worker.work.removeReadyFiber(fiber);
        } finally {
            fiber.setPinned(false);
        }
        worker.restoreSleepInterrupt();
    }

    /**
     * What owns the Mutexes a task takes while a pinned wait runs it: one per run, since a Task may
     * be enqueued (and so run) more than once, even by two pinned workers at the same time.
     */
    private static final class InlineOwner {
        private final Task task;
        private final Thread thread;

        InlineOwner(Task task) {
            this.task = task;
            this.thread = Thread.currentThread();
        }

        @Override
        public String toString() {
            return task + " run by a pinned wait on " + thread.getName();
        }
    }

    /** runInline(worker, fiber, task) runs a task on the pinned fiber's thread, as plain thread code: entered with the worker lock held, which it releases while the task runs. */
    private static void runInline(Worker worker, Fiber fiber, Task task) {
        worker.current = null; // the task has no fiber: its waits block the thread
        worker.inlineOwner = new InlineOwner(task); // its own Mutex owner (see Mutex.currentOwner)
        WorkerLock lock = worker.lock();
        lock.unlock();
        try {
            worker.runTask(task);
        } finally {
            lock.lock();
            worker.inlineOwner = null;
            worker.current = fiber;
        }
    }
}
