package org.marl4j;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

/**
 * A Scheduler runs {@link Task}s on fibers over a fixed set of worker threads, and on the
 * application threads bound to it: Google marl's {@code marl::Scheduler} on Loom continuations.
 *
 * <pre>{@code
 * try (Scheduler scheduler = new Scheduler(Scheduler.Config.allCores())) {
 *     scheduler.bind();                      // this thread may now use Marl.schedule(...)
 *     WaitGroup done = new WaitGroup(10);
 *     for (int i = 0; i < 10; i++) {
 *         Marl.schedule(() -> { work(); done.done(); });
 *     }
 *     done.await();                          // runs queued tasks here if there are no workers
 * }                                          // close() unbinds this thread first, even on an exception
 * }</pre>
 *
 * <p>A task runs inline on a worker's current fiber. When it blocks on a marl4j primitive
 * ({@link WaitGroup}, {@link Event}, {@link ConditionVariable}, {@link Mutex}, {@link Fiber#await})
 * only its fiber is suspended: the worker switches to a ready fiber, else to an idle one, else to a
 * new one, and keeps running tasks. Idle workers spin briefly and steal tasks from one another.
 *
 * <p>With zero worker threads, tasks run only on the threads bound to the scheduler, when those
 * threads block on a marl4j primitive and at {@link #unbind()}.
 *
 * <p>A task that holds its worker thread without suspending (it blocks the thread, or computes for
 * long) does not strand the tasks queued behind it: the scheduler's monitor thread notices a worker
 * that has made no progress for a few milliseconds and wakes an idle worker to take them, and
 * reports a task that holds its thread longer than {@link Config#setBlockingTaskThreshold} (JFR
 * event {@code org.marl4j.TaskBlocking}, {@link Stats#tasksBlocking()}).
 *
 * <p>All methods are safe to call from any thread. Tasks are started in no particular order across
 * workers. The continuation API needs the JVM flag {@code --add-exports
 * java.base/jdk.internal.vm=ALL-UNNAMED}; without it the constructor throws
 * {@link IllegalStateException} naming the flag.
 */
public final class Scheduler implements AutoCloseable {
    /*
     * Implementation overview. This class is the public surface and the hooks workers call back;
     * the parts live in package-private classes beside it:
     * - Worker: one per worker thread or bound thread, its fibers and its run loop (its javadoc is
     *   the overview of fibers and scheduling); Work: its queues and lock, and every call other
     *   threads make on it.
     * - IdleWorkers: which workers spin or sleep, and their steals. Monitor: the thread that hands
     *   on tasks stranded behind a stalled worker and reports blocking tasks.
     * - TaskPlacement: which worker takes each enqueued task, now or delayed (a worker's own tasks
     *   stay on it, others go to a spinning worker or round-robin), and the refusals.
     * - BoundThreads: the register of bound threads, the closing flag, and close's wait for unbinds.
     * - WorkerPolicies: one SchedulingPolicy per worker, refusing a factory that shares one.
     * - Closing: close() itself (refusing a close that waits for itself, stopping and joining the
     *   workers, the reports it logs, the cancelling at close(Duration)'s timeout); CloseWatch
     *   says when to log and when to cancel.
     */
    /** The most worker threads a scheduler may have, as in marl. */
    public static final int MAX_WORKER_THREADS = 256;

    private final Config config;
    private final Worker[] workers;
    /** Which workers spin or sleep for want of work, and the steals they make; see {@link IdleWorkers}. */
    final IdleWorkers idle;
    private final AtomicInteger liveWorkers;
    /** Which worker takes each enqueued task; see {@link TaskPlacement}. */
    private final TaskPlacement placement;
    /** Each worker's scheduling policy, one instance per live worker. */
    private final WorkerPolicies policies;
    /** How close() goes, with the monitor it stops last. */
    private final Closing closing;
    final long spinNanos;
    final boolean checkLocks;
    /** How this scheduler's fibers suspend and resume. */
    private final FiberEngine fiberEngine;

    /** The threads bound to this scheduler; closing once close() has begun, after which only the scheduler's own threads may enqueue. */
    private final BoundThreads bound = new BoundThreads(this);

    /**
     * Scheduler(config) creates a scheduler and starts its worker threads, and, if it has any, the
     * monitor thread that watches them ({@code <thread name prefix>monitor}, a daemon). The worker
     * threads are not daemons, like a {@code ThreadPoolExecutor}'s: a scheduler nobody closes keeps
     * the JVM running, even after {@code main} ended with an exception or an
     * {@code OutOfMemoryError}. Close it in a {@code finally} or try-with-resources block, or, for a
     * scheduler that lives as long as the JVM, make them daemons ({@link Config#setDaemon}).
     *
     * <p>If the constructor fails after it has started some worker threads (the affinity policy
     * throws for a later worker, or the JVM cannot create another thread), it stops and joins the
     * threads it started before the exception reaches the caller: no thread outlives a failed
     * constructor, except one still in its {@link Config#setWorkerThreadInitializer initializer}
     * after the close warning's delay (waiting, say, for a lock the caller holds), which is named in
     * a suppressed exception and ends by itself once its initializer returns.
     *
     * @param config the settings; copied, so later changes to it do not affect this scheduler
     * @throws IllegalStateException if the config's {@link FiberEngine} (or, if it names none,
     *     {@link FiberEngine#defaultEngine()}) is not available: the JVM lacks the flag it needs,
     *     {@code --add-opens java.base/java.lang=ALL-UNNAMED} for virtual threads or
     *     {@code --add-exports java.base/jdk.internal.vm=ALL-UNNAMED} for continuations; the message
     *     names it
     * @throws IllegalArgumentException if the scheduling policy factory returns the same instance
     *     twice, or if the affinity policy throws a {@link RuntimeException} (its cause) for a worker
     *     id; an {@link Error} from the policy reaches the caller as it is
     */
    public Scheduler(Config config) {
        Objects.requireNonNull(config, "config must not be null: use Scheduler.Config.allCores() or new Scheduler.Config()");
        this.fiberEngine = config.fiberEngine == null
                ? FiberEngine.defaultEngine()
                : config.fiberEngine.requireAvailable("Scheduler.Config.setFiberEngine(" + config.fiberEngine + ")");
        this.config = config.copy();
        this.spinNanos = this.config.spinDuration.toNanos();
        this.checkLocks = LockCheck.enabled();
        int count = this.config.workerThreadCount;
        policies = new WorkerPolicies(this, this.config.schedulingPolicy);
        workers = new Worker[count];
        idle = new IdleWorkers(workers);
        liveWorkers = new AtomicInteger(count);
        placement = new TaskPlacement(this, workers, idle, liveWorkers, bound);
        for (int i = 0; i < count; i++) {
            workers[i] = new Worker(this, i, Worker.Mode.MULTI_THREADED, false);
        }
        policies.probeShared(count);
        // A threshold of ~292 years or more does not fit in nanoseconds: it means never.
        long thresholdNanos = this.config.blockingTaskThreshold.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0
                ? Long.MAX_VALUE : this.config.blockingTaskThreshold.toNanos();
        Monitor monitor = count == 0 ? null : new Monitor(this, workers, thresholdNanos,
                this.config.strandedWarningAfter.toNanos(), this.config.threadNamePrefix + "monitor");
        closing = new Closing(this, workers, bound, monitor, this.config.closeWarningAfter.toNanos());
        try {
            for (Worker worker : workers) {
                worker.start(this.config.threadNamePrefix + worker.id, affinityOf(worker.id));
            }
            if (monitor != null) {
                monitor.start();
            }
        } catch (Throwable t) {
            // Nobody holds this scheduler to close it: the worker threads already started would run
            // for ever, and (unless configured as daemons) keep the JVM alive.
            closing.abandonStart(t);
            throw t;
        }
    }

    /**
     * affinityOf(workerId) asks the affinity policy for a worker's CPUs on the constructing thread,
     * as marl's Worker::start does, so that a policy that throws fails the constructor rather than
     * a worker thread: null for no pinning.
     */
    private Affinity affinityOf(int workerId) {
        Affinity.Policy policy = config.affinityPolicy;
        if (policy == null) {
            return null;
        }
        try {
            return policy.get(workerId);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("the affinity policy " + policy + " threw for worker " + workerId
                    + ", so no scheduler was created (the worker threads already started were stopped): "
                    + "a policy must answer every worker id from 0 to " + (workers.length - 1)
                    + ", with null for no pinning", e);
        }
    }

    /**
     * get() returns the scheduler bound to the calling thread (or whose worker it is), or null.
     *
     * @return the calling thread's scheduler, or null
     */
    public static Scheduler get() {
        Worker worker = Worker.current();
        return worker == null ? null : worker.scheduler;
    }

    /**
     * config() returns a copy of the configuration this scheduler was built with.
     *
     * @return a copy of the configuration
     */
    public Config config() {
        return config.copy();
    }

    /**
     * bind() binds this scheduler to the calling thread, giving it a single-threaded worker: tasks
     * it enqueues with {@link Task.Flag#SAME_THREAD} (or any task, if there are no worker threads)
     * run on this thread when it blocks on a marl4j primitive, and at {@link #unbind()}.
     *
     * <p>The returned {@link Binding} unbinds when closed, for try-with-resources; ignoring it and
     * calling {@link #unbind()} (or letting {@link #close()} on this thread unbind) is the same.
     *
     * @return the binding, whose {@link Binding#close()} is this thread's {@link #unbind()}
     * @throws IllegalStateException if the thread is already bound or the scheduler is closed
     */
    public Binding bind() {
        Worker existing = Worker.current();
        if (existing != null) {
            throw new IllegalStateException(existing.scheduler == this
                    ? "this thread is already bound to " + this + ": bind() once, and unbind() before binding again"
                    : "this thread is already bound to " + existing.scheduler + ": unbind() it before binding another scheduler");
        }
        if (fiberEngine == FiberEngine.VIRTUAL_THREADS && Thread.currentThread().isVirtual()) {
            throw new IllegalStateException("bind() on a virtual thread (" + Thread.currentThread() + "): the "
                    + FiberEngine.VIRTUAL_THREADS + " engine carries fibers on platform threads only. Bind a platform"
                    + " thread, enqueue the work from here instead, or use FiberEngine.CONTINUATIONS");
        }
        return new Binding(bound.bind(false));
    }

    /**
     * bindForBlockingCall() binds the thread of a {@link Marl#blockingCall} even while the scheduler
     * closes: its caller is a blocked fiber, which keeps its worker (and so the scheduler) running
     * until the call has unbound.
     */
    void bindForBlockingCall() {
        bound.bind(true);
    }

    /**
     * unbind() runs every task and blocked fiber of the calling thread's worker to completion, then
     * unbinds this scheduler from the thread. Must be called by the bound thread itself, outside of
     * any task. Like {@link #close()}, it waits as long as it takes, but not silently: after the
     * same few seconds it logs, once, at WARNING, the fibers of its worker still suspended.
     *
     * @throws IllegalStateException if this scheduler is not bound to the calling thread, if that
     *     thread is one of its worker threads, or if called from a task running on the bound thread
     */
    public void unbind() {
        Worker worker = Worker.current();
        if (worker == null || worker.scheduler != this) {
            throw new IllegalStateException("unbind() called on thread " + Thread.currentThread().getName()
                    + ", which is not bound to " + this + ": call bind() on this thread first");
        }
        if (worker.mode == Worker.Mode.MULTI_THREADED) {
            throw new IllegalStateException("unbind() called on worker thread " + Thread.currentThread().getName()
                    + ": worker threads stay bound to their scheduler until close()");
        }
        if (worker.current != worker.main) {
            throw new IllegalStateException("unbind() called from a task running on the bound thread: call it "
                    + "from the thread's own code, after the tasks it waits for");
        }
        unbind(worker, CloseWatch.forUnbind(worker, config.closeWarningAfter.toNanos()));
    }

    /** unbind(worker, watch) drains and unbinds the calling thread's worker, under an unbind's or a close's watch. */
    void unbind(Worker worker, CloseWatch watch) {
        try {
            worker.stopSingleThreaded(watch);
        } finally {
            bound.unbound(Thread.currentThread());
        }
    }

    /**
     * enqueue(task) schedules a task to run on a worker thread, or, with zero worker threads, on the
     * calling thread's bound worker. A {@link Task.Flag#SAME_THREAD} task stays on the calling
     * thread's worker. After {@link #close()} has begun, only this scheduler's own tasks and bound
     * threads may enqueue.
     *
     * <p>Which worker: a task enqueued from one of this scheduler's worker threads (by a task or
     * fiber running there) goes onto that worker's own queue, behind its other tasks, and stays
     * stealable: an idle worker is woken to take it if nobody spins, and thieves take half of a
     * burst, but leave a busy worker's only fresh task to it for a moment unless that worker has
     * made no progress (it may be blocked). marl instead spreads every enqueue round-robin; that
     * sent each hop of a chain (a coroutine resuming its peer, a handler passing a message on) to
     * another thread's cold cache and kept the maker's thread spinning for work: a Kotlin Channel
     * ping-pong ran ~10x slower so. Tasks enqueued from other threads still go to a recently
     * spinning worker, else round-robin, as in marl.
     *
     * @param task the task to run
     * @throws RejectedExecutionException if the scheduler is closed
     * @throws IllegalStateException if the task needs a worker of the calling thread and it has none
     */
    public void enqueue(Task task) {
        Objects.requireNonNull(task, "task must not be null");
        if (workers.length > 0 && !bound.closing() && !task.is(Task.Flag.SAME_THREAD)) {
            // The common cases need no thread-local lookup: a worker thread is known by its class. A
            // virtual thread may be a fiber of one of this scheduler's workers: the lookup below tells.
            Thread t = Thread.currentThread();
            if (t instanceof WorkerThread w && w.worker.scheduler == this) {
                placement.enqueueOnOwnWorker(w.worker, task);
                return;
            }
            if (!t.isVirtual()) {
                placement.enqueueOnWorkerThreads(task);
                return;
            }
        }
        Worker own = placement.ownWorkerOrReject();
        if (task.is(Task.Flag.SAME_THREAD) || workers.length == 0) {
            Worker worker = placement.requireOwn(own, task);
            worker.work.enqueue(task, worker);
        } else if (own != null && own.mode == Worker.Mode.MULTI_THREADED) {
            placement.enqueueOnOwnWorker(own, task);
        } else {
            placement.enqueueOnWorkerThreads(task);
        }
    }

    /**
     * enqueue(task, delay) schedules a task to run once {@code delay} has passed, on the worker
     * {@link #enqueue(Task)} would choose, and returns a handle that can cancel it until it starts.
     * The task waits in its worker's deadline heap: no timer thread is involved. A zero or negative
     * delay means as soon as possible. As with {@code ScheduledThreadPoolExecutor.shutdown()}:
     * delayed tasks still pending when {@link #close()} begins run when due, and close() waits for
     * them (cancel them first to close sooner; {@link #close(Duration)} drops them at its timeout),
     * but no new delayed task is accepted once close() has begun, not even from this scheduler's
     * own tasks. So a task that re-arms itself (a periodic timer, a retry loop with a delay) ends
     * at close instead of keeping it open.
     *
     * @param task the task to run
     * @param delay how long to wait before it may run
     * @return a handle that can cancel the task until it starts
     * @throws RejectedExecutionException if close() has begun
     * @throws IllegalStateException if the task needs a worker of the calling thread and it has none
     */
    public DelayedTask enqueue(Task task, Duration delay) {
        Objects.requireNonNull(task, "task must not be null");
        long deadline = Fiber.deadlineAfter(Objects.requireNonNull(delay, "delay must not be null"));
        if (bound.closing()) {
            throw new RejectedExecutionException(this + " is closing: it accepts no new delayed task, as a "
                    + "ScheduledThreadPoolExecutor after shutdown() (the delayed tasks already pending still run)");
        }
        Worker own = placement.ownWorkerOrReject();
        if (task.is(Task.Flag.SAME_THREAD) || workers.length == 0) {
            return TaskPlacement.delayOn(placement.requireOwn(own, task), task, deadline);
        }
        if (own != null && own.mode == Worker.Mode.MULTI_THREADED) {
            // As enqueue(task): a task made on a worker stays on it (a running worker has not stopped).
            return TaskPlacement.delayOn(own, task, deadline);
        }
        return placement.delayOnWorkerThreads(task, deadline);
    }

    /**
     * close() is marl's destructor: it waits until every thread bound to this scheduler has called
     * {@link #unbind()}, then lets every worker finish its queued tasks and blocked fibers (which may
     * enqueue further tasks) and waits for the worker threads to end. New tasks from other threads
     * are rejected from the moment close() begins. Calling close() again has no further effect.
     *
     * <p>Called on a thread bound to this scheduler, it unbinds that thread first (running its
     * remaining tasks), so {@code try (Scheduler s = ...) { s.bind(); ... }} needs no
     * {@code unbind()}, and the binding never keeps close from ending when the body throws. Fibers
     * the body left waiting for it (it threw before it signalled them) are waited for like any
     * suspended fiber (below), and the body's exception reaches the caller after that: where the
     * body may throw so, close with {@link #close(Duration)}.
     *
     * <p>close() waits as long as it takes, as marl does, but never silently: once it has waited a
     * few seconds it logs, once, at WARNING through {@link System.Logger} (logger
     * {@code org.marl4j.Scheduler}), what it is waiting for: the {@link #suspendedFibers()}, pending
     * delayed tasks, threads still bound, and the stack of each worker busy in a task. To give up
     * on suspended fibers and delayed tasks, use {@link #close(Duration)}. A bound thread that
     * ended without {@link #unbind()} is not waited for: close logs it, with the tasks it left.
     * Delayed tasks: see {@link #enqueue(Task, Duration)}. An interrupt does not end the wait:
     * close returns once it is done, with the thread's interrupt status set again (to give up on
     * suspended fibers, use {@link #close(Duration)}).
     *
     * @throws IllegalStateException if called from one of this scheduler's tasks or inside a
     *     {@link Marl#blockingCall} of one, which would wait for itself
     */
    @Override
    public void close() {
        closing.closeWithin(-1);
    }

    /**
     * close(timeout) is {@link #close()} that gives up after {@code timeout}: every fiber of this
     * scheduler still suspended in a wait on a marl4j primitive is then resumed with a
     * {@link FiberCancelledException} thrown from that wait, so it unwinds and its {@code finally}
     * blocks run, and every later wait of this scheduler's fibers throws one at once; every delayed
     * task still pending is cancelled ({@link DelayedTask#isCancelled()}, and its
     * {@link DelayedTask#onDrop} action runs), as {@code ScheduledThreadPoolExecutor.shutdownNow()} drops
     * its queue; close then completes once
     * the tasks have unwound, and logs at WARNING what it cancelled. A task that holds its thread
     * without waiting (a loop, a blocking call outside marl4j) cannot be cancelled: close still waits
     * for it, and logs its stack. Bound threads are cancelled too, but close still waits for each
     * to unbind.
     *
     * @param timeout how long to wait for fibers to be woken before cancelling their waits; zero
     *     cancels at once
     * @throws IllegalArgumentException if timeout is negative
     * @throws IllegalStateException as {@link #close()}
     */
    public void close(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout must not be null: use close() to wait as long as it takes");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("close timeout must not be negative, was " + timeout);
        }
        // The timeout itself, not a deadline minus a later clock reading: close(1 s) logs "close(1000 ms)".
        closing.closeWithin(Fiber.timeoutNanos(timeout));
    }

    /**
     * isClosed() returns whether {@link #close()} (or {@link #close(Duration)}) has begun. From then
     * on the scheduler accepts new tasks only from its own tasks and bound threads, and no new
     * {@link #bind()}; it may still be running the tasks it accepted before, which close() waits for.
     * (A close() called on a bound thread first unbinds that thread, running the tasks queued on it:
     * isClosed() turns true once that is done.)
     *
     * @return whether close has begun
     */
    public boolean isClosed() {
        return bound.closing();
    }

    /**
     * stats() returns this scheduler's counters and gauges, summed over its worker threads and its
     * bound threads (past and present for the counters, present for the gauges). Counting costs the
     * workers no fences or atomics, so while the scheduler runs the figures are read racily and may
     * lag by a few events (a gauge may be off by one for a moment); after {@link #close()} the
     * counters are exact. Cheap enough to call at every metrics scrape: it takes no worker's lock.
     *
     * @return a snapshot of the counters and gauges
     */
    public Stats stats() {
        StatsTotals totals = new StatsTotals();
        for (Worker worker : workers) {
            worker.addStatsTo(totals);
        }
        int boundThreads = bound.addStatsTo(totals);
        return totals.toStats(workers.length, boundThreads);
    }

    /**
     * suspendedFibers() lists every fiber of this scheduler that is suspended in a wait, with where it
     * waits, for hunting deadlocks: the fibers of each worker thread, then those of each bound thread
     * (including a bound thread itself, as its {@code "main fiber"}, while it blocks in a marl4j wait).
     * Print it with {@code scheduler.suspendedFibers().forEach(System.err::println)}, which looks like
     * a thread dump. Each worker's part is a consistent snapshot, taken under that worker's lock: the
     * worker stalls while its fibers' stacks are walked, so this is a diagnostic, not for hot paths.
     * Idle fibers (with no task) are not listed. May be called from any thread, including a task.
     *
     * @return the suspended fibers, as a new list
     */
    public List<SuspendedFiber> suspendedFibers() {
        List<SuspendedFiber> all = new ArrayList<>();
        for (Worker worker : workers) {
            SuspendedFiber.addSuspendedOf(worker, all);
        }
        bound.snapshot().values().forEach(worker -> SuspendedFiber.addSuspendedOf(worker, all));
        return all;
    }

    /**
     * Stats is a snapshot of a scheduler's counters (totals since it started, which only grow) and
     * gauges (what is true now).
     *
     * @param tasksRun counter: tasks started by any worker (a {@link Fiber#yield()} that had work to yield
     *     to counts one: it queues a task that resumes the fiber)
     * @param tasksCompleted counter: started tasks whose body has returned or thrown; {@code tasksRun
     *     - tasksCompleted} are in progress, running or suspended in a wait
     * @param tasksQueued gauge: tasks queued to start, not yet started (neither the fibers ready to
     *     resume nor the delayed tasks whose time has not come)
     * @param tasksRunning gauge: worker and bound threads now running a task (rather than idle, or
     *     running a bound thread's own code); at most {@code workerThreads + boundThreads}
     * @param tasksStolen counter: tasks an idle worker thread took from another worker's queue
     * @param tasksBlocking counter: tasks seen holding a worker thread without suspending for longer
     *     than {@link Config#setBlockingTaskThreshold} (each also recorded as a JFR
     *     {@code org.marl4j.TaskBlocking} event, with the worker's stack)
     * @param fibersCreated counter: fibers ever created; steady-state work reuses idle ones
     * @param fibersIdle gauge: fibers now idle, kept for reuse
     * @param fibersBlocked gauge: fibers now suspended in a wait (including a bound thread's own, while
     *     it waits)
     * @param idleSleeps counter: times a worker thread or bound thread, out of work, went to sleep
     *     (rather than finding work while it spun), so that the next task or wake-up for it had to
     *     signal its thread: compared with the tasks run or the fibers woken, it says how often
     *     hand-offs between threads cost a thread wake-up
     * @param timeSpinning counter: time worker threads spent spinning for work before sleeping
     * @param workerThreads gauge: the scheduler's worker threads ({@link Config#getWorkerThreadCount()})
     * @param boundThreads gauge: threads bound to the scheduler now ({@link #bind()}, and the threads of
     *     {@link Marl#blockingCall} while they run)
     */
    public record Stats(long tasksRun, long tasksCompleted, int tasksQueued, int tasksRunning, long tasksStolen,
            long tasksBlocking, long fibersCreated, int fibersIdle, int fibersBlocked, long idleSleeps,
            Duration timeSpinning, int workerThreads, int boundThreads) {}

    /**
     * A Binding is the result of {@link Scheduler#bind()}: closing it unbinds the thread, so a
     * binding fits try-with-resources.
     *
     * <pre>{@code
     * try (Scheduler scheduler = new Scheduler(config);
     *      Scheduler.Binding binding = scheduler.bind()) {
     *     Marl.schedule(task);
     * }   // unbinds (running this thread's remaining tasks), then closes
     * }</pre>
     *
     * <p>Misuse: close a binding on the thread that bound it, from that thread's own code, not from
     * one of its tasks (an {@link IllegalStateException} otherwise, as for {@link #unbind()}).
     * Closing a binding whose thread has already unbound (by {@link #unbind()}, by
     * {@link Scheduler#close()} on that thread, or by an earlier close of the binding) does nothing,
     * even if the thread has bound again since: a binding only ever unbinds its own bind().
     */
    public static final class Binding implements AutoCloseable {
        private final Worker worker;

        private Binding(Worker worker) {
            this.worker = worker;
        }

        /**
         * close() unbinds this binding's thread, as {@link Scheduler#unbind()} does, unless it has
         * unbound already.
         *
         * @throws IllegalStateException if called on another thread than the one that bound, or
         *     from one of the bound thread's tasks
         */
        @Override
        public void close() {
            if (worker.thread() != Thread.currentThread()) {
                throw new IllegalStateException("a Scheduler.Binding must be closed on the thread that bound it ("
                        + worker.thread().getName() + "), not on " + Thread.currentThread().getName());
            }
            if (Worker.current() == worker) {
                worker.scheduler.unbind();
            }
        }

        @Override
        public String toString() {
            return "Binding[" + worker.thread().getName() + " to " + worker.scheduler + "]";
        }
    }

    // ---------------------------------------------------------------- called by workers

    /** worker(i) is worker thread i's worker: for tests that must place a task on a given worker. */
    Worker worker(int i) {
        return workers[i];
    }

    void onWorkerStopped() {
        liveWorkers.decrementAndGet();
    }

    /** newPolicy() makes the scheduling policy of a new worker; see {@link WorkerPolicies#newPolicy()}. */
    SchedulingPolicy newPolicy() {
        return policies.newPolicy();
    }

    /** releasePolicy(worker) takes back the scheduling policy of a bound worker that has unbound. */
    void releasePolicy(Worker worker) {
        policies.release(worker);
    }

    /**
     * initializeWorkerThread(workerId, affinity) is the start of a worker thread: it pins the thread
     * to the CPUs its policy gave (the constructor asked it) and runs the configured initializer.
     */
    void initializeWorkerThread(int workerId, Affinity affinity) {
        if (affinity != null) {
            try {
                affinity.applyToCurrentThread(); // logs rather than throws where pinning fails
            } catch (Throwable t) {
                // An Error from the native backend (its class failing to initialize, say) must not
                // kill the thread before its loop, stranding the tasks queued on it: report it, and
                // the worker runs unpinned.
                reportUncaught(t);
            }
        }
        if (config.workerThreadInitializer != null) {
            try {
                config.workerThreadInitializer.accept(workerId);
            } catch (Throwable t) {
                reportUncaught(t);
            }
        }
    }

    /**
     * reportUncaught(t) hands a task's exception to the configured handler, else to the thread's own
     * (or the JVM's default handler); the worker keeps running. With none of those set, it prints
     * the trace itself rather than let the JDK print "Exception in thread "main"", which reads as if
     * that thread had died when it goes on running tasks.
     */
    void reportUncaught(Throwable t) {
        Thread thread = Thread.currentThread();
        Thread.UncaughtExceptionHandler handler = config.uncaughtExceptionHandler != null
                ? config.uncaughtExceptionHandler
                : thread.getUncaughtExceptionHandler();
        // A plain ThreadGroup as the handler means the thread has none of its own: with no
        // JVM-wide default either, the group would print the JDK's line.
        boolean jdkWouldPrint = handler == null
                || handler.getClass() == ThreadGroup.class && Thread.getDefaultUncaughtExceptionHandler() == null;
        if (jdkWouldPrint) {
            printQuietly(thread, "the thread goes on", t, null);
            return;
        }
        try {
            handler.uncaughtException(thread, t);
        } catch (Throwable handlerFailure) {
            // The JVM prints a failing handler's exception; the task's, which the handler never
            // reported, is printed too, so that neither is lost.
            printQuietly(thread, "which its uncaught-exception handler failed to report", t, handlerFailure);
        }
    }

    /** printQuietly(...) prints a task's exception (and its handler's) to System.err; a failing print must not take the worker down. */
    private static void printQuietly(Thread thread, String note, Throwable t, Throwable handlerFailure) {
        try {
            System.err.print("Exception in a marl4j task on thread \"" + thread.getName() + "\" (" + note + "): ");
            t.printStackTrace(System.err);
            if (handlerFailure != null) {
                System.err.print("Exception thrown from the uncaught-exception handler (the thread goes on): ");
                handlerFailure.printStackTrace(System.err);
            }
        } catch (Throwable ignored) {
            // Nowhere left to report to.
        }
    }

    /**
     * fiberEngine() is how this scheduler's fibers suspend and resume: the config's engine, or
     * {@link FiberEngine#defaultEngine()} if it named none.
     *
     * @return the fiber engine in use
     */
    public FiberEngine fiberEngine() {
        return fiberEngine;
    }

    /** boundThreadWatch() is the watch of this scheduler's bound threads: the config's. */
    BoundThreadWatch boundThreadWatch() {
        return config.boundThreadWatch;
    }

    @Override
    public String toString() {
        return "Scheduler@" + Integer.toHexString(System.identityHashCode(this))
                + "[workers=" + workers.length + ", " + fiberEngine + (bound.closing() ? ", closed" : "") + "]";
    }

    /**
     * Config holds a scheduler's settings; setters return {@code this} for chaining. A scheduler
     * copies its config when it is constructed.
     *
     * <p>marl's fiber stack size and allocator have no equivalent here: a fiber's frames live on its
     * worker thread's stack while it runs and move to the heap, at their real size, when it
     * suspends.
     */
    public static final class Config {
        private int workerThreadCount;
        private IntConsumer workerThreadInitializer;
        private Duration spinDuration = Duration.ofMillis(1);
        private Thread.UncaughtExceptionHandler uncaughtExceptionHandler;
        private String threadNamePrefix = "marl-worker-";
        private boolean daemon;
        private Affinity.Policy affinityPolicy;
        /** The default policy factory, one instance, so toString() can tell it from a custom one. */
        private static final Supplier<? extends SchedulingPolicy> DEFAULT_POLICY = FifoPolicy::new;
        private Supplier<? extends SchedulingPolicy> schedulingPolicy = DEFAULT_POLICY;
        private Duration blockingTaskThreshold = Duration.ofMillis(100);
        private FiberEngine fiberEngine;
        /** How long close() waits before it logs the suspended fibers; settable by tests only. */
        Duration closeWarningAfter = Duration.ofSeconds(5);
        /** How long a stall must strand queued work before the monitor logs it; settable by tests only. */
        Duration strandedWarningAfter = Duration.ofSeconds(5);
        /** The watch of the scheduler's bound threads: the JVM's one, or a test's own. */
        BoundThreadWatch boundThreadWatch = BoundThreadWatch.JVM;

        /** Config() creates a config with zero worker threads: tasks run only on bound threads. */
        public Config() {}

        /**
         * allCores() is a config with one worker thread per available processor (logical CPU), at
         * most {@value #MAX_WORKER_THREADS}, as marl caps its own.
         *
         * @return a new config
         */
        public static Config allCores() {
            return new Config().setWorkerThreadCount(Math.min(Runtime.getRuntime().availableProcessors(), MAX_WORKER_THREADS));
        }

        /**
         * setWorkerThreadCount(count) sets the number of worker threads, 0 to {@value #MAX_WORKER_THREADS}.
         *
         * @param count the number of worker threads
         * @return this config
         */
        public Config setWorkerThreadCount(int count) {
            if (count < 0 || count > MAX_WORKER_THREADS) {
                throw new IllegalArgumentException("worker thread count must be between 0 and "
                        + MAX_WORKER_THREADS + ", was " + count);
            }
            this.workerThreadCount = count;
            return this;
        }

        /**
         * setWorkerThreadInitializer(initializer) sets code run first on each worker thread, given
         * the worker's id (0 to count-1). If it throws, the exception is reported to the uncaught
         * exception handler and the worker starts anyway.
         *
         * @param initializer run on each worker thread as it starts, given the worker's id
         * @return this config
         */
        public Config setWorkerThreadInitializer(IntConsumer initializer) {
            this.workerThreadInitializer = Objects.requireNonNull(initializer, "initializer must not be null");
            return this;
        }

        /**
         * setSpinDuration(duration) sets how long an idle worker thread spins, looking for and
         * stealing work, before it sleeps (marl: 1 ms). Zero disables spinning; a sleeping worker
         * still wakes to take a task queued behind a busy or blocked worker.
         *
         * @param duration the spin time; zero turns spinning off
         * @return this config
         */
        public Config setSpinDuration(Duration duration) {
            Objects.requireNonNull(duration, "spin duration must not be null");
            if (duration.isNegative() || duration.compareTo(Duration.ofSeconds(1)) > 0) {
                throw new IllegalArgumentException("spin duration must be between 0 and 1 second, was " + duration);
            }
            this.spinDuration = duration;
            return this;
        }

        /**
         * setUncaughtExceptionHandler(handler) sets who hears about tasks that throw. By default, the
         * uncaught-exception handler of the thread the task ran on, or the JVM's default handler;
         * with neither set, the trace is printed to {@code System.err} after
         * {@code Exception in a marl4j task on thread "name" (the thread goes on):} (where the JDK
         * would print {@code Exception in thread "name"}, which reads as if the thread had died).
         * The worker keeps running either way.
         * If the handler itself throws, both its exception and the task's are printed to
         * {@code System.err} (the JVM prints a failing thread handler's exception) and the worker
         * goes on.
         *
         * @param handler hears about tasks that throw
         * @return this config
         * @throws NullPointerException if handler is null (the default is to leave it unset)
         */
        public Config setUncaughtExceptionHandler(Thread.UncaughtExceptionHandler handler) {
            this.uncaughtExceptionHandler = Objects.requireNonNull(handler, "handler must not be null");
            return this;
        }

        /**
         * setThreadNamePrefix(prefix) names worker threads prefix + id (default {@code "marl-worker-"}).
         *
         * @param prefix the start of every worker thread's name
         * @return this config
         */
        public Config setThreadNamePrefix(String prefix) {
            this.threadNamePrefix = Objects.requireNonNull(prefix, "thread name prefix must not be null");
            return this;
        }

        /**
         * setDaemon(daemon) makes the worker threads daemons, or not (the default, as a
         * {@code ThreadPoolExecutor}'s; Reactor's {@code Schedulers.newParallel(name, n, daemon)}
         * offers the same choice). Daemon workers do not keep the JVM alive: for a scheduler that
         * lives as long as the application and is never closed, at the price that the JVM may exit
         * with tasks still queued or fibers suspended. Whatever this says, the thread that creates
         * the scheduler does not pass its own status on.
         *
         * @param daemon whether the worker threads are daemons
         * @return this config
         */
        public Config setDaemon(boolean daemon) {
            this.daemon = daemon;
            return this;
        }

        /**
         * setFiberEngine(engine) chooses how the scheduler's fibers suspend and resume (see
         * {@link FiberEngine}); null, the default, means {@link FiberEngine#defaultEngine()}: the
         * {@code org.marl4j.fiberEngine} system property, else virtual threads if the JVM allows them,
         * else continuations. The scheduler's constructor fails, naming the JVM flag, if the engine
         * is not available.
         *
         * @param engine the engine, or null for the default
         * @return this config
         */
        public Config setFiberEngine(FiberEngine engine) {
            this.fiberEngine = engine;
            return this;
        }

        /**
         * getFiberEngine() returns the engine set with {@link #setFiberEngine}, or null if none was
         * (the scheduler then uses {@link FiberEngine#defaultEngine()}).
         *
         * @return the engine, or null for the default
         */
        public FiberEngine getFiberEngine() {
            return fiberEngine;
        }

        /**
         * isDaemon() returns whether the worker threads are daemons (false unless set).
         *
         * @return whether the worker threads are daemons
         */
        public boolean isDaemon() {
            return daemon;
        }

        /**
         * setAffinityPolicy(policy) pins each worker thread, as it starts, to the CPUs that
         * {@code policy.get(workerId)} names (marl's {@code Thread::Affinity::Policy}), e.g.
         * {@code Affinity.Policy.oneOf(Affinity.all())} for one CPU per worker. The
         * {@link Scheduler#Scheduler(Config) constructor} asks the policy, on its own thread, as it
         * starts each worker; a policy that throws makes the constructor throw (having stopped the
         * workers it started). Threads that call
         * {@link Scheduler#bind()} are never pinned. Where pinning is unsupported (see
         * {@link Affinity#isSupported()}) the policy is a no-op, logged once. Default: no pinning.
         *
         * @param policy the affinity policy
         * @return this config
         * @throws NullPointerException if policy is null (no pinning is the default: leave it unset)
         */
        public Config setAffinityPolicy(Affinity.Policy policy) {
            this.affinityPolicy = Objects.requireNonNull(policy, "affinity policy must not be null");
            return this;
        }

        /**
         * setSchedulingPolicy(factory) sets how each worker orders its ready fibers and queued
         * tasks: the factory is called once per worker (worker threads and bound threads) for a
         * {@link SchedulingPolicy} of its own. Default {@code FifoPolicy::new}, marl's order;
         * {@code PriorityPolicy::new} runs higher-priority work first.
         *
         * @param factory makes one policy per worker
         * @return this config
         */
        public Config setSchedulingPolicy(Supplier<? extends SchedulingPolicy> factory) {
            this.schedulingPolicy = Objects.requireNonNull(factory, "scheduling policy factory must not be null");
            return this;
        }

        /**
         * setBlockingTaskThreshold(threshold) sets how long a task may hold its worker thread
         * without suspending its fiber before the scheduler reports it (default 100 ms): counted in
         * {@link Stats#tasksBlocking()} and recorded as a JFR {@code org.marl4j.TaskBlocking} event
         * with the worker's stack, once per such task. Tasks that block their thread on purpose
         * belong in {@link Marl#blockingCall}. Independent of this setting, tasks queued behind
         * such a task are handed to idle workers after a few milliseconds.
         *
         * @param threshold at least 1 ms; a duration too long to count in nanoseconds (~292 years)
         *     means never
         * @return this config
         * @throws IllegalArgumentException if threshold is shorter than 1 ms
         */
        public Config setBlockingTaskThreshold(Duration threshold) {
            Objects.requireNonNull(threshold, "blocking task threshold must not be null");
            if (threshold.compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException("blocking task threshold must be at least 1 ms, was " + threshold);
            }
            this.blockingTaskThreshold = threshold;
            return this;
        }

        /**
         * getBlockingTaskThreshold() returns how long a task may hold its thread before it is reported.
         *
         * @return the threshold
         */
        public Duration getBlockingTaskThreshold() {
            return blockingTaskThreshold;
        }

        /**
         * getAffinityPolicy() returns the worker threads' affinity policy, or null if they are not pinned.
         *
         * @return the affinity policy, or null
         */
        public Affinity.Policy getAffinityPolicy() {
            return affinityPolicy;
        }

        /**
         * getWorkerThreadCount() returns the number of worker threads.
         *
         * @return the worker thread count
         */
        public int getWorkerThreadCount() {
            return workerThreadCount;
        }

        /**
         * getSpinDuration() returns how long an idle worker thread spins before it sleeps.
         *
         * @return the spin duration; zero if spinning is off
         */
        public Duration getSpinDuration() {
            return spinDuration;
        }

        /**
         * getThreadNamePrefix() returns the start of every worker thread's name.
         *
         * @return the thread name prefix
         */
        public String getThreadNamePrefix() {
            return threadNamePrefix;
        }

        /**
         * getWorkerThreadInitializer() returns the code run first on each worker thread, or null if
         * there is none.
         *
         * @return the initializer, or null
         */
        public IntConsumer getWorkerThreadInitializer() {
            return workerThreadInitializer;
        }

        /**
         * getUncaughtExceptionHandler() returns who hears about tasks that throw, or null for the
         * default: the uncaught-exception handler of the thread the task ran on.
         *
         * @return the handler, or null for the default
         */
        public Thread.UncaughtExceptionHandler getUncaughtExceptionHandler() {
            return uncaughtExceptionHandler;
        }

        /**
         * getSchedulingPolicy() returns the factory that makes each worker's scheduling policy
         * ({@code FifoPolicy::new} unless set).
         *
         * @return the policy factory
         */
        public Supplier<? extends SchedulingPolicy> getSchedulingPolicy() {
            return schedulingPolicy;
        }

        /**
         * toString() names every setting, the defaults included, for logs and debugging; a setting
         * that is code (initializer, handler, policy factory, affinity policy) shows as "default" or
         * "custom".
         *
         * @return the settings, as {@code Scheduler.Config[workerThreads=2, spin=PT0.001S, ...]}
         */
        @Override
        public String toString() {
            return "Scheduler.Config[workerThreads=" + workerThreadCount + ", spin=" + spinDuration
                    + ", threadNamePrefix=" + threadNamePrefix + ", daemon=" + daemon + ", blockingTaskThreshold=" + blockingTaskThreshold
                    + ", initializer=" + (workerThreadInitializer == null ? "none" : "custom")
                    + ", uncaughtExceptionHandler=" + (uncaughtExceptionHandler == null ? "default" : "custom")
                    + ", affinity=" + (affinityPolicy == null ? "none" : "custom")
                    + ", schedulingPolicy=" + (schedulingPolicy == DEFAULT_POLICY ? "FifoPolicy" : "custom")
                    + ", fiberEngine=" + (fiberEngine == null ? "default" : fiberEngine) + "]";
        }

        Config copy() {
            Config c = new Config();
            c.workerThreadCount = workerThreadCount;
            c.workerThreadInitializer = workerThreadInitializer;
            c.spinDuration = spinDuration;
            c.uncaughtExceptionHandler = uncaughtExceptionHandler;
            c.threadNamePrefix = threadNamePrefix;
            c.daemon = daemon;
            c.affinityPolicy = affinityPolicy;
            c.schedulingPolicy = schedulingPolicy;
            c.blockingTaskThreshold = blockingTaskThreshold;
            c.fiberEngine = fiberEngine;
            c.closeWarningAfter = closeWarningAfter;
            c.strandedWarningAfter = strandedWarningAfter;
            c.boundThreadWatch = boundThreadWatch;
            return c;
        }
    }
}
