package org.marl4j.reactive;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.marl4j.DelayedTask;
import org.marl4j.FiberCancelledException;
import org.marl4j.Task;
import reactor.core.Disposable;
import reactor.core.Scannable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * MarlScheduler is a Project Reactor {@link reactor.core.scheduler.Scheduler} that runs every task
 * on a fiber of a marl4j {@link org.marl4j.Scheduler}, so code inside operators may wait.
 *
 * <pre>{@code
 * MarlScheduler marl = MarlScheduler.create(Scheduler.Config.allCores());
 * Flux.range(1, 100)
 *     .publishOn(marl)
 *     .map(id -> Futures.await(fetch(id)))   // suspends this fiber; the worker thread runs others
 *     .doFinally(signal -> marl.dispose())   // its threads are not daemons: dispose it when done
 *     .subscribe(System.out::println);
 * }</pre>
 *
 * <p>Waiting inside operators: a task runs inline on a worker's fiber, so a call that waits on a
 * marl4j primitive ({@code Futures.await}, {@link Publishers#awaitFirst}, {@code Event},
 * {@code WaitGroup}, ...) suspends only that fiber while the worker thread goes on with other
 * tasks. A call that blocks the thread itself (a plain lock, {@code Thread.sleep}, JDBC) blocks the
 * worker as it would on any Reactor scheduler.
 *
 * <p>Ownership: {@link #from(org.marl4j.Scheduler)} borrows a marl scheduler ({@link #dispose()}
 * stops this Reactor view and leaves the marl scheduler open); {@link #create(org.marl4j.Scheduler.Config)}
 * owns one ({@code dispose()} also closes it, on a background thread, so that dispose never blocks
 * its caller: Reactor may call it from anywhere, even from one of the scheduler's own tasks).
 *
 * <p>Time: {@link #schedule(Runnable, long, TimeUnit)} and {@link #schedulePeriodically} use the
 * marl scheduler's own per-worker deadline heap (no timer thread, no extra pool). A delayed task
 * never starts before its delay; a non-positive delay runs it as soon as possible. Periodic tasks run
 * at a fixed rate measured from the first run, and never overlap: a late run is followed at once by
 * the next, one after another, as with {@code ScheduledExecutorService.scheduleAtFixedRate}. A
 * non-positive period runs the task again as soon as each run returns. A periodic task that throws
 * is reported and not run again.
 *
 * <p>Hooks and errors: every task passes through {@link Schedulers#onSchedule} when it is
 * scheduled. A task's exception goes to Reactor's handling exactly as with Reactor's own schedulers
 * (the thread's uncaught-exception handler or Reactor's logger, then the
 * {@link Schedulers#onHandleError} hooks), never to the marl scheduler's own handler, and the worker
 * carries on. Reactor keeps that handling in a package-private method: how it is reached is
 * described on the internal class {@code ReactorErrors} (a method handle on Reactor's own method,
 * with a route through Reactor's public {@code Schedulers.fromExecutor} when that is closed).
 *
 * <p>Thread-locals: the fibers of a worker share its thread's {@code ThreadLocal}s (as marl's fibers
 * share {@code thread_local}). An {@code onSchedule} hook that sets thread-locals around a task
 * (MDC, context propagation) sets them for the worker thread: while that task's fiber is suspended,
 * other fibers on the thread see them, and the task may find them changed after it resumes. Keep
 * such state in Reactor's {@code Context}, or restore it after each wait.
 *
 * <p>Disposing a running task: where Reactor's schedulers interrupt the thread of a task disposed
 * while it runs, a task of this scheduler has its fiber waits cancelled instead (a
 * {@link org.marl4j.FiberCancellation}): the wait it is suspended in ({@code Futures.await},
 * {@code Publishers.await*}, a marl4j primitive) and every later one throw
 * {@link org.marl4j.FiberCancelledException}, so it unwinds. That covers {@code dispose()} of what
 * {@code schedule} returned and of a {@link #createWorker() Worker} running it, which is how
 * {@code subscribeOn} and {@code publishOn} stop their work when the subscriber cancels (a
 * {@code timeout}, a {@code take}). As in Reactor, a task disposed from its own fiber is left to
 * finish. The cancellation is not reported to Reactor's error handling.
 *
 * <p>Disposal is monotonic. After {@link #dispose()} or {@link #disposeGracefully()}, every
 * {@code schedule} method throws {@link RejectedExecutionException} (a {@code publishOn} onto it
 * signals the exception to {@code onError}), and {@link #init()} throws
 * {@link IllegalStateException}. As with Reactor's own schedulers, {@code disposeGracefully()} is
 * the graceful shutdown and {@code dispose()} the forceful one:
 * <ul>
 *   <li>{@code disposeGracefully()} lets queued and delayed tasks run, cancels periodic ones, and
 *       completes when the last has finished (and, for an owned scheduler, the marl scheduler has
 *       closed). A fiber suspended forever (a task waiting on a future nobody completes) keeps that
 *       from happening: give the returned Mono a {@code timeout}, then call {@code dispose()}.
 *   <li>{@code dispose()} cancels the tasks that have not started (queued, delayed, periodic,
 *       and those queued on a {@link #createWorker() Worker}). For an owned scheduler it also
 *       closes the marl scheduler with {@link org.marl4j.Scheduler#close(Duration)}, on a thread of
 *       its own: where Reactor's schedulers interrupt their running tasks, after a grace of 100 ms
 *       the wait of every fiber still suspended on a marl4j primitive (a task in
 *       {@code Futures.await} or {@code Publishers.await*}, a {@link Publishers#publish} producer
 *       waiting for demand) throws {@link org.marl4j.FiberCancelledException}, so the task unwinds,
 *       its {@code finally} blocks run, and the worker threads end. Such a cancellation is not
 *       reported to Reactor's error handling (it is the dispose, not a failure). A task that holds
 *       its thread without a marl4j wait (a loop, {@code Thread.sleep}, JDBC) cannot be cancelled:
 *       the threads end once it returns. A borrowed scheduler's fibers are left alone, since the
 *       marl scheduler stays open: its tasks that are running or suspended finish.
 * </ul>
 *
 * <p>Introspection: as Reactor's own schedulers, it is {@link Scannable} (name, capacity = worker
 * threads, terminated/cancelled = disposed), so Reactor's metrics and debugging tools can see it.
 *
 * <p>All methods are safe to call from any thread.
 */
public final class MarlScheduler implements reactor.core.scheduler.Scheduler, Scannable {
    /** Accepting tasks. */
    private static final int RUNNING = 0;
    /** disposeGracefully(): rejecting new tasks, running what was queued or delayed. */
    private static final int SHUTTING_DOWN = 1;
    /** dispose(): rejecting new tasks, skipping those that have not started. */
    private static final int DISPOSED = 2;

    /**
     * How long dispose()'s close of an owned marl scheduler waits before it cancels the suspended
     * fibers. Not zero: a bounded close that reaches its timeout logs a WARNING even when it finds
     * nothing to cancel, and an idle scheduler's workers need a moment to stop, so with zero every
     * dispose() would log one (as every owned test's tear-down did). With 100 ms, only the disposes
     * that found a fiber to cancel logged, across the module's tests on this loaded 2-core machine;
     * it is short enough to stay a forceful shutdown.
     */
    static final Duration FORCED_CLOSE_GRACE = Duration.ofMillis(100);

    private final org.marl4j.Scheduler marl;
    private final boolean owned;
    /**
     * Non-null for a serial scheduler ({@link #serial}): the one worker through which every direct
     * {@code schedule*} call goes, so that those tasks run one at a time, in order.
     */
    private final MarlWorker serial;
    private final AtomicInteger state = new AtomicInteger(RUNNING);
    /**
     * Tasks accepted and not yet finished or cancelled; a periodic task counts once for its lifetime.
     * Shared by every thread that schedules, but touched twice per task, and a Worker's task is a
     * drain of many elements (publishOn: one per ~180 elements from another thread, one in all for a
     * fused source): ReactorBenchmark measured no difference with it removed, so it stays simple.
     */
    private final AtomicLong active = new AtomicLong();
    /** Delayed and periodic tasks not yet finished: what dispose() must cancel. */
    private final Set<Timed> timed = ConcurrentHashMap.newKeySet();
    /** Set once termination (or, for an owned scheduler, the graceful close) has begun. */
    private final AtomicBoolean terminating = new AtomicBoolean();
    /** Set once dispose() has started the forceful close of an owned marl scheduler. */
    private final AtomicBoolean forcing = new AtomicBoolean();
    /** Completes once disposed and every accepted task has finished (and an owned marl scheduler closed). */
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();

    private MarlScheduler(org.marl4j.Scheduler marl, boolean owned, boolean serial) {
        this.marl = marl;
        this.owned = owned;
        this.serial = serial ? new MarlWorker(this) : null; // the worker only keeps a reference for later
    }

    /**
     * serial(scheduler) is {@link #from} whose direct {@code schedule}, delayed and periodic tasks
     * run one at a time, in FIFO order (through one {@link MarlWorker}), as on Reactor's
     * {@code Schedulers.single()}: what {@link MarlSchedulersFactory} gives for {@code newSingle}.
     * Its workers from {@link #createWorker()} are each serial, as every worker is, but not serial
     * with one another or with the direct tasks, and no task is confined to one thread.
     */
    static MarlScheduler serial(org.marl4j.Scheduler scheduler) {
        Objects.requireNonNull(scheduler, "scheduler must not be null");
        requireWorkers(scheduler.config());
        return new MarlScheduler(scheduler, false, true);
    }

    /**
     * from(scheduler) returns a Reactor view of a marl scheduler that someone else owns:
     * {@link #dispose()} stops this view and leaves {@code scheduler} open.
     *
     * @param scheduler the marl scheduler to run tasks on; it must have worker threads
     * @return a new Reactor scheduler over {@code scheduler}
     * @throws IllegalArgumentException if {@code scheduler} has no worker threads (Reactor schedules
     *     from arbitrary threads, and such a scheduler only runs tasks on threads bound to it)
     * @throws NullPointerException if {@code scheduler} is null
     */
    public static MarlScheduler from(org.marl4j.Scheduler scheduler) {
        Objects.requireNonNull(scheduler, "scheduler must not be null");
        requireWorkers(scheduler.config());
        return new MarlScheduler(scheduler, false, false);
    }

    /**
     * create(config) starts a marl scheduler that the returned Reactor scheduler owns:
     * {@link #dispose()} closes it in the background. Its worker threads are not daemons (a marl
     * {@link org.marl4j.Scheduler}'s never are), unlike those of Reactor's
     * {@code Schedulers.parallel()}: a MarlScheduler created and never disposed keeps the JVM
     * running after {@code main} returns.
     *
     * @param config the marl scheduler's configuration; it must ask for at least one worker thread
     * @return a new Reactor scheduler over a new marl scheduler
     * @throws IllegalArgumentException if {@code config} has no worker threads
     * @throws IllegalStateException if the JVM lacks {@code --add-exports java.base/jdk.internal.vm=ALL-UNNAMED}
     * @throws NullPointerException if {@code config} is null
     */
    public static MarlScheduler create(org.marl4j.Scheduler.Config config) {
        Objects.requireNonNull(config, "config must not be null: use Scheduler.Config.allCores()");
        requireWorkers(config);
        return new MarlScheduler(new org.marl4j.Scheduler(config), true, false);
    }

    private static void requireWorkers(org.marl4j.Scheduler.Config config) {
        if (config.getWorkerThreadCount() < 1) {
            throw new IllegalArgumentException("a MarlScheduler needs a marl scheduler with worker threads (got "
                    + config.getWorkerThreadCount() + "): Reactor schedules tasks from any thread, and without workers "
                    + "they would only run on threads bound to the scheduler; use Scheduler.Config.allCores() or "
                    + "setWorkerThreadCount(n >= 1)");
        }
    }

    /**
     * scheduler() returns the marl scheduler the tasks run on, for instance to give to
     * {@link Publishers#publish}.
     *
     * @return the underlying marl scheduler (owned or borrowed)
     */
    public org.marl4j.Scheduler scheduler() {
        return marl;
    }

    /**
     * schedule(task) runs {@code task} on a fiber of the marl scheduler as soon as possible.
     *
     * @param task the task; it passes through {@link Schedulers#onSchedule} first
     * @return a handle whose {@code dispose()} cancels the task if it has not started
     * @throws RejectedExecutionException if this scheduler or the marl scheduler is disposed or closed
     * @throws NullPointerException if {@code task} is null
     */
    @Override
    public Disposable schedule(Runnable task) {
        Objects.requireNonNull(task, "task must not be null");
        if (serial != null) {
            return serial.schedule(task);
        }
        OneShot shot = new OneShot(this, Schedulers.onSchedule(task), false);
        execute(shot, true);
        return shot;
    }

    /**
     * schedule(task, delay, unit) runs {@code task} on a fiber once {@code delay} has passed (never
     * earlier), waiting on the marl scheduler's deadline heap; a non-positive delay means as soon as
     * possible.
     *
     * @param task the task; it passes through {@link Schedulers#onSchedule} first
     * @param delay how long to wait before running it
     * @param unit the unit of {@code delay}
     * @return a handle whose {@code dispose()} cancels the task if it has not started
     * @throws RejectedExecutionException if this scheduler or the marl scheduler is disposed or closed
     * @throws NullPointerException if {@code task} or {@code unit} is null
     */
    @Override
    public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
        if (serial != null) {
            return serial.schedule(task, delay, unit);
        }
        long nanos = delayNanos(task, delay, unit);
        if (nanos == 0) {
            return schedule(task);
        }
        OneShot shot = new OneShot(this, Schedulers.onSchedule(task), true);
        executeLater(shot, nanos);
        return shot;
    }

    /**
     * schedulePeriodically(task, initialDelay, period, unit) runs {@code task} after
     * {@code initialDelay}, then at a fixed rate of {@code period} (see the class comment: runs never
     * overlap, a non-positive period repeats at once, a task that throws stops).
     *
     * @param task the task; it passes through {@link Schedulers#onSchedule} once
     * @param initialDelay the delay before the first run (non-positive: as soon as possible)
     * @param period the time between the starts of two runs
     * @param unit the unit of {@code initialDelay} and {@code period}
     * @return a handle whose {@code dispose()} stops further runs
     * @throws RejectedExecutionException if this scheduler or the marl scheduler is disposed or closed
     * @throws NullPointerException if {@code task} or {@code unit} is null
     */
    @Override
    public Disposable schedulePeriodically(Runnable task, long initialDelay, long period, TimeUnit unit) {
        if (serial != null) {
            return serial.schedulePeriodically(task, initialDelay, period, unit);
        }
        long initialNanos = delayNanos(task, initialDelay, unit);
        Periodic periodic = new Periodic(this, null, Schedulers.onSchedule(task), unit.toNanos(period));
        startPeriodic(periodic, initialNanos);
        return periodic;
    }

    /**
     * createWorker() returns a Reactor worker whose tasks run one at a time, in the order they were
     * scheduled (delayed ones when due), each on a fiber of the marl scheduler. A task that suspends
     * its fiber holds the next one back until it has finished, as a blocked thread would. Disposing
     * the worker cancels its pending tasks; afterwards its {@code schedule} methods throw
     * {@link reactor.core.Exceptions#failWithRejected()}. Once this scheduler is disposed or its marl
     * scheduler closed, they throw Reactor's rejection with the reason as its message.
     *
     * @return a new worker over this scheduler
     */
    @Override
    public Worker createWorker() {
        return new MarlWorker(this);
    }

    /**
     * init() checks that this scheduler can be used: it starts running at construction, so there is
     * nothing else to do.
     *
     * @throws IllegalStateException if this scheduler was disposed (Reactor schedulers cannot restart)
     */
    @Override
    public void init() {
        if (state.get() != RUNNING) {
            throw new IllegalStateException(this + " was disposed and cannot be restarted: create a new MarlScheduler");
        }
    }

    /**
     * isDisposed() returns whether {@link #dispose()} or {@link #disposeGracefully()} was called.
     *
     * @return true once disposal has begun (tasks may still be finishing)
     */
    @Override
    public boolean isDisposed() {
        return state.get() != RUNNING;
    }

    /**
     * dispose() is the forceful shutdown: it rejects new tasks from now on and cancels those that
     * have not started. For an owned scheduler it also closes the marl scheduler on a background
     * thread with {@link org.marl4j.Scheduler#close(Duration)}: after a grace of 100 ms, every fiber
     * still suspended in a marl4j wait is resumed with a {@link org.marl4j.FiberCancelledException} so
     * that its task unwinds, and the worker threads end once no task holds them (see the class
     * comment). This also ends a {@link #disposeGracefully()} still waiting. It never blocks and may
     * be called from one of this scheduler's own tasks; calling it again does nothing more.
     */
    @Override
    public void dispose() {
        shutDown(DISPOSED);
        if (owned && forcing.compareAndSet(false, true)) {
            // A graceful close may already be waiting in marl.close(): this second, bounded close
            // cancels the waits it waits for, and both return once the worker threads have ended.
            closeInBackground(() -> marl.close(FORCED_CLOSE_GRACE));
        }
    }

    /**
     * disposeGracefully() returns a lazy Mono that, when subscribed, rejects new tasks, cancels
     * periodic ones, lets queued and delayed tasks run, and completes once all have finished (and
     * an owned marl scheduler has closed). Subscribing never blocks; the Mono may be given a
     * {@code timeout} and subscribed again, and {@link #dispose()} may follow it to cancel what is
     * still pending.
     *
     * @return a Mono that completes when this scheduler has terminated
     */
    @Override
    public Mono<Void> disposeGracefully() {
        return Mono.defer(() -> {
            shutDown(SHUTTING_DOWN);
            return Mono.fromFuture(terminated, true); // a timeout cancels the wait, not the shutdown
        });
    }

    /**
     * scanUnsafe(key) answers the {@link Scannable} attributes Reactor's own schedulers answer:
     * {@link Attr#NAME} (this scheduler's {@code toString()}), {@link Attr#CAPACITY} (the marl
     * scheduler's worker thread count), and {@link Attr#TERMINATED} and {@link Attr#CANCELLED}
     * (whether disposal has begun, as {@link #isDisposed()}); null for any other attribute.
     *
     * @param key the attribute to read
     * @return its value, or null if this scheduler does not report it
     */
    @Override
    @SuppressWarnings("rawtypes") // Scannable declares it with the raw Attr type
    public Object scanUnsafe(Attr key) {
        if (key == Attr.TERMINATED || key == Attr.CANCELLED) {
            return isDisposed();
        }
        if (key == Attr.CAPACITY) {
            return marl.config().getWorkerThreadCount();
        }
        if (key == Attr.NAME) {
            return toString();
        }
        return null;
    }

    @Override
    public String toString() {
        return "MarlScheduler[" + (owned ? "owned" : "borrowed") + (serial != null ? ", serial" : "") + ", " + marl
                + (state.get() == RUNNING ? "" : ", disposed") + "]";
    }

    // ---- internals shared with MarlWorker, OneShot and Periodic ----

    /**
     * delayNanos(task, delay, unit) is the prologue of every delayed and periodic {@code schedule},
     * here and in {@link MarlWorker}: it checks the arguments and returns the delay in nanoseconds,
     * or 0 for a non-positive delay, which means "run as soon as possible".
     */
    static long delayNanos(Runnable task, long delay, TimeUnit unit) {
        Objects.requireNonNull(task, "task must not be null");
        Objects.requireNonNull(unit, "unit must not be null");
        return delay <= 0 ? 0 : Math.max(1, unit.toNanos(delay));
    }

    /** skipsPending() is true once dispose() asked that tasks which have not started never start. */
    boolean skipsPending() {
        return state.get() == DISPOSED;
    }

    /**
     * execute(task, strict) counts and enqueues a one-shot task. strict: a new task from a caller,
     * rejected once disposal began. Not strict: a worker's drain started on behalf of a task that
     * was already counted (a due timer, a task of the same worker), which a graceful shutdown must
     * still let run; only dispose() rejects it.
     */
    void execute(OneShot task, boolean strict) {
        if (strict) {
            accept();
        } else {
            active.incrementAndGet();
            if (state.get() == DISPOSED) {
                ended(null);
                throw new RejectedExecutionException(this + " is disposed");
            }
        }
        try {
            marl.enqueue(new Task(task));
        } catch (RuntimeException rejected) {
            ended(null);
            throw rejectedBy(rejected);
        }
    }

    /** executeLater(task, nanos) counts and puts a one-shot task on the deadline heap. */
    void executeLater(OneShot task, long nanos) {
        accept();
        track(task);
        try {
            task.delayed(marl.enqueue(new Task(task), Duration.ofNanos(nanos)));
        } catch (RuntimeException rejected) {
            ended(task);
            throw rejectedBy(rejected);
        }
    }

    /** startPeriodic(periodic, initialDelayNanos) counts a periodic task once and arms its first run. */
    void startPeriodic(Periodic periodic, long initialDelayNanos) {
        accept();
        track(periodic);
        try {
            periodic.start(initialDelayNanos);
        } catch (RuntimeException rejected) {
            periodic.finish();
            throw rejectedBy(rejected);
        }
    }

    /**
     * enqueue(task, nanos) puts an already counted task back on the marl scheduler (periodic re-arm),
     * always through the deadline heap, even when due now: a closing marl scheduler refuses a new
     * delayed task even from its own tasks, but lets them enqueue plain ones while it drains, so a
     * periodic task re-queued at once (a non-positive period, a late fixed-rate run) would keep a
     * borrowed scheduler's close() waiting for ever.
     */
    DelayedTask enqueue(Runnable task, long nanos) {
        return marl.enqueue(new Task(task), Duration.ofNanos(Math.max(0, nanos)));
    }

    /**
     * track(task) lists a timed task, already accepted, for shutDown to cancel, and cancels it
     * itself if a shutdown that cancels it came between accept() and the listing, whose sweep then
     * missed it (a periodic task would run for ever and termination never come). shutDown writes
     * the state then reads the list; this writes the list then reads the state: one of the two sees
     * the other. The task's own arming then honours the cancel (see OneShot.delayed, Periodic.arm).
     */
    private void track(Timed task) {
        timed.add(task);
        int s = state.get();
        if (s == DISPOSED || (s == SHUTTING_DOWN && task instanceof Periodic)) {
            task.dispose();
        }
    }

    /** accept() counts a new task or rejects it; see shutDown for why the order matters. */
    void accept() {
        active.incrementAndGet();
        if (state.get() != RUNNING) {
            ended(null);
            throw new RejectedExecutionException(this + " is disposed: it accepts no new tasks; create a new MarlScheduler");
        }
    }

    /** ended(task) uncounts a finished or cancelled task; the last one after disposal terminates. */
    void ended(Timed task) {
        if (task != null) {
            timed.remove(task);
        }
        if (active.decrementAndGet() == 0 && state.get() != RUNNING) {
            terminate();
        }
    }

    /**
     * shutDown(target) moves the state forward (never back), cancels what target says, and
     * terminates at once if nothing is left. accept() increments then reads the state; this writes
     * the state then reads the count: with both atomic, either accept sees the new state and
     * rejects, or this sees the task counted and leaves termination to its ended().
     */
    private void shutDown(int target) {
        int current;
        do {
            current = state.get();
            if (current >= target) {
                break;
            }
        } while (!state.compareAndSet(current, target));
        for (Timed task : timed) {
            if (target == DISPOSED || task instanceof Periodic) {
                task.dispose();
            }
        }
        if (active.get() == 0) {
            terminate();
        }
    }

    private void terminate() {
        if (!terminating.compareAndSet(false, true)) {
            return;
        }
        if (!owned) {
            terminated.complete(null);
        } else if (!forcing.get()) {
            closeInBackground(marl::close); // graceful: fibers outside our count (publish producers) may still finish
        } // else dispose()'s forceful close completes termination
    }

    /**
     * closeInBackground(close) runs a close of the owned marl scheduler and then completes
     * termination. close() waits for the workers, and may be reached from one of them (the last
     * task's ended(), a dispose() inside a task): close on a thread of our own so that dispose
     * never blocks or deadlocks.
     */
    private void closeInBackground(Runnable close) {
        Thread.ofPlatform().daemon().name("marl4j-reactive-close").start(() -> {
            try {
                close.run();
                terminated.complete(null);
            } catch (Throwable t) {
                terminated.completeExceptionally(t);
            }
        });
    }

    /**
     * taskFailed(error) reports what a task threw to Reactor's error handling, unless it is the
     * cancellation of its wait by a bounded close of the marl scheduler (dispose()'s forceful close
     * of an owned one, or the owner's close(Duration) of a borrowed one), which is no failure of the
     * task: fiber-core ends such a task quietly too.
     */
    void taskFailed(Throwable error) {
        if (error instanceof FiberCancelledException) {
            return;
        }
        ReactorErrors.handle(error);
    }

    private static RejectedExecutionException rejectedBy(RuntimeException e) {
        if (e instanceof RejectedExecutionException ree) {
            return ree;
        }
        return new RejectedExecutionException("the marl scheduler refused the task: " + e.getMessage(), e);
    }

    /** Timed is a delayed or periodic task that dispose() may have to cancel. */
    interface Timed extends Disposable {}
}
