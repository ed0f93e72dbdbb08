package org.marl4j.reactive;

import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.Disposable;
import reactor.core.Exceptions;
import reactor.core.Scannable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * MarlWorker is the Reactor {@link Scheduler.Worker} of a {@link MarlScheduler}: a trampoline that
 * runs its tasks one at a time, in FIFO order, on one marl fiber at a time.
 *
 * <p>Draining: {@link #submit} queues a task and, if no drain is running ({@code wip} went from 0),
 * starts one as a task of the scheduler. The drain runs queued tasks until {@code wip}, which counts
 * submissions, says nothing new arrived. Because the drain is an ordinary fiber task, a worker task
 * that suspends its fiber (awaits a future, a publisher, an Event) suspends the whole drain: the next
 * task waits until it finished, exactly as it would behind a blocked thread, while the marl worker
 * thread runs other fibers. Two drains never run at once, so tasks never overlap.
 *
 * <p>Timers: delayed and periodic tasks wait on the marl scheduler's deadline heap (through the
 * owning {@link MarlScheduler}, which counts them) and, when due, are queued here like any task;
 * delayed tasks in the order they fall due, whichever of their timers fires first ({@link WorkerDelays}).
 *
 * <p>Disposal: {@link #dispose()} cancels queued, delayed and periodic tasks; afterwards every
 * {@code schedule} throws the {@link Exceptions#failWithRejected()} singleton, as Reactor's own
 * workers do. A task refused by the scheduler instead (disposed, or its marl scheduler closed)
 * gets Reactor's rejection with marl4j's reason as its message. A task already running is disposed
 * too, which cancels its fiber waits (see {@link WorkerTask}), as Reactor's workers interrupt theirs.
 * Disposing the scheduler cancels the queued tasks too: the drain drops them when it reaches them.
 */
final class MarlWorker implements Scheduler.Worker, Scannable, Runnable {
    /** A queued item: run it, or, if the worker is disposed first, drop it. */
    interface Queued extends Runnable {
        void drop();
    }

    private final MarlScheduler owner;
    private final Queue<Queued> queue = new ConcurrentLinkedQueue<>();
    /** Submissions not yet accounted for by a drain: 0 means no drain is running or queued. */
    private final AtomicInteger wip = new AtomicInteger();
    /** Delayed and periodic tasks not yet due or not yet finished: what dispose() cancels. */
    private final Set<Disposable> timed = ConcurrentHashMap.newKeySet();
    /** Delayed tasks not yet due, in the order they fall due. */
    private final WorkerDelays delays = new WorkerDelays();
    private volatile boolean disposed;
    /**
     * The task the drain is running, for dispose(). Written by the task before it checks
     * {@code disposed}, which dispose() writes before reading this: one of the two sees the other.
     */
    private volatile WorkerTask running;

    MarlWorker(MarlScheduler owner) {
        this.owner = owner;
    }

    @Override
    public Disposable schedule(Runnable task) {
        Objects.requireNonNull(task, "task must not be null");
        checkOpen();
        WorkerTask queued = new WorkerTask(this, Schedulers.onSchedule(task));
        RejectedExecutionException refused = submit(queued, true);
        if (refused != null) {
            throw refused;
        }
        return queued;
    }

    @Override
    public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
        long nanos = MarlScheduler.delayNanos(task, delay, unit);
        if (nanos == 0) {
            return schedule(task);
        }
        checkOpen();
        WorkerTask queued = new WorkerTask(this, Schedulers.onSchedule(task));
        OneShot timer = new OneShot(owner, this::releaseDue, true);
        WorkerDelays.Entry entry = delays.add(queued, timer, nanos); // before the timer is armed: see WorkerDelays
        queued.timer(() -> { // what the task's dispose() cancels
            delays.remove(entry);
            timer.dispose();
        });
        timed.add(queued);
        try {
            owner.executeLater(timer, nanos);
        } catch (RejectedExecutionException rejected) {
            timed.remove(queued);
            delays.remove(entry);
            throw refusedBy(rejected);
        }
        if (disposed) {
            queued.dispose(); // dispose() ran while we armed the timer and did not see it
        }
        return queued;
    }

    @Override
    public Disposable schedulePeriodically(Runnable task, long initialDelay, long period, TimeUnit unit) {
        long initialNanos = MarlScheduler.delayNanos(task, initialDelay, unit);
        checkOpen();
        Periodic periodic = new Periodic(owner, this, Schedulers.onSchedule(task), unit.toNanos(period));
        timed.add(periodic);
        try {
            owner.startPeriodic(periodic, initialNanos);
        } catch (RejectedExecutionException rejected) {
            timed.remove(periodic);
            throw refusedBy(rejected);
        }
        if (disposed) {
            periodic.dispose();
        }
        return periodic;
    }

    @Override
    public void dispose() {
        if (disposed) {
            return;
        }
        disposed = true;
        for (Disposable task : timed) {
            task.dispose();
        }
        dropQueued();
        // Last: the drain this lets go on would take queued tasks to drop them itself, and some
        // could still be undisposed when this returns.
        WorkerTask current = running;
        if (current != null) {
            current.dispose();
        }
    }

    @Override
    public boolean isDisposed() {
        return disposed;
    }

    /**
     * scanUnsafe(key) answers what Reactor's own workers answer: {@link Attr#PARENT} (the
     * {@link MarlScheduler}), {@link Attr#TERMINATED} and {@link Attr#CANCELLED} (whether this worker
     * is disposed) and {@link Attr#BUFFERED} (tasks queued here and not yet started; counting them
     * walks the queue); null for any other attribute.
     */
    @Override
    @SuppressWarnings("rawtypes") // Scannable declares it with the raw Attr type
    public Object scanUnsafe(Attr key) {
        if (key == Attr.TERMINATED || key == Attr.CANCELLED) {
            return disposed;
        }
        if (key == Attr.PARENT) {
            return owner;
        }
        if (key == Attr.BUFFERED) {
            return queue.size();
        }
        return null;
    }

    /**
     * submit(task, strict) queues a task and starts a drain if none is running. Returns null, or,
     * having queued nothing that will run, the exception for a caller to throw if the worker or its
     * scheduler no longer accepts work. strict is passed on to {@link MarlScheduler#execute}: false
     * for tasks the scheduler already counted (a due timer), which a graceful shutdown still runs.
     */
    RejectedExecutionException submit(Queued task, boolean strict) {
        if (disposed) {
            return Exceptions.failWithRejected();
        }
        queue.offer(task);
        if (wip.getAndIncrement() == 0) {
            try {
                owner.execute(OneShot.drain(owner, this), strict);
            } catch (RejectedExecutionException rejected) {
                dispose(); // no drain will ever run: this worker is dead
                return refusedBy(rejected);
            }
        }
        if (disposed || owner.skipsPending()) {
            // dispose() may have emptied the queue before our offer; or a drain saw the scheduler
            // disposed and stopped for good, leaving wip non-zero, so no drain will ever take this
            // task (a periodic run whose timer fired as the scheduler was disposed): drop it here,
            // or it stays counted and the scheduler never terminates.
            dropQueued();
        }
        return null;
    }

    /**
     * refusedBy(rejected) is what a schedule call throws when the MarlScheduler or its marl
     * scheduler refused the task (disposed, closed): Reactor's rejection, as publishOn and the
     * other operators expect, but saying why and what to do (the singleton of a disposed worker
     * says only "Scheduler unavailable").
     */
    private static RejectedExecutionException refusedBy(RejectedExecutionException rejected) {
        return Exceptions.failWithRejected(rejected.getMessage());
    }

    /** The drain: runs queued tasks one after another until no submission is left unaccounted. */
    @Override
    public void run() {
        int missed = 1;
        while (true) {
            Queued task;
            while ((task = queue.poll()) != null) {
                if (disposed || owner.skipsPending()) {
                    task.drop();
                    dropQueued();
                    return; // wip stays non-zero: a disposed worker starts no further drain
                }
                task.run(); // may suspend this fiber: the next task waits, as FIFO requires
            }
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }

    /**
     * releaseDue() is the body of every delayed task's timer: it queues every delayed task that is
     * due, in deadline order (see {@link WorkerDelays}), and cancels the timers of those released
     * before their own timer fired.
     */
    private void releaseDue() {
        delays.releaseDue(entry -> {
            timed.remove(entry.task());
            entry.timer().dispose(); // no effect on the timer running this
            if (submit(entry.task(), false) != null) {
                entry.task().dispose();
            }
        });
    }

    /** taskFailed(error) reports what a task threw, as its scheduler does (see MarlScheduler.taskFailed). */
    void taskFailed(Throwable error) {
        owner.taskFailed(error);
    }

    /** running(task) records the task the drain runs now, or null between tasks. */
    void running(WorkerTask task) {
        running = task;
    }

    /** forget(task) removes a finished timed task from the set dispose() cancels. */
    void forget(Disposable task) {
        timed.remove(task);
    }

    private void dropQueued() {
        Queued task;
        while ((task = queue.poll()) != null) {
            task.drop();
        }
    }

    private void checkOpen() {
        if (disposed) {
            throw Exceptions.failWithRejected(); // as Reactor's own disposed workers do
        }
        if (owner.isDisposed()) {
            throw Exceptions.failWithRejected(owner + " is disposed: it accepts no new tasks; create a new MarlScheduler");
        }
    }
}
