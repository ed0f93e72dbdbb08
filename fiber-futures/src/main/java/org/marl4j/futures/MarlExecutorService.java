package org.marl4j.futures;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.marl4j.Fiber;
import org.marl4j.FiberCancellation;
import org.marl4j.FiberCancelledException;
import org.marl4j.Scheduler;
import org.marl4j.SuspendedFiber;
import org.marl4j.Task;

/**
 * MarlExecutorService is an {@link ExecutorService} whose tasks run as marl4j tasks on fibers of a
 * {@link Scheduler}: hand it to any code that takes an {@code Executor} or {@code ExecutorService}.
 *
 * <pre>{@code
 * try (MarlExecutorService executor = new MarlExecutorService(Scheduler.Config.allCores())) {
 *     CompletableFuture<Page> page = CompletableFuture.supplyAsync(() -> fetch(url), executor);
 *     Future<Integer> count = executor.submit(() -> Futures.await(page).words());
 *     httpServer.setExecutor(executor);       // every exchange handled on a fiber
 *     httpServer.start();
 *     // ... serve ...
 *     httpServer.stop(1);                     // before close(): a closed executor rejects exchanges
 * }                                            // close(): shutdown, wait, close the scheduler
 * }</pre>
 *
 * <p>Scheduler ownership: {@link #MarlExecutorService(Scheduler.Config)} creates a scheduler that
 * this executor owns and closes once it has terminated; {@link #MarlExecutorService(Scheduler)}
 * borrows one that stays open (and may be shared by several executors and other code). With a
 * borrowed scheduler that has no worker threads, tasks run on the threads bound to it (when they
 * block on a marl4j primitive, including this executor's {@code get()} and
 * {@code awaitTermination}), and may only be submitted from such threads or from its tasks. A
 * borrowed scheduler closed while this executor runs shuts the executor down with it: from the
 * moment its {@link Scheduler#close()} begins it refuses tasks from outside, so
 * {@link #isShutdown()} is true, and the executor terminates once the tasks it accepted have
 * finished (the scheduler's close runs them to the end). Its tasks may still submit to the executor
 * until it has noticed the close: the first rejected task, or a call to {@code isShutdown},
 * {@code isTerminated} or {@code awaitTermination}, makes it refuse them too.
 *
 * <p>Waiting: {@code Future.get()}, {@link #invokeAll}, {@link #invokeAny} and
 * {@link #awaitTermination} called on a fiber suspend only that fiber, so a task may wait for
 * other tasks of the same executor even with a single worker thread. On a plain thread they block
 * and are interruptible; on a fiber they are not interruptible (the worker thread's interrupt
 * status belongs to all its fibers).
 *
 * <p>Cancellation and interrupts: fibers share their worker threads, so interrupting a worker
 * thread would hit whatever other fiber, or idle worker loop, runs there next. So this executor
 * never interrupts a worker thread. It interrupts a fiber that is its own thread (the {@link
 * org.marl4j.FiberEngine#VIRTUAL_THREADS} engine), and a plain thread running a future that
 * {@link #shutdownNow()} handed back, as a pool interrupts its threads. {@code Future.cancel(true)}
 * on a running task also cancels its fiber's waits (a {@link FiberCancellation}): the wait it is
 * suspended in, a {@code Futures.await}, a {@code get()} or a {@link org.marl4j.WaitGroup}, and
 * every later one throw {@link org.marl4j.FiberCancelledException} (a {@code
 * CancellationException}), so the body unwinds as an interrupted one would. Either way a task not yet started never runs, a running one
 * is marked cancelled, its waiters get {@link java.util.concurrent.CancellationException} at once,
 * and its result is dropped; a body that never waits can poll {@code isCancelled()} on its future.
 * {@link #invokeAny} cancels the tasks that lost this way, as {@link #invokeAll(Collection, long,
 * TimeUnit)} does those its timeout cut short, and {@link #shutdownNow()} the running tasks, after
 * taking back the queued ones.
 *
 * <p>Exceptions: a task given to {@link #submit} that throws completes its future exceptionally
 * ({@code get()} throws {@link ExecutionException}); a task given to {@link #execute} that throws
 * is reported to the scheduler's uncaught-exception handler
 * ({@link Scheduler.Config#setUncaughtExceptionHandler}), and the worker carries on.
 *
 * <p>All methods are safe to call from any thread. Calling {@link #close()} from one of this
 * executor's own tasks waits for that task itself and never returns, as with
 * {@code ThreadPoolExecutor}, {@code ForkJoinPool} and the virtual-thread-per-task executor; it
 * logs a warning saying so after a few seconds (logger
 * {@code org.marl4j.futures.MarlExecutorService}). {@link #awaitTermination} called there, or on
 * any fiber of the scheduler this executor owns, waits out its timeout and returns false, as a
 * {@code ThreadPoolExecutor}'s does on one of its own threads: the executor cannot terminate while
 * the caller runs. {@link #close()} called on a fiber of the owned scheduler that is not one of
 * this executor's tasks (a task enqueued on {@link #scheduler()} directly, say) is the one call
 * that returns before {@link #isTerminated()}: it returns once every task of the executor has
 * finished, and the executor terminates by itself once the caller's task has returned (see
 * {@link #close()}).
 */
public final class MarlExecutorService extends AbstractExecutorService {
    /*
     * Implementation overview.
     *
     * ctl packs the SHUTDOWN bit and the number of accepted tasks that have neither finished nor
     * been taken back. execute() increments it with a CAS that fails once SHUTDOWN is set, so no
     * task is accepted after shutdown() returns; onFinish() and shutdownNow() decrement it. The
     * executor terminates on the single transition to ctl == SHUTDOWN (count zero after shutdown):
     * either shutdown() finds the count already zero, or the last decrement after shutdown reaches
     * it. After that no increment can succeed, so the transition happens exactly once.
     *
     * pending holds the submissions accepted and not finished: shutdownNow() takes back those not
     * started (see Submission), because a Scheduler cannot remove a queued task, and cancels the
     * fiber waits of those running.
     *
     * Termination of an owned scheduler: close() on a Scheduler may not be called from its own
     * tasks, and the last task to finish runs on one; so a short-lived closer thread closes it and
     * only then is the executor marked terminated.
     *
     * A scheduler closed under the executor (a borrowed one, by its owner) shuts the executor down,
     * as a shutdown() would. The executor learns of it where it is asked (isShutdown, isTerminated,
     * awaitTermination) or refused (execute), never on the path of an accepted task: the Scheduler
     * has no close callback, and a check per execute() would cost every task for a misuse. An
     * awaitTermination that begins before the close rechecks now and then (CLOSED_SCHEDULER_RECHECK)
     * while the executor is not shut down, a wait that only shutdown() or its timeout could end.
     */
    private static final long SHUTDOWN = 1L << 62;
    /**
     * How often an awaitTermination on an executor that is not shut down checks whether its
     * scheduler was closed (which shuts the executor down): the latency of noticing a close that
     * nothing else reports. Not a hot path: such a wait can otherwise only end by its timeout.
     */
    private static final long CLOSED_SCHEDULER_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** How long close() waits, by default, before it logs what it waits for. */
    private static final Duration CLOSE_WARNING_AFTER = Duration.ofSeconds(5);

    private final Scheduler scheduler;
    private final boolean ownsScheduler;
    /** How long close() waits before it logs what it waits for. */
    private final Duration closeWarningAfter;
    private final AtomicLong ctl = new AtomicLong();
    private final AtomicLong sequence = new AtomicLong();
    private final Set<Submission> pending = ConcurrentHashMap.newKeySet();
    /**
     * Set by shutdownNow() before it scans pending. An execute() accepted before the shutdown whose
     * submission reaches pending only after that scan began reads it afterwards and cancels its own
     * task's waits: either the scan sees the submission or execute() sees this (both are volatile),
     * so no accepted task is left both unreturned and uncancelled.
     */
    private volatile boolean stoppingNow;
    private final Latch terminated = new Latch();
    /** Opened when shut down with every accepted task finished: before an owned scheduler closes. */
    private final Latch drained = new Latch();
    private final Rejections rejections = new Rejections();
    /** Set once the executor shut itself down because its scheduler was closed: what its rejections then say. */
    private volatile boolean schedulerClosedUnderIt;
    private static final System.Logger LOGGER = System.getLogger(MarlExecutorService.class.getName());

    /**
     * MarlExecutorService(config) creates a scheduler from {@code config} that this executor owns:
     * it is closed when the executor terminates.
     *
     * @param config the settings of the scheduler this executor creates and owns
     * @throws IllegalArgumentException if the config has no worker threads: tasks of an owned
     *     scheduler would have no thread to run on (borrow a scheduler with bound threads instead)
     * @throws NullPointerException if config is null
     */
    public MarlExecutorService(Scheduler.Config config) {
        Objects.requireNonNull(config, "config must not be null: use Scheduler.Config.allCores()");
        if (config.getWorkerThreadCount() == 0) {
            throw new IllegalArgumentException("an owned scheduler needs worker threads, but the config has 0: "
                    + "use Scheduler.Config.setWorkerThreadCount(n), or borrow a scheduler bound to your threads");
        }
        this.scheduler = new Scheduler(config);
        this.ownsScheduler = true;
        this.closeWarningAfter = CLOSE_WARNING_AFTER;
    }

    /**
     * MarlExecutorService(scheduler) runs tasks on a scheduler it borrows: shutting the executor
     * down leaves the scheduler open. The caller closes it, after this executor has terminated.
     *
     * @param scheduler the scheduler to run tasks on; it stays open when this executor terminates
     * @throws NullPointerException if scheduler is null
     */
    public MarlExecutorService(Scheduler scheduler) {
        this(scheduler, CLOSE_WARNING_AFTER);
    }

    /** An executor over a borrowed scheduler whose close() warns after closeWarningAfter. */
    MarlExecutorService(Scheduler scheduler, Duration closeWarningAfter) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler must not be null");
        this.ownsScheduler = false;
        this.closeWarningAfter = Objects.requireNonNull(closeWarningAfter, "closeWarningAfter");
    }

    /**
     * scheduler() returns the scheduler this executor runs its tasks on.
     *
     * @return the scheduler this executor runs its tasks on
     */
    public Scheduler scheduler() {
        return scheduler;
    }

    /**
     * ownsScheduler() returns whether this executor created its scheduler and will close it.
     *
     * @return whether this executor closes its scheduler when it terminates
     */
    public boolean ownsScheduler() {
        return ownsScheduler;
    }

    /**
     * execute(command) runs {@code command} as a task on the scheduler. If it throws, the exception
     * goes to the scheduler's uncaught-exception handler.
     *
     * @throws RejectedExecutionException if this executor is shut down, or the scheduler refuses the
     *     task (it is closed, or has no worker threads and the caller is not bound to it)
     * @throws NullPointerException if command is null
     */
    @Override
    public void execute(Runnable command) {
        Objects.requireNonNull(command, "command must not be null");
        if (!tryAccept()) {
            throw schedulerClosedUnderIt ? rejections.schedulerClosed(this, scheduler) : rejections.shutDown(this);
        }
        Submission submission = new Submission(this, command, sequence.getAndIncrement());
        pending.add(submission);
        if (stoppingNow) {
            submission.cancelWaitsFromStart(); // shutdownNow's scan may have missed it
        }
        try {
            scheduler.enqueue(new Task(submission));
        } catch (RuntimeException e) {
            if (!submission.takeBack()) {
                // shutdownNow() took it back first and returned it to its caller, and the owned
                // scheduler closed when the count fell to zero: the task is accounted for there, so
                // rejecting it here too would report it twice.
                return;
            }
            pending.remove(submission);
            release();
            shutDownIfSchedulerClosed(); // a closing scheduler refuses every task from outside: shut down
            throw rejections.refused(this, scheduler, e);
        }
    }

    /**
     * shutdown() stops accepting tasks; tasks already accepted, running or queued, still run. The
     * executor terminates when they have finished (and, if it owns its scheduler, once that is
     * closed). Does not wait: use {@link #awaitTermination} or {@link #close()}.
     */
    @Override
    public void shutdown() {
        long before = ctl.getAndUpdate(c -> c | SHUTDOWN);
        if (before == 0) {
            terminate(); // nothing accepted and unfinished: this was the transition to ctl == SHUTDOWN
        }
    }

    /**
     * shutdownNow() shuts down and takes back every accepted task that has not started, returning
     * them in the order they were accepted (for {@code submit}, the futures it returned). Those
     * tasks will not run unless the caller runs them. Running tasks have their fiber waits cancelled
     * (see the class comment), as {@code ThreadPoolExecutor} interrupts them: the wait each is
     * suspended in, and every later one, throws {@link org.marl4j.FiberCancelledException}. A task
     * that holds its thread without a marl4j wait runs to the end.
     */
    @Override
    public List<Runnable> shutdownNow() {
        shutdown();
        stoppingNow = true;
        List<Submission> taken = new ArrayList<>();
        for (Submission submission : pending) {
            if (submission.takeBack()) {
                pending.remove(submission);
                taken.add(submission);
            } else {
                submission.cancelWaits();
            }
        }
        taken.sort(Comparator.comparingLong(s -> s.sequence));
        List<Runnable> tasks = new ArrayList<>(taken.size());
        for (Submission submission : taken) {
            tasks.add(submission.task);
            release();
        }
        return tasks;
    }

    /**
     * isShutdown() returns whether this executor accepts no new task: {@link #shutdown()},
     * {@link #shutdownNow()} or {@link #close()} has been called, or its scheduler's
     * {@link Scheduler#close()} has begun (a borrowed scheduler closed by its owner), which shuts
     * the executor down as shutdown() would.
     */
    @Override
    public boolean isShutdown() {
        return shutDownIfSchedulerClosed();
    }

    /**
     * isTerminated() returns whether the executor is shut down, every accepted task has finished or
     * been taken back, and an owned scheduler has been closed. (Called from a fiber of the owned
     * scheduler, it cannot be true yet: see {@link #close()}.)
     */
    @Override
    public boolean isTerminated() {
        if (!terminated.isOpen()) {
            shutDownIfSchedulerClosed();
        }
        return terminated.isOpen();
    }

    /**
     * shutDownIfSchedulerClosed() shuts this executor down if its scheduler's close has begun, and
     * returns whether the executor is shut down. A closing scheduler refuses tasks from outside it,
     * so the executor could accept none of those anyway; shutting down also lets it terminate once
     * its tasks have finished, which the scheduler's close waits for.
     */
    private boolean shutDownIfSchedulerClosed() {
        if ((ctl.get() & SHUTDOWN) != 0) {
            return true;
        }
        if (!scheduler.isClosed()) {
            return false;
        }
        schedulerClosedUnderIt = true;
        shutdown();
        return true;
    }

    /**
     * awaitTermination(timeout, unit) waits until {@link #isTerminated()} or the timeout, and
     * returns whether the executor terminated: true only if {@code isTerminated()} is. On a fiber it
     * suspends only the fiber, so the scheduler's other tasks and fibers run meanwhile.
     *
     * <p>Called on a fiber of the scheduler this executor owns (one of its tasks, or any other task
     * of that scheduler), it cannot see the executor terminate: termination includes closing that
     * scheduler, which waits for the caller's own fiber. So, as a {@code ThreadPoolExecutor}'s
     * awaitTermination called on one of its own threads, it waits out the timeout and returns false
     * (an unbounded timeout waits forever). Once the caller's fiber has returned, the executor
     * terminates by itself. To wait there for the tasks only, use {@link #close()}, or wait for
     * their futures.
     *
     * <p>Called before the executor is shut down, it also returns true if its scheduler is closed
     * meanwhile (which shuts the executor down) and the tasks finish: it notices that close within
     * some 20 ms.
     *
     * <p>Called on a fiber whose waits are cancelled (see {@link FiberCancellation}), it returns true
     * if the executor has already terminated, and otherwise throws
     * {@link FiberCancelledException} as an interrupted thread's throws InterruptedException: at
     * once (an elapsed timeout still just returns false), leaving the executor as it was (it does not shut it down).
     *
     * @throws InterruptedException if a plain thread is interrupted while waiting
     * @throws FiberCancelledException if the calling fiber's waits are cancelled and the executor
     *     has not terminated
     */
    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit must not be null");
        // A negative timeout means none left; clamping it keeps nanos - elapsed from wrapping round to
        // a huge positive wait at Long.MIN_VALUE (toNanos saturates, so Long.MAX_VALUE cannot wrap).
        long nanos = Math.max(0, unit.toNanos(timeout));
        long start = System.nanoTime();
        // Not shut down: only a shutdown() (which opens the latch once the tasks are done) or a close
        // of the scheduler, which nothing reports, can end the wait before its timeout.
        while (!shutDownIfSchedulerClosed()) {
            long left = nanos - (System.nanoTime() - start);
            if (left <= 0) {
                return terminated.isOpen();
            }
            if (terminated.await(Math.min(left, CLOSED_SCHEDULER_RECHECK_NANOS))) {
                return true;
            }
        }
        return terminated.await(nanos - (System.nanoTime() - start));
    }

    /**
     * Whether the caller is a fiber of the scheduler this executor owns. Such a caller cannot wait
     * for the scheduler to close (close waits for that very fiber), so close() waits there only for
     * the last task: the scheduler then closes by itself once the caller's fiber has finished.
     */
    private boolean onOwnedSchedulersFiber() {
        return ownsScheduler && Fiber.current() != null && Scheduler.get() == scheduler;
    }

    /**
     * close() is {@link ExecutorService#close()}: shuts down and waits until terminated. If a plain
     * thread is interrupted while waiting, it calls {@link #shutdownNow()}, keeps waiting, and
     * returns with the interrupt status set. Does nothing if already terminated.
     *
     * <p>Called from one of this executor's own tasks, it waits for that task, that is for itself,
     * and never returns, as {@code ThreadPoolExecutor}'s, {@code ForkJoinPool}'s and the
     * virtual-thread-per-task executor's do (after five seconds it logs that it waits for itself).
     *
     * <p>Called on a fiber of the scheduler this executor owns that is not one of its tasks (a task
     * enqueued on {@link #scheduler()} directly, a {@code Futures.supplyAsync} on it), it cannot wait
     * for termination either: termination closes that scheduler, which waits for the caller's own
     * fiber, so waiting for it would never end. Rather than hang, it returns once the executor is
     * shut down and every task it accepted has finished (or was taken back by shutdownNow), with the
     * owned scheduler's close under way: {@link #isShutdown()} is then true and
     * {@link #isTerminated()} still false; the executor terminates by itself once the caller's task
     * has returned. Over a borrowed scheduler there is no such case: close() returns terminated.
     *
     * <p>Called on a fiber whose waits are cancelled (inside a cancelled {@link FiberCancellation}, as
     * in a task cancelled with {@code cancel(true)} or {@code shutdownNow()}, or on a fiber of a
     * scheduler closing with {@link Scheduler#close(Duration)}), it cannot wait at all: every wait
     * of that fiber throws {@link FiberCancelledException}. It then does what an interrupted
     * thread's close does first: it calls {@link #shutdownNow()}, so queued tasks never run and
     * running ones have their fiber waits cancelled. If that ended every task (for an owned
     * scheduler outside its fibers: terminated it), close returns normally; otherwise it throws
     * {@link FiberCancelledException} without waiting, with the executor shut down and terminating
     * as its remaining tasks finish. The fiber's waits stay cancelled either way, as an interrupted
     * close leaves the interrupt status set.
     *
     * <p>A close still waiting after five seconds logs, once, at WARNING how many tasks it waits for,
     * where the scheduler's suspended fibers wait, and (called on one of its fibers) that a close
     * from one of the executor's tasks waits for itself.
     */
    @Override
    public void close() {
        if (isTerminated()) {
            return;
        }
        shutdown();
        Latch done = onOwnedSchedulersFiber() ? drained : terminated;
        boolean interrupted = false;
        boolean warned = false;
        while (true) {
            try {
                if (warned) {
                    done.await();
                    break;
                }
                if (done.await(closeWarningAfter.toNanos())) {
                    break;
                }
                warned = true;
                boolean onSchedulersFiber = Fiber.current() != null && Scheduler.get() == scheduler;
                LOGGER.log(System.Logger.Level.WARNING, () -> closeWaitReport(onSchedulersFiber));
            } catch (InterruptedException e) {
                if (!interrupted) {
                    shutdownNow();
                    interrupted = true;
                }
            } catch (FiberCancelledException cancelled) {
                // The fiber's waits are cancelled: every later wait would throw at once, so unlike an
                // interrupted thread it cannot keep waiting. It stops the tasks as the interrupt would
                // and gives up, unless that was enough to end them.
                shutdownNow();
                if (done.isOpen()) {
                    break;
                }
                FiberCancelledException gaveUp = new FiberCancelledException("close() of " + this
                        + " gave up waiting: the calling fiber's waits are cancelled (a cancelled FiberCancellation, "
                        + "or its scheduler closing). It called shutdownNow(): queued tasks were dropped and running "
                        + "ones had their fiber waits cancelled; wait for termination from a fiber or thread that "
                        + "can still wait (awaitTermination)");
                gaveUp.initCause(cancelled);
                throw gaveUp;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * closeWaitReport(onSchedulersFiber) is what a close still waiting logs: how many tasks it waits
     * for, where the scheduler's suspended fibers wait, and the ways out. Only a caller on one of the
     * scheduler's fibers may be one of the tasks, and so wait for itself.
     */
    private String closeWaitReport(boolean onSchedulersFiber) {
        StringBuilder report = new StringBuilder("close() of ").append(this).append(" has waited ")
                .append(closeWarningAfter.toMillis()).append(" ms for ").append(ctl.get() & ~SHUTDOWN)
                .append(" unfinished task(s). The suspended fibers of its scheduler:\n");
        List<SuspendedFiber> suspended = scheduler.suspendedFibers();
        suspended.forEach(report::append);
        if (suspended.isEmpty()) {
            // On the scheduler's fiber the caller, one of the tasks, is running this report, so it is not listed.
            report.append(onSchedulersFiber ? "(none but the fiber calling close(), one of the unfinished tasks)\n"
                    : "(none: the tasks hold their threads, a blocking call outside marl4j, say)\n");
        }
        if (onSchedulersFiber) {
            report.append("close() was called on a fiber of that scheduler: called from one of the executor's own "
                    + "tasks, it waits for itself and never returns; close the executor from outside its tasks. ");
        }
        return report.append("Wake what the tasks wait for; to give up on suspended ones, close the scheduler with "
                + "Scheduler.close(Duration) (executor.scheduler()), which cancels their waits.").toString();
    }

    /**
     * invokeAny(tasks) runs the tasks and returns the result of one that completed successfully,
     * cancelling the others; a fiber caller suspends meanwhile.
     *
     * @throws ExecutionException if every task failed (the cause is one of their failures)
     * @throws IllegalArgumentException if tasks is empty
     */
    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        try {
            return InvokeAny.invoke(this, tasks, false, 0);
        } catch (TimeoutException impossible) {
            throw new AssertionError("untimed invokeAny timed out", impossible);
        }
    }

    /** invokeAny(tasks, timeout, unit) is {@link #invokeAny(Collection)} that gives up after the timeout. */
    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        Objects.requireNonNull(unit, "unit must not be null");
        return InvokeAny.invoke(this, tasks, true, unit.toNanos(timeout));
    }

    /**
     * submit(task) runs {@code task} and returns a future of its completion (null on success).
     *
     * @param task the task to run
     * @return a future that completes when the task returns or throws
     * @throws RejectedExecutionException as {@link #execute} does
     * @throws NullPointerException if task is null
     */
    @Override
    public Future<?> submit(Runnable task) {
        Objects.requireNonNull(task, "task must not be null");
        return super.submit(task);
    }

    /**
     * submit(task, result) runs {@code task} and returns a future of {@code result}.
     *
     * @param task the task to run
     * @param result the value the future completes with when the task returns
     * @param <T> the result's type
     * @return a future of {@code result}
     * @throws RejectedExecutionException as {@link #execute} does
     * @throws NullPointerException if task is null
     */
    @Override
    public <T> Future<T> submit(Runnable task, T result) {
        Objects.requireNonNull(task, "task must not be null");
        return super.submit(task, result);
    }

    /**
     * submit(task) runs {@code task} and returns a future of its value.
     *
     * @param task the task to run
     * @param <T> the task's result type
     * @return a future of the task's value
     * @throws RejectedExecutionException as {@link #execute} does
     * @throws NullPointerException if task is null
     */
    @Override
    public <T> Future<T> submit(Callable<T> task) {
        Objects.requireNonNull(task, "task must not be null");
        return super.submit(task);
    }

    // invokeAll is AbstractExecutorService's: it waits with Future.get() on our futures, so a fiber
    // caller suspends. Overridden only to name a null argument.

    /**
     * invokeAll(tasks) runs every task and returns their futures, all done, in the same order; a
     * fiber caller suspends meanwhile.
     *
     * @param tasks the tasks to run
     * @param <T> the tasks' result type
     * @return the tasks' futures, all done
     * @throws InterruptedException if a plain thread is interrupted while waiting
     * @throws NullPointerException if tasks or one of its tasks is null (the message names its index)
     */
    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks) throws InterruptedException {
        return super.invokeAll(checkTasks(tasks));
    }

    /**
     * invokeAll(tasks, timeout, unit) is {@link #invokeAll(Collection)} that cancels the tasks not
     * done when the timeout elapses.
     *
     * @param tasks the tasks to run
     * @param timeout how long to wait at most, in {@code unit}s
     * @param unit the unit of {@code timeout}
     * @param <T> the tasks' result type
     * @return the tasks' futures, all done or cancelled
     * @throws InterruptedException if a plain thread is interrupted while waiting
     * @throws NullPointerException if tasks, one of its tasks or unit is null
     */
    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException {
        Objects.requireNonNull(unit, "unit must not be null");
        return super.invokeAll(checkTasks(tasks), timeout, unit);
    }

    private static <C extends Collection<?>> C checkTasks(C tasks) {
        Objects.requireNonNull(tasks, "tasks must not be null");
        int i = 0;
        for (Object task : tasks) {
            if (task == null) {
                throw new NullPointerException("tasks contains null at index " + i);
            }
            i++;
        }
        return tasks;
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
        return new MarlFuture<>(java.util.concurrent.Executors.callable(runnable, value), null);
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Callable<T> callable) {
        return new MarlFuture<>(callable, null);
    }

    // ---------------------------------------------------------------- task accounting

    /** tryAccept() counts one more unfinished task, unless shut down. */
    private boolean tryAccept() {
        while (true) {
            long c = ctl.get();
            if ((c & SHUTDOWN) != 0) {
                return false;
            }
            if (ctl.compareAndSet(c, c + 1)) {
                return true;
            }
        }
    }

    /** release() counts one task as finished or taken back; the last one after shutdown terminates. */
    private void release() {
        if (ctl.decrementAndGet() == SHUTDOWN) {
            terminate();
        }
    }

    /** Called by a started Submission when its task returns or throws. */
    void onFinish(Submission submission) {
        pending.remove(submission);
        release();
    }

    /** terminate() runs once, on the transition to ctl == SHUTDOWN. */
    private void terminate() {
        drained.open();
        if (!ownsScheduler) {
            terminated.open();
            return;
        }
        Thread closer = new Thread(() -> {
            try {
                scheduler.close();
            } finally {
                terminated.open();
            }
        }, "marl-executor-closer");
        closer.start();
    }

    @Override
    public String toString() {
        long c = ctl.get();
        String state = terminated.isOpen() ? "terminated" : (c & SHUTDOWN) != 0 ? "shutting down" : "running";
        return "MarlExecutorService@" + Integer.toHexString(System.identityHashCode(this)) + "[" + state
                + ", unfinished tasks = " + (c & ~SHUTDOWN) + ", " + (ownsScheduler ? "owns " : "borrows ") + scheduler + "]";
    }
}
