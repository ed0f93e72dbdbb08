package org.marl4j;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * BoundThreads is a scheduler's register of the application threads bound to it
 * ({@link Scheduler#bind()}), each with its single-threaded worker, and of the counters left by
 * those that have unbound, so that {@link Scheduler#stats()} still counts their work. Closing marks
 * the register closed, after which only a {@link Marl#blockingCall}'s thread may still bind, and
 * waits on it until every bound thread has unbound.
 *
 * <p>While any thread is bound, the {@link BoundThreadWatch} looks at them (registered by the
 * first bind of a thread that is not a blocking call's, unregistered by the last unbind, both under {@link #lock}, which may take the
 * watch's class monitor; the watch never takes this lock while it holds that monitor).
 *
 * <p>Lock discipline: {@link #lock} guards the register and the retired counters. No worker lock is
 * ever taken while it is held: walks that need worker locks (close's report, the cancelling of
 * waits, {@link Scheduler#suspendedFibers()}) work on a {@link #snapshot()}.
 */
final class BoundThreads {
    /** How often a close looks for bound threads that ended without unbind(), in nanoseconds. */
    private static final long ENDED_THREAD_CHECK_NANOS = 100_000_000L;

    private final Scheduler scheduler;
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when the last bound thread unbinds. */
    private final Condition allUnbound = lock.newCondition();
    @GuardedBy("lock")
    private final Map<Thread, Worker> workers = new HashMap<>();
    /** Counters of bound workers that have unbound; see {@link Scheduler.Stats}. */
    @GuardedBy("lock")
    private final StatsTotals retiredStats = new StatsTotals();
    /**
     * Whether the {@link BoundThreadWatch} looks at this register: from the first bind of a thread
     * that is not a blocking call's until no thread is bound.
     */
    @GuardedBy("lock")
    private boolean watched;
    /** Written under lock, so no bind slips past the start of a close; read without it. */
    private volatile boolean closing;

    BoundThreads(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** closing() is true once {@link #closeAndAwaitUnbound} has begun. */
    boolean closing() {
        return closing;
    }

    /**
     * bind(forBlockingCall) gives the calling thread a single-threaded worker and registers it.
     * Refused once closing, except for a blocking call's thread: its caller is a blocked fiber, which
     * keeps its worker (and so the scheduler) running until the call has unbound.
     */
    Worker bind(boolean forBlockingCall) {
        lock.lock();
        try {
            if (closing && !forBlockingCall) {
                throw new IllegalStateException(scheduler + " is closed: a closed scheduler cannot be bound");
            }
            Worker worker = new Worker(scheduler, -1, Worker.Mode.SINGLE_THREADED, forBlockingCall);
            worker.bindToCurrentThread();
            workers.put(Thread.currentThread(), worker);
            if (!watched && !forBlockingCall) { // a blocking call's thread blocks by design: nothing to watch
                watched = true;
                BoundThreadWatch.watch(this);
            }
            return worker;
        } finally {
            lock.unlock();
        }
    }

    /** unbound(thread) forgets thread's worker, which has drained, keeping its counters. */
    void unbound(Thread thread) {
        lock.lock();
        try {
            retire(thread);
        } finally {
            lock.unlock();
        }
    }

    /** retire(thread) forgets thread's worker, keeping its counters; returns the worker. */
    @GuardedBy("lock")
    private Worker retire(Thread thread) {
        Worker worker = workers.remove(thread);
        StatsTotals done = new StatsTotals();
        worker.addStatsTo(done);
        retiredStats.addCountersOf(done); // its gauges (idle, blocked, queued fibers and tasks) went with it
        if (workers.isEmpty()) {
            allUnbound.signalAll();
            if (watched) {
                watched = false;
                BoundThreadWatch.unwatch(this);
            }
        }
        scheduler.releasePolicy(worker);
        return worker;
    }

    /**
     * closeAndAwaitUnbound(watch) marks the register closed, then waits until every bound thread
     * has unbound, acting on the close's watch whenever it is due. A thread that ended without
     * unbinding is logged and forgotten: nothing can run its tasks any more. Interrupts do not end
     * the wait; returns whether one came, so the caller can restore it once its close is done.
     */
    boolean closeAndAwaitUnbound(CloseWatch watch) {
        boolean interrupted = false;
        lock.lock();
        try {
            closing = true;
            while (!workers.isEmpty()) {
                try {
                    allUnbound.awaitNanos(Math.min(watch.nanosUntilDue(), ENDED_THREAD_CHECK_NANOS));
                } catch (InterruptedException e) {
                    interrupted = true; // awaitNanos holds the lock again when it throws
                }
                forgetEndedThreads();
                if (watch.due()) {
                    lock.unlock(); // the watch takes worker locks, never taken under this lock
                    try {
                        watch.act();
                    } finally {
                        lock.lock();
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        return interrupted;
    }

    /** forgetEndedThreads() retires every bound thread that has ended without unbind(), logging each. */
    @GuardedBy("lock")
    private void forgetEndedThreads() {
        List<Thread> ended = new ArrayList<>();
        for (Thread thread : workers.keySet()) {
            if (!thread.isAlive()) {
                ended.add(thread);
            }
        }
        for (Thread thread : ended) {
            boolean left = retire(thread).work.queued() > 0;
            CloseWatch.LOG.log(System.Logger.Level.WARNING, "thread " + thread.getName() + " ended while bound to "
                    + scheduler + ", without calling unbind(): close() does not wait for it"
                    + (left ? ", and the tasks queued on it will never run" : "")
                    + ". Unbind every bound thread before it ends (try (var b = scheduler.bind()) { ... }).");
        }
    }

    /**
     * addStatsTo(totals) adds the counters of every bound worker, past and present, and the gauges of
     * the present ones, to totals; returns how many threads are bound now.
     */
    int addStatsTo(StatsTotals totals) {
        lock.lock();
        try {
            totals.addCountersOf(retiredStats);
            for (Worker worker : workers.values()) {
                worker.addStatsTo(totals);
            }
            return workers.size();
        } finally {
            lock.unlock();
        }
    }

    /** snapshot() copies the bound threads and their workers, for walks that take worker locks. */
    Map<Thread, Worker> snapshot() {
        lock.lock();
        try {
            return new HashMap<>(workers);
        } finally {
            lock.unlock();
        }
    }
}
