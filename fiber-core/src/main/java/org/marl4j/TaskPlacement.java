package org.marl4j;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * TaskPlacement is where a {@link Scheduler}'s tasks go: which worker takes each task enqueued,
 * now or delayed, and the refusals when there is none. {@link Scheduler#enqueue(Task)} and {@link
 * Scheduler#enqueue(Task, java.time.Duration)} check their arguments and the common case, then
 * call straight into it. A task made on a worker thread stays on that worker ({@link
 * #enqueueOnOwnWorker}); one made elsewhere goes to a recently spinning worker, else round-robin
 * ({@link #enqueueOnWorkerThreads}); a SAME_THREAD task, or any task of a scheduler without worker
 * threads, goes to the calling thread's bound worker ({@link #requireOwn}).
 *
 * <p>No lock of its own: each worker's {@link Work} takes its own, and the round-robin counter is
 * deliberately racy ({@link #nextRoundRobin}).
 */
final class TaskPlacement {
    private final Scheduler scheduler;
    private final Worker[] workers;
    private final IdleWorkers idle;
    /** The scheduler's count of workers not yet stopped: none left means every enqueue is refused. */
    private final AtomicInteger liveWorkers;
    /** The scheduler's bound threads, for its closing flag. */
    private final BoundThreads bound;
    private final AtomicInteger nextEnqueueIdx = new AtomicInteger();

    TaskPlacement(Scheduler scheduler, Worker[] workers, IdleWorkers idle, AtomicInteger liveWorkers, BoundThreads bound) {
        this.scheduler = scheduler;
        this.workers = workers;
        this.idle = idle;
        this.liveWorkers = liveWorkers;
        this.bound = bound;
    }

    /** delayOn(worker, task, deadline) files a delayed task in worker's deadline heap; rejects if it has stopped. */
    static DelayedTask delayOn(Worker worker, Task task, long deadline) {
        DelayedTask delayed = new DelayedTask(task, worker);
        Deadlines.enqueueDelayed(worker.work, delayed, deadline, worker);
        return delayed;
    }

    /**
     * delayOnWorkerThreads(task, deadline) files a delayed task made off this scheduler's worker
     * threads on the next worker of the round-robin, moving on past stopped ones.
     */
    DelayedTask delayOnWorkerThreads(Task task, long deadline) {
        while (true) {
            Worker worker = workers[nextRoundRobin(workers.length)];
            try {
                return delayOn(worker, task, deadline);
            } catch (RejectedExecutionException stopped) {
                if (liveWorkers.get() == 0) {
                    throw new RejectedExecutionException(scheduler + " is closed: all its workers have stopped");
                }
            }
        }
    }

    /** The calling thread's worker if it belongs to this scheduler, else null; rejects foreigners once closing. */
    Worker ownWorkerOrReject() {
        Worker current = Worker.current();
        Worker own = current != null && current.scheduler == scheduler ? current : null;
        if (bound.closing() && own == null) {
            throw new RejectedExecutionException(scheduler + " is closed: tasks can no longer be enqueued from "
                    + "outside it (only its own tasks may enqueue while it drains)");
        }
        return own;
    }

    Worker requireOwn(Worker own, Task task) {
        if (own != null) {
            return own;
        }
        // bind() here would fail if the thread already belongs to another scheduler: say so instead.
        Worker other = Worker.current();
        String bindAdvice = other == null ? "call bind() on this thread first"
                : "this thread belongs to " + other.scheduler + " (" + (other.mode == Worker.Mode.MULTI_THREADED
                        ? "one of its worker threads" : "bound to it") + "), so enqueue from a thread bound to "
                        + scheduler + " instead";
        if (task.is(Task.Flag.SAME_THREAD)) {
            throw new IllegalStateException("a SAME_THREAD task must be enqueued from a thread bound to " + scheduler
                    + " or from one of its tasks: " + bindAdvice + ", or drop the flag");
        }
        throw new IllegalStateException(scheduler + " has no worker threads, so its tasks run on the threads "
                + "bound to it: " + bindAdvice + ", or configure worker threads with "
                + "Scheduler.Config.setWorkerThreadCount");
    }

    /**
     * enqueueOnOwnWorker(worker, task) queues a task made on one of this scheduler's worker threads
     * onto that worker, behind the tasks it already holds (FIFO per worker). If the worker now
     * holds more than this one task, it wakes an idle worker to steal if nobody spins (Go's wakep):
     * there is work for two. A lone task it does not: its worker runs it as soon as the maker
     * returns, and a woken worker would leave it alone ({@link FreshTaskRule}) and go back to sleep,
     * a futex round trip per hand-off that a coroutine resuming another paid on every resume. If
     * the maker holds its thread instead, a spinning worker takes the task after the rule's grace,
     * or the {@link Monitor} sends a sleeping one within two of its samples.
     *
     * <p>This departs from marl, which spreads every enqueue round-robin across workers. A task
     * made by a task or fiber is most often its continuation (a coroutine resuming the one it
     * talks to, a handler handing on a message): round-robin sent each such hop to another thread,
     * which then missed every cache line the maker had just written, and left the maker's thread
     * spinning for work. Keeping it local, as Go's and kotlinx's schedulers do, runs the hop on the
     * warm thread as soon as the maker's current task ends; other workers still take it, or half a
     * burst, by stealing, but leave a busy worker's only fresh task alone for a moment ({@link
     * FreshTaskRule}) unless that worker made no progress, so nothing strands behind a blocked
     * task. Enqueues from other threads keep marl's spinning-worker ring and round-robin.
     */
    void enqueueOnOwnWorker(Worker worker, Task task) {
        int added = worker.work.enqueueOwn(task, worker);
        if (added == Work.NOT_ADDED) {
            enqueueOnWorkerThreads(task); // a custom policy's contended lock, or the worker is stopping
        } else if (added == Work.ADDED_OWNER_AWAKE && !worker.work.holdsOnly()) {
            idle.wakeIdleWorker();
        }
    }

    /**
     * nextRoundRobin(count) is the next worker index of the round-robin, 0 to count - 1. The counter
     * is advanced with an opaque read and write, not an atomic increment: two producers that race
     * may pick the same worker once, which costs the spread nothing that matters, while a lone
     * producer, the common case, pays no locked instruction per task for it.
     */
    private int nextRoundRobin(int count) {
        if (count == 1) {
            return 0;
        }
        int next = nextEnqueueIdx.getOpaque();
        nextEnqueueIdx.setOpaque(next + 1);
        return (next & Integer.MAX_VALUE) % count;
    }

    /**
     * Prefer a worker that recently started spinning, else round-robin; skip contended and stopped
     * workers. A scheduling policy's exception reaches the caller; the worker is left as it was.
     */
    void enqueueOnWorkerThreads(Task task) {
        int count = workers.length;
        while (true) {
            // With one worker there is nothing to choose: its spinning ring is not worth an atomic.
            int idx = count == 1 ? 0 : idle.takeSpinning();
            if (idx < 0) {
                idx = nextRoundRobin(count);
            }
            int added = workers[idx].work.tryEnqueue(task);
            if (added != Work.NOT_ADDED) {
                if (added == Work.ADDED_OWNER_AWAKE) {
                    idle.wakeIdleWorker(); // its owner may be busy for long, even blocked: let an idle worker take it
                }
                return;
            }
            if (liveWorkers.get() == 0) {
                throw new RejectedExecutionException(scheduler + " is closed: all its workers have stopped");
            }
        }
    }

}
