package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.LockSupport;

/**
 * BoundThreadWatch warns when a thread bound to a scheduler ({@link Scheduler#bind()}) is blocked
 * outside marl4j while work queued on it waits. A bound thread runs its tasks and resumes its fibers
 * only while it waits in a marl4j primitive or unbinds; a scheduler with no worker threads queues
 * every task on its bound threads. So {@code Marl.schedule(task)} followed by a plain
 * {@code future.join()} on what the task would complete waits for ever, and nothing said so: the
 * {@link Monitor}, which warns of the same for worker threads, exists only where there are some.
 *
 * <p>One daemon thread for the whole JVM ({@link #JVM}), started when a thread first binds and ending
 * once no thread is bound anywhere, looks at each bound thread every {@link #checkNanos}: a thread whose
 * worker is active (not asleep in a marl4j wait), has made no progress (no task started, no fiber
 * switched) since the last look, has a task or a woken fiber queued, and whose thread is parked or
 * blocked ({@code WAITING}, {@code TIMED_WAITING}, {@code BLOCKED}: a computing thread will come
 * back to its queue) for {@link #warningNanos} is logged once per stall at WARNING, with its stack.
 * A blocking call's thread ({@link Marl#blockingCall}) is left alone: it blocks by design, and no
 * work is queued on it.
 *
 * <p>Lock discipline: the watch's monitor guards {@link #registers} and the thread's start; the
 * watch's state of each bound worker is its thread's alone. It reads the workers' counters without
 * their locks (racy hints, as the Monitor does), and takes a register's lock only to copy it.
 */
final class BoundThreadWatch {
    /**
     * Makes the watch's thread. The thread outlives the bind that starts it (it runs while any thread
     * anywhere is bound), so it takes nothing of that thread's: no inheritable thread locals, no
     * context class loader, which could keep an undeployed application's classes loaded.
     */
    static final ThreadFactory THREADS = watch -> {
        Thread t = Thread.ofPlatform().name("marl4j-bound-thread-watch").inheritInheritableThreadLocals(false)
                .unstarted(watch);
        t.setContextClassLoader(null);
        return t;
    };

    /** The watch of every scheduler's bound threads, unless its config names another (tests do). */
    static final BoundThreadWatch JVM = new BoundThreadWatch(1_000_000_000L, 5_000_000_000L, THREADS);

    /** How often the bound threads are looked at. */
    private final long checkNanos;
    /** How long a bound thread must be blocked with work queued before it is logged. */
    private final long warningNanos;
    private final ThreadFactory threadFactory;

    /** How many times the watch has looked at the bound threads: lets a test wait for it to have looked. */
    private volatile long looks;

    /** The registers with at least one bound thread (weakly: a scheduler nobody closed may be collected). */
    @GuardedBy("this")
    private final Set<BoundThreads> registers = Collections.newSetFromMap(new WeakHashMap<>());
    @GuardedBy("this")
    private Thread thread;

    /** What the watch saw of one bound worker: its progress count, since when, and the stall last logged. */
    private static final class Seen {
        long progress = -1;
        long since;
        long warnedProgress = -1;
    }

    /**
     * A watch that looks every checkNanos and logs a thread blocked for warningNanos; threadFactory
     * makes its thread (a test's may fail, as the JVM does when it cannot create a thread).
     */
    BoundThreadWatch(long checkNanos, long warningNanos, ThreadFactory threadFactory) {
        this.checkNanos = checkNanos;
        this.warningNanos = warningNanos;
        this.threadFactory = threadFactory;
    }

    /** looks() is how many times the watch has looked at the bound threads. */
    long looks() {
        return looks;
    }

    /**
     * watch(register) starts watching a register's bound threads; called when a thread binds to it.
     * Never throws: if the watch thread cannot start, it logs that and returns.
     */
    synchronized void watch(BoundThreads register) {
        registers.add(register);
        if (thread == null) {
            try {
                Thread started = threadFactory.newThread(this::run);
                started.setDaemon(true);
                started.start();
                thread = started; // only once it runs: a thread that failed to start must not stop the next try
            } catch (RuntimeException | Error e) { // "unable to create native thread", say
                // A diagnostic must not fail the bind() that started it, which has already bound its
                // thread: go unwatched until a later bind tries again.
                CloseWatch.LOG.log(System.Logger.Level.WARNING, "marl4j could not start the bound-thread watch;"
                        + " bound threads go unwatched until a later bind() starts it", e);
            }
        }
    }

    /** unwatch(register) stops watching a register; called when its last bound thread unbinds. */
    synchronized void unwatch(BoundThreads register) {
        registers.remove(register);
    }

    /** registersOrStop() copies the registers to look at, or, none left, lets the thread end. */
    private synchronized List<BoundThreads> registersOrStop() {
        if (registers.isEmpty()) {
            thread = null;
            return null;
        }
        return new ArrayList<>(registers);
    }

    private void run() {
        Map<Worker, Seen> seen = new WeakHashMap<>(); // this thread's alone
        while (true) {
            LockSupport.parkNanos(this, checkNanos);
            List<BoundThreads> toCheck = registersOrStop();
            if (toCheck == null) {
                return;
            }
            try {
                long now = System.nanoTime();
                for (BoundThreads register : toCheck) {
                    for (Map.Entry<Thread, Worker> bound : register.snapshot().entrySet()) {
                        check(seen, bound.getKey(), bound.getValue(), now);
                    }
                }
                looks++; // this thread is the only writer
            } catch (RuntimeException | Error bug) {
                // A watch that dies would leave the next hang silent: log and keep watching.
                CloseWatch.LOG.log(System.Logger.Level.ERROR, "marl4j internal error in the bound-thread watch; it keeps watching", bug);
            }
        }
    }

    private void check(Map<Worker, Seen> seen, Thread bound, Worker worker, long now) {
        if (worker.forBlockingCall) {
            return;
        }
        Seen s = seen.computeIfAbsent(worker, w -> new Seen());
        Work work = worker.work;
        long progress = work.progress();
        boolean stuck = work.activity() == Work.ACTIVE && progress == s.progress
                && (work.queued() > 0 || work.hasWokenFibers()) && blocked(bound.getState());
        if (!stuck) {
            s.progress = progress;
            s.since = now;
            return;
        }
        if (now - s.since >= warningNanos && s.warnedProgress != progress) {
            s.warnedProgress = progress;
            warn(bound, worker, now - s.since);
        }
    }

    private static boolean blocked(Thread.State state) {
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING || state == Thread.State.BLOCKED;
    }

    private static void warn(Thread bound, Worker worker, long blockedNanos) {
        CloseWatch.LOG.log(System.Logger.Level.WARNING, "thread " + bound.getName() + ", bound to " + worker.scheduler
                + ", has been blocked for " + blockedNanos / 1_000_000 + " ms while work queued on it waits: a bound"
                + " thread runs its tasks and fibers only while it waits in a marl4j primitive (one that frees the"
                + " thread, not a pinned wait) or unbinds" + (worker.scheduler.config().getWorkerThreadCount() == 0
                        ? ", and this scheduler has no worker threads to run them" : "")
                + ". If it waits for that work, it never ends. Its stack:\n" + worker.threadStack(16)
                + "Wait with marl4j primitives instead (Futures.await for a future, not join() or get()), unbind"
                + " before blocking, or give the scheduler worker threads.");
    }
}
