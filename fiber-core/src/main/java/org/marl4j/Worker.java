package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.Lock;
import org.marl4j.WaitQueue.Waiter;
import org.marl4j.Work.WakeInbox;
import org.marl4j.Work.WorkerLock;

/**
 * A Worker runs tasks and fibers on one thread: marl's {@code Scheduler::Worker}. Here are the
 * owner's run loop, how a fiber suspends and resumes (marl's {@code Worker::suspend}), and how the
 * owner waits for work (marl's {@code waitForWork}); what other threads touch, and the lock, is its
 * {@link Work} (marl's {@code Worker::Work}).
 *
 * <h2>Implementation overview</h2>
 *
 * <p><b>Modes.</b> A multi-threaded worker (MTW) owns a {@link WorkerThread}. A single-threaded
 * worker (STW) is created by {@link Scheduler#bind()} for the calling thread; its tasks run only
 * when that thread blocks on a marl4j primitive, and at {@link Scheduler#unbind()}.
 *
 * <p><b>Fibers and the trampoline.</b> Loom continuations are asymmetric: a yield returns to
 * whoever resumed. So the worker thread's own stack is the "main fiber" and acts as trampoline
 * ({@link #trampoline()}): it picks the next fiber and resumes it; a fiber that suspends yields
 * back to it. Every continuation fiber runs the worker loop ({@link #runUntilShutdown}); tasks run
 * inline on whichever fiber is running that loop, so a task that never blocks costs no switch. On
 * an MTW the trampoline is the thread's whole body. On an STW the main fiber is the application's
 * own stack: when it blocks, it runs the trampoline in place until it is itself woken; at unbind()
 * it runs it until the worker has drained, so its remaining tasks run on fibers too.
 *
 * <p><b>Two fiber engines</b> ({@link FiberEngine}), one trampoline. A fiber's {@link Fiber.Stack}
 * is a raw continuation ({@link FiberContinuation}) or a virtual thread whose scheduler is this
 * worker ({@link VirtualFiber}); the trampoline resumes either the same way, and either yields back
 * to it. A virtual thread also comes back when it blocks in the JDK: the trampoline then finds it
 * still RUNNING, suspends it ({@link #blockedInJdk}) and goes on with other work; the JDK's wake-up
 * reaches this worker as a {@link Work#wake}. Such a fiber never sleeps for work on the worker's
 * condition (its park would unmount it): it goes idle, and the trampoline sleeps.
 *
 * <p><b>The worker lock across a suspend.</b> As in marl, the lock ({@code work.lock}) is held
 * across fiber switches: {@link #suspend(Fiber, boolean, long)} is entered with it held, the fiber
 * yields with it held, and the fiber resumed next continues holding it (and releases it when it
 * runs a task or sleeps). A wake takes the lock or goes through the inbox that the owner drains
 * under it, so it only ever sees a waiter before it decided to suspend or once it is fully
 * suspended; waking a RUNNING or QUEUED fiber changes no state, as in marl. User code never runs
 * with the lock held except a {@link SchedulingPolicy}, whose calls {@link Work} makes safe.
 *
 * <p><b>Parking without the lock.</b> The untimed waits of a fiber's own node ({@link #park}: an
 * {@link Event}, a {@link FiberCallback}) and of a future ({@link FiberWaits#awaitDone}) yield
 * without taking the lock ({@link #suspend(Fiber, Waiter, int)}), leaving on the worker what ends
 * the wait ({@link #parking}: the node, or the wake epoch the fiber read). The trampoline, back on
 * the thread's own stack, takes the lock and does what the fiber would have done under it ({@link
 * #parkYielded}): resume the fiber at once if the wait has ended meanwhile, else mark it YIELDED and
 * list it. The fiber stays RUNNING until then, so a wake in between changes no state but bumps the
 * epoch (or finds {@code notified} set), which the trampoline then sees; and the fiber resumes
 * without the lock, which the trampoline releases for it. Why: the lock's code, the state change
 * and the listing then run in the trampoline's frames, not the fiber's, so they are not in its
 * stack chunk (see Memory). A main fiber (no continuation), a pinned yield and a JFR recording of
 * {@link FiberSuspendEvent} take the locked way.
 *
 * <p><b>Lost wake-ups, and one departure from marl.</b> marl's waiter takes the worker lock
 * <em>before</em> releasing the user's lock, so no waker can slip in between. marl4j cannot: the
 * user's lock may be a {@link Mutex}, whose unlock wakes the next owner's fiber and so takes a
 * worker lock, perhaps this one (a self-deadlock; the lock is not reentrant) or another worker's
 * (lock-order inversion). So no worker lock is ever held while user code or a user lock runs.
 * Instead, a wait samples its fiber's {@code wakeEpoch} while it still holds the user's lock,
 * before it evaluates its predicate ({@link FiberWaits#await}); every wake bumps the epoch under
 * the worker lock; the waiter, now under the worker lock, suspends only if the epoch is unchanged.
 * A waker that made the predicate true under the user's lock has therefore either bumped the epoch
 * already or finds the fiber suspended. The primitives' nodes ({@link Waiter}) use a per-wait
 * {@code notified} flag, set before the wake, the same way. Wakes from other threads go through the
 * {@link WakeInbox}, and the argument still holds: the waiter either sees the bump of a drain that
 * came first or suspends, and then the wake is still in the inbox, where this thread finds it
 * before it next sleeps or runs another fiber. Every check that may refuse a wait ({@link
 * #checkMaySuspend}: the lock check, cancellation) runs before the waiter can be notified, so a
 * refused wait never swallows a notification meant for another waiter; a cancellation that comes
 * later, in {@link #suspend}, may find the waiter notified already, and the primitive passes that
 * notification on ({@link WaitQueue#leave}).
 *
 * <p><b>Memory.</b> A suspended fiber's cost is mostly its continuation's stack chunk, which the
 * JVM sizes from the frames between the continuation's entry and {@code Continuation.yield}: the
 * run loop, the user's task, and the wait. So the wait paths allocate nothing per wait (a fiber is
 * its own waiter node: see {@link Waiter}), the run loop keeps only a small frame below the task
 * ({@link #runUntilShutdown}), and every frame or live local added between a wait and the yield
 * costs every suspended fiber (see benchmarks' {@code MemoryBenchmark}). A static method moved to
 * another class costs nothing; an extra call layer does.
 *
 * <p><b>Cancellation.</b> {@link Closing#cancelWaits} (a bounded close giving up) resumes every
 * suspended fiber with a {@link FiberCancelledException} and makes every later wait throw one, so
 * the worker drains. A {@link FiberCancellation} does the same for one fiber while the scope is
 * open: its cancel() counts itself in the fiber's {@code cancelledScopes} under this worker's lock
 * and then wakes the fiber, so the check in {@link #suspend} (under the lock, before and after the
 * switch) sees it whether the cancel came before the fiber suspended or while it was suspended.
 *
 * <p><b>Waiting for work</b> ({@link #waitForWork()}). An MTW out of work first spins and steals
 * ({@link Spinning}, whose overview says why), then sleeps on its work's condition ({@link
 * Work#sleep}); each time it wakes it drains the inboxes, expires deadlines, answers the steal
 * requests of the monitor and of enqueuers ({@link #sleepForWork()}), and acts on a due {@link
 * CloseWatch}.
 *
 * <p><b>Shutdown.</b> A worker runs until it is told to shut down and has no tasks, no ready fibers,
 * no blocked fibers and no delayed tasks (which run when due, as after {@code
 * ScheduledThreadPoolExecutor.shutdown()}); then it marks itself {@code stopped} under the lock, so
 * enqueuers move on.
 *
 * <p><b>Pinning.</b> If the JVM cannot yield a fiber (a native frame or class initializer on its
 * stack), the fiber blocks the worker thread for that one wait ({@link PinnedWait}), running the
 * worker's stealable tasks meanwhile, since one of them may be its waker.
 */
final class Worker implements Runnable {
    enum Mode { MULTI_THREADED, SINGLE_THREADED }

    /** The worker of the current thread when it is a bound (single-threaded worker) thread. */
    private static final ThreadLocal<Worker> BOUND = new ThreadLocal<>();

    private static final System.Logger LOG = System.getLogger(Scheduler.class.getName());

    /**
     * The most idle fibers a worker keeps for reuse; a fiber that would go idle beyond this ends
     * instead. marl keeps every one, but a suspended-then-idle continuation holds its saved stack on
     * the heap, and FanOutBenchmark (100,000 fibers blocked at once) spent a third of its time in GC
     * walking them. Steady-state work with up to this many fibers blocked still creates none.
     */
    private static final int MAX_IDLE_FIBERS = 64;

    /**
     * The {@link #parking} mark of a wait on the wake epoch ({@link FiberWaits#awaitDone}): the fiber
     * is to stay suspended unless its epoch has moved from {@link #parkingEpoch}. Never queued nor
     * notified.
     */
    static final Waiter EPOCH_WAIT = new Waiter.ThreadWaiter(null);

    final Scheduler scheduler;
    final int id;
    final Mode mode;
    /** The queues other threads touch, and the lock that guards them and this worker's fields marked with it. */
    final Work work;
    /** True for the worker of a {@link Marl#blockingCall}'s thread. */
    final boolean forBlockingCall;
    /**
     * The cancelled {@link FiberCancellation}s of this worker's fibers beyond the
     * {@link Fiber#MAX_CANCELLED_SCOPES} that a fiber's byte counts: kept here, not in every fiber,
     * since nesting that deep is rare. Null until needed.
     */
    @GuardedBy("work.lock")
    Map<Fiber, Integer> moreCancelledScopes;
    /** True if this worker's fibers are virtual threads ({@link FiberEngine#VIRTUAL_THREADS}), false for continuations. */
    final boolean virtualFibers;
    final WorkerStats stats = new WorkerStats();
    /** How this worker spins for work and steals before it sleeps: see {@link Spinning}. Its thread only, as a thief. */
    final Spinning spinning;
    private final long spinNanos;
    private final boolean checkLocks;
    /** With checkLocks: locks the bound thread already held at bind(), which the check ignores. */
    private Set<Integer> locksHeldAtBind = Set.of();
    /**
     * The thread that runs this worker's loop, once it runs: a wake() from any other thread goes
     * through the {@link WakeInbox}. Set by that thread before it takes the lock for the first time.
     */
    volatile Thread ownerThread;

    /**
     * The waiter (or {@link #EPOCH_WAIT}) of the fiber that yields to park without the lock
     * ({@link #suspend(Fiber, Waiter, int)}), for the trampoline to take once the yield returns;
     * null otherwise. Its thread only.
     */
    Waiter parking;
    /** With {@link #EPOCH_WAIT} in {@link #parking}: the wake epoch the parking fiber read. Its thread only. */
    int parkingEpoch;
    /** A ready fiber already taken from the policy, for the trampoline to resume next. */
    @GuardedBy("work.lock")
    private Fiber handoff;
    @GuardedBy("work.lock")
    private final ArrayDeque<Fiber> idleFibers = new ArrayDeque<>();
    /** Set when the worker loop ended because the worker shut down and drained. */
    @GuardedBy("work.lock")
    private boolean drained;
    /** Set once the worker has drained, while its idle fibers are ended ({@link #endIdleFibers}). */
    @GuardedBy("work.lock")
    private boolean endingIdleFibers;
    /** A bound thread was interrupted while it slept for work: its status is restored after the wait. */
    @GuardedBy("work.lock")
    private boolean interruptedWhileAsleep;
    /**
     * For an STW draining in unbind() (or close()): when to log the suspended fibers, and (close)
     * when to cancel them. Set by {@link #stopSingleThreaded}.
     */
    @GuardedBy("work.lock")
    private CloseWatch closeWatch;

    // Touched only by this worker's thread.
    /** The fiber running on this worker's thread; the main fiber when the trampoline runs; null during a pinned wait's task. */
    Fiber current;
    /** While a pinned wait runs a task inline ({@code current} is null): what owns the task's Mutexes. */
    Object inlineOwner;
    Fiber main;
    /**
     * The worker's thread (see {@link #thread()}): written once, before the thread starts (a worker
     * thread) or by the binding thread before other threads can reach the worker (a bound one); read
     * by the monitor and by close() too.
     */
    private Thread thread;
    /** Made by {@link #fiberThreadName()} on this worker's thread, once its thread is known. */
    private String fiberThreadName;
    /** Which internal errors of this worker's thread are reported: not every one of a burst. */
    private final ErrorBursts errorBursts = new ErrorBursts();

    Worker(Scheduler scheduler, int id, Mode mode, boolean forBlockingCall) {
        this.scheduler = scheduler;
        this.id = id;
        this.mode = mode;
        this.forBlockingCall = forBlockingCall;
        this.virtualFibers = scheduler.fiberEngine() == FiberEngine.VIRTUAL_THREADS;
        this.spinNanos = scheduler.spinNanos;
        this.checkLocks = scheduler.checkLocks;
        this.work = new Work(scheduler.newPolicy(), stats);
        this.spinning = new Spinning(spinNanos, id);
    }

    /**
     * current() is the worker of the calling thread, or null if the thread is neither bound nor a
     * worker: a worker thread, a fiber's virtual thread (known by its scheduler, without a
     * thread-local: a suspended fiber has no thread-local map unless its tasks make one), or a
     * bound thread.
     */
    static Worker current() {
        Thread t = Thread.currentThread();
        if (t instanceof WorkerThread w) {
            return w.worker;
        }
        if (t.isVirtual()) {
            Worker worker = VirtualFiber.workerOf(t);
            if (worker != null) {
                return worker;
            }
        }
        return BOUND.get();
    }

    /**
     * onOwnerThread() is whether the caller runs on this worker's thread: the thread itself, or one
     * of its fibers' virtual threads mounted on it.
     */
    boolean onOwnerThread() {
        Thread t = Thread.currentThread();
        return t == ownerThread || (virtualFibers && t.isVirtual() && VirtualFiber.workerOf(t) == this);
    }

    /**
     * lock() is this worker's lock, its work's: for code that holds one of its fibers and must take
     * that fiber's worker lock (a cancellation scope, a virtual thread's mount).
     */
    WorkerLock lock() {
        return work.lock;
    }

    /**
     * fiberThreadName() is the name of every virtual thread of this worker's fibers: the worker's
     * thread's name and "/fiber". One string for all of them, because a name of its own would add
     * about 90 bytes to each suspended fiber; a fiber's virtual thread is told apart by its thread id.
     */
    String fiberThreadName() {
        String name = fiberThreadName;
        if (name == null) {
            name = thread.getName() + "/fiber";
            fiberThreadName = name;
        }
        return name;
    }

    // ---------------------------------------------------------------- life cycle

    /** bindToCurrentThread() makes this single-threaded worker the calling thread's worker. */
    void bindToCurrentThread() {
        if (checkLocks) {
            locksHeldAtBind = LockCheck.heldLocks();
        }
        main = Fiber.main(this);
        current = main;
        thread = Thread.currentThread();
        ownerThread = thread;
        work.setActivity(Work.ACTIVE);
        BOUND.set(this);
    }

    /**
     * stopSingleThreaded(watch) is unbind(): runs every task and blocked fiber of this bound worker
     * to completion on the calling (bound) thread, then detaches the worker from it. The watch logs
     * the suspended fibers it waits for, and (a bounded close) cancels them at its times.
     *
     * <p>The tasks run on continuation fibers, as while the thread blocks, never inline on the main
     * fiber: the main fiber is the thread's own code, which may hold a {@link Mutex} across the
     * unbind, and a task run on it would count as that Mutex's owner.
     */
    @Excludes("work.lock")
    void stopSingleThreaded(CloseWatch watch) {
        work.lock.lock();
        try {
            work.shutdown = true;
            closeWatch = watch;
            work.drainInbox();
            if (work.num() == 0 && mayStop() && work.closeTaskInbox()) {
                drained = true; // nothing left: no fiber needed to find that out
            } else {
                trampoline(); // returns once a fiber's loop has found the worker drained
            }
            endIdleFibers();
            work.stopped = true;
        } finally {
            work.lock.unlock();
            BOUND.remove();
        }
    }

    /**
     * start(name, affinity) starts a multi-threaded worker's thread, which pins itself to affinity
     * (null: not pinned) before anything else. Called by the Scheduler's constructor.
     */
    void start(String name, Affinity affinity) {
        thread = new WorkerThread(this, name, scheduler.config().isDaemon(), () -> runThread(affinity));
        thread.start();
    }

    /** thread() is the worker's thread: its WorkerThread, or the bound thread. */
    Thread thread() {
        return thread;
    }

    /**
     * threadStack(maxFrames) is where the worker's thread is now, innermost first, one
     * {@code "\tat frame"} line per frame, at most maxFrames: for the monitor's and close()'s reports.
     */
    String threadStack(int maxFrames) {
        StackTraceElement[] frames = thread.getStackTrace();
        StringBuilder stack = new StringBuilder();
        for (int i = 0; i < Math.min(frames.length, maxFrames); i++) {
            stack.append("\tat ").append(frames[i]).append('\n');
        }
        return stack.toString();
    }

    /**
     * runThread(affinity) is the body of a multi-threaded worker's thread, pinned first to affinity
     * (null: not pinned). An internal error (a bug, or a scheduling policy breaking its contract) is
     * reported and the worker goes on: it never dies with work queued.
     */
    @Excludes("work.lock")
    @SuppressWarnings("GuardedBy") // the finally block writes stopped before it releases the lock, which the loop and its recovery leave held
    private void runThread(Affinity affinity) {
        ownerThread = Thread.currentThread();
        main = Fiber.main(this);
        current = main;
        scheduler.initializeWorkerThread(id, affinity);
        work.setActivity(Work.ACTIVE);
        work.lock.lock();
        try {
            while (true) {
                try {
                    // Start with a plain wait rather than a spin, as marl does: a new thread has no work.
                    while (work.num() == 0 && !work.deadlines.hasDeadlines() && !work.shutdown) {
                        sleepForWork();
                    }
                    trampoline();
                    endIdleFibers();
                    break;
                } catch (Throwable t) {
                    recoverFromInternalError(t);
                }
            }
        } finally {
            work.stopped = true;
            work.lock.unlock();
            scheduler.onWorkerStopped();
        }
    }

    /**
     * recoverFromInternalError(t) reports t, unless it is one of a burst ({@link ErrorBursts}), and
     * gets the main fiber back into a state to go on: with the lock held, whether or not the error
     * left it held. It never throws: most often t is an {@link OutOfMemoryError}, and reporting it
     * allocates, so the report may fail the same way. Were that failure to escape, the thread would
     * die with this worker's tasks still queued on it, and nothing would ever run them.
     */
    private void recoverFromInternalError(Throwable t) {
        try {
            String unreported = errorBursts.report(System.nanoTime());
            if (unreported != null) {
                if (work.lock.isHeldByCurrentThread()) {
                    work.lock.unlock(); // the logger and the handler are user code, which may enqueue: never under this lock
                }
                LOG.log(System.Logger.Level.ERROR, "error in the loop of " + this + ": a scheduling policy threw, or a bug "
                        + "in marl4j; the worker keeps running its queued work" + unreported, t);
                scheduler.reportUncaught(t);
            }
        } catch (Throwable reportFailed) {
            // Unreported: the loop going on matters more. A heap that stays full fails the loop again,
            // and each failed allocation waits for a full collection first, so this does not spin.
        }
        while (!work.lock.isHeldByCurrentThread()) {
            try {
                work.lock.lock();
            } catch (Throwable lockFailed) {
                // A contended lock allocates its queue node, which a full heap refuses: try again.
            }
        }
        current = main; // the fiber that threw has ended; its task had already finished or not begun
        work.setActivity(Work.ACTIVE);
    }

    // ---------------------------------------------------------------- the worker loop

    /**
     * trampoline() runs fibers on the thread's own stack until the main fiber is picked to run (a
     * single-threaded worker's thread woken in its own wait) or the worker has shut down and drained
     * (a multi-threaded worker at close; a single-threaded one in unbind()). Called on the main fiber
     * with lock held; the lock stays held across each fiber's run.
     */
    @GuardedBy("work.lock")
    @SuppressWarnings("GuardedBy") // next is this worker's fiber: work.lock is the next.worker.work.lock its state needs
    void trampoline() {
        while (true) {
            Fiber next = pickNext();
            if (next == main) {
                current = main;
                return;
            }
            current = next;
            work.progressed();
            if (next.state == Fiber.State.QUEUED) {
                resumed(next); // a fiber woken in a wait (an idle one is RUNNING already)
            }
            if (next.takeResumesUnlocked()) {
                work.lock.unlock(); // it parked without the lock (suspend(Fiber, Waiter, int)): it goes on without it
            }
            next.stack.resume();
            current = main;
            Waiter waiter = parking;
            if (waiter != null) { // it yielded to park, without the lock (suspend(Fiber, Waiter, int))
                parking = null;
                work.lock.lock();
                if (parkYielded(next, waiter)) {
                    handoff = next; // notified meanwhile: it goes on at once
                }
            } else if (next.state == Fiber.State.RUNNING && !next.stack.finished()) {
                // A virtual thread that blocked in the JDK (or called Thread.yield()): its worker
                // suspends it for the JDK to wake. A marl4j switch changes the state before it yields.
                // It held the worker lock (handed back by resume()) only if it never ran, a JDK stack
                // walk having held it still: then it resumes with the lock, as it was suspended.
                boolean withLock = work.lock.isHeldByCurrentThread();
                if (!withLock) {
                    work.lock.lock();
                }
                blockedInJdk(next, withLock);
                if (work.waitsCancelled && !withLock && !next.relocking()) {
                    // A bounded close has given up: every later wait throws, and a blocking JDK call
                    // is a wait here. Closing.cancelWaits interrupted only the fibers blocked then;
                    // one that was running, or that blocks again while it unwinds, would hold close
                    // for as long as its call lasts. Outside the lock, as cancelWaits does: the
                    // interrupt wakes the fiber through VirtualFiber.execute, and it cannot run
                    // meanwhile, since only this thread runs it.
                    VirtualFiber blocked = next.virtualThread();
                    work.lock.unlock();
                    try {
                        blocked.interrupt();
                    } finally {
                        work.lock.lock();
                    }
                }
            }
            if (drained) {
                return; // shut down, with nothing queued and nothing blocked (an STW: unbind())
            }
        }
    }

    /**
     * pickNext() waits for work, then chooses the fiber to run: a woken fiber, else an idle one to
     * run tasks, else a new one. Called with lock held.
     */
    @GuardedBy("work.lock")
    @SuppressWarnings("GuardedBy") // next is this worker's fiber: work.lock is the next.worker.work.lock its state needs
    private Fiber pickNext() {
        Fiber next = handoff;
        if (next != null) {
            handoff = null;
            return next;
        }
        waitForWork();
        next = work.takeReadyFiber();
        if (next != null) {
            return next;
        }
        next = idleFibers.pollFirst();
        if (next == null) {
            next = Fiber.create(this, (int) ++stats.fibersCreated);
        }
        next.changeState(Fiber.State.IDLE, Fiber.State.RUNNING);
        return next;
    }

    /**
     * run() is the body of every continuation fiber of this worker: the worker loop on the fiber that
     * the trampoline has just made {@code current} (so one body serves every fiber: no lambda or
     * body object per fiber). Entered with lock held.
     */
    @Override
    @GuardedBy("work.lock")
    public void run() {
        runUntilShutdown(current);
    }

    /**
     * runUntilShutdown(self) is the worker loop on self: it runs tasks inline until the worker has
     * drained, or self retires (returns early). Called with lock held; releases it while a task runs.
     *
     * <p>Why the loop is written this way: a task that suspends its fiber freezes every frame between
     * the continuation's entry and the wait into the fiber's stack chunk (see Memory above). So the
     * frame below a running task is this one loop, the task run inline in it rather than in a method
     * of its own (a second frame), with nothing live across the task's call but {@code this} and
     * {@code self}: the task's bookkeeping is done by {@link #nextTask} under the lock before the
     * task starts, whose frame has returned by then, and a JFR recording's event is kept in a frame
     * of its own ({@link #runTaskRecorded}), off the path that runs when no recording is on. The
     * continuation's target is this worker itself, whose {@link #run()} C2 inlines into the JDK's
     * entry frame, so no frame of a body object sits below.
     */
    @GuardedBy("work.lock")
    private void runUntilShutdown(Fiber self) {
        Task task;
        while ((task = nextTask(self)) != null) {
            work.lock.unlock();
            try {
                if (FlightRecording.started() && TaskRunEvent.isTurnedOn()) {
                    runTaskRecorded(task);
                } else {
                    Runnable body = task.body();
                    task = null; // an interpreted frame would keep it alive across the call otherwise
                    body.run();
                }
            } catch (FiberCancelledException cancelled) {
                // The expected end of a task whose wait a bounded close cancelled: not an error.
            } catch (Throwable t) {
                scheduler.reportUncaught(t);
            } finally {
                work.lock.lock();
                stats.tasksCompleted++;
            }
        }
    }

    /**
     * nextTask(self) is the worker loop between two tasks: it resumes ready fibers before starting
     * new tasks (handing the thread to one and parking self as idle, until self is picked again),
     * waits for work, and returns the next task for self to run inline, or null when self should
     * end: the worker has shut down and drained ({@code drained} is then set), or enough fibers are
     * idle already (self retires). Called and returns with lock held.
     */
    @GuardedBy("work.lock")
    @SuppressWarnings("GuardedBy") // self is this worker's fiber: work.lock is the self.worker.work.lock its state needs
    private Task nextTask(Fiber self) {
        while (true) {
            if (endingIdleFibers) {
                return null; // the worker has drained: this idle fiber's body ends (endIdleFibers)
            }
            work.drainInbox(); // fibers woken from other threads take their turn among the rest
            if (work.num() > 0) {
                if (work.deadlines.hasDeadlines()) {
                    work.expireDeadlines(System.nanoTime()); // a busy worker still honours deadlines
                }
                Fiber ready = work.takeReadyFiber();
                if (ready == null) {
                    if (self.cancelledScopes != 0) {
                        dropLeakedCancellation(self); // before the task is taken: it allocates, and may fail
                    }
                    Task task = work.takeTask();
                    if (self.priority() != task.priority()) {
                        self.setPriorityLocked(task.priority());
                    }
                    stats.tasksRun++; // counted here, under the lock, to keep the loop's frame small
                    work.progressed();
                    clearInterruptForNextTask();
                    return task;
                }
                handoff = ready; // the trampoline resumes it next
                if (!idle(self)) {
                    return null; // retire
                }
                continue;
            }
            // Idle: the worker ends once shut down with nothing queued, blocked or delayed, and no
            // task pushed since the last drain (closeTaskInbox fails then, and that task runs first).
            if (mayStop() && work.closeTaskInbox()) {
                drained = true;
                return null;
            }
            if (virtualFibers) {
                // A virtual thread must not sleep for work: its park would unmount it with the worker
                // lock's condition half-waited. It goes idle; the trampoline sleeps on the thread itself.
                if (!idle(self)) {
                    return null; // retire
                }
                continue;
            }
            waitForWork();
        }
    }

    /**
     * endIdleFibers() ends the idle fibers of a drained worker. A continuation fiber is garbage once
     * unreachable, but a virtual thread that never ends stays listed by the JDK (its thread container,
     * its thread dumps): each is resumed once more, finds the worker drained, and its body returns.
     * Called on the trampoline, with lock held.
     */
    @GuardedBy("work.lock")
    @SuppressWarnings("GuardedBy") // idle is this worker's fiber: work.lock is the idle.worker.work.lock its state needs
    private void endIdleFibers() {
        if (!virtualFibers) {
            idleFibers.clear();
            return;
        }
        endingIdleFibers = true;
        for (Fiber idle; (idle = idleFibers.pollFirst()) != null; ) {
            idle.changeState(Fiber.State.IDLE, Fiber.State.RUNNING);
            current = idle;
            idle.stack.resume(); // returns once its body has ended
            current = main;
        }
    }

    /**
     * idle(self) parks self in the idle list, for reuse, and yields to the trampoline, which resumes
     * the hand-off fiber, if any, or waits for work. Returns true, with lock held, once self is
     * picked again; false at once if enough fibers are idle already, and self is to retire.
     */
    @GuardedBy("work.lock")
    @SuppressWarnings("GuardedBy") // self is this worker's fiber: work.lock is the self.worker.work.lock its state needs
    private boolean idle(Fiber self) {
        if (idleFibers.size() >= MAX_IDLE_FIBERS) {
            return false;
        }
        self.changeState(Fiber.State.RUNNING, Fiber.State.IDLE);
        idleFibers.addFirst(self);
        if (!self.stack.suspend()) {
            // The worker loop's own frames never pin; reaching here is a bug in marl4j.
            throw new IllegalStateException("marl4j internal error: the worker loop of " + self + " is pinned");
        }
        return true;
    }

    /**
     * dropLeakedCancellation(self) ends the cancelled {@link FiberCancellation}s that the fiber's
     * last task left open, so they do not cancel the next task's waits, and reports the mistake to
     * the handler from a task of its own (no user code runs under the lock).
     */
    @GuardedBy("work.lock")
    @SuppressWarnings("GuardedBy") // self is this worker's fiber: work.lock is the self.worker.work.lock its state needs
    private void dropLeakedCancellation(Fiber self) {
        self.cancelledScopes = 0;
        if (moreCancelledScopes != null) {
            moreCancelledScopes.remove(self);
        }
        String where = self.toString();
        work.addTask(new Task(() -> scheduler.reportUncaught(new IllegalStateException(
                "a task on " + where + " ended with a cancelled FiberCancellation still open: close it in a"
                        + " try-with-resources around the code it cancels; it no longer applies"))));
    }

    /**
     * mayStop() is whether a worker told to shut down holds nothing that will need it later: no
     * suspended fiber and no delayed task (its queue, checked apart, must be empty too).
     */
    @GuardedBy("work.lock")
    boolean mayStop() {
        return work.shutdown && work.numSuspended() == 0 && work.deadlines.numDelayed() == 0;
    }

    /**
     * runTask(task) runs one task outside the worker loop (a pinned wait runs queued tasks this way);
     * called without the lock. Its exception goes to the handler.
     */
    @Excludes("work.lock")
    void runTask(Task task) {
        stats.tasksRun++;
        work.progressed();
        clearInterruptForNextTask();
        if (FlightRecording.started() && TaskRunEvent.isTurnedOn()) {
            runTaskRecorded(task);
        } else {
            runBody(task.body());
        }
        stats.tasksCompleted++;
    }

    /**
     * runBody(body) runs a task's body; its exception goes to the handler. The worker loop does the
     * same inline, so that no frame of this method sits below a task there (see runUntilShutdown).
     */
    @Excludes("work.lock")
    private void runBody(Runnable body) {
        try {
            body.run();
        } catch (FiberCancelledException cancelled) {
            // The expected end of a task whose wait a bounded close cancelled: not an error.
        } catch (Throwable t) {
            scheduler.reportUncaught(t);
        }
    }

    /**
     * runTaskRecorded(task) runs a task while a JFR recording has {@link TaskRunEvent} on: the event
     * and the Task stay alive across the call, in this frame only. Called without the lock; the
     * task's exception goes to the handler.
     */
    @Excludes("work.lock")
    private void runTaskRecorded(Task task) {
        TaskRunEvent event = TaskRunEvent.beginIfTurnedOn(); // null if the recording stopped meanwhile
        runBody(task.body());
        if (event != null) {
            event.endAndCommit(this, task);
        }
    }

    /**
     * clearInterruptForNextTask() clears a worker thread's interrupt status before it starts a task,
     * as {@code ThreadPoolExecutor} does: a status one task left set (a cancelled blocking call, a
     * re-asserted interrupt) is not the next task's. A bound thread keeps its status: it belongs to
     * the application code that bound it. A fiber that waits keeps its own status meanwhile
     * ({@link #keepInterrupt}).
     */
    private void clearInterruptForNextTask() {
        if (mode == Mode.MULTI_THREADED || virtualFibers) { // a fiber's virtual thread is never the application's
            Thread.interrupted();
        }
    }

    // ---------------------------------------------------------------- waiting for work

    /**
     * waitForWork() returns once there is a task or ready fiber, or the worker may stop. An MTW
     * spins first. Called with lock held; may release it while spinning or sleeping.
     */
    @GuardedBy("work.lock")
    void waitForWork() {
        work.drainInbox();
        if (work.deadlines.hasDeadlines()) {
            work.expireDeadlines(System.nanoTime());
        }
        if (work.num() > 0) {
            return;
        }
        if (mode == Mode.MULTI_THREADED && spinNanos > 0 && spinning.spin(this)) {
            return;
        }
        while (work.num() == 0 && !mayStop()) {
            sleepForWork();
        }
        if (work.num() > 0) {
            // The idle gap a fruitless spin began ends when the work arrived, not when this worker
            // woke: judged by the wake-up, a gap a spin would have bridged looks long, the budget
            // halves, the next gap is slept through too, and a two-worker ping-pong stays at
            // 18 µs a round trip instead of 0.85, a state it does not leave.
            spinning.budget.workFound(work.arrivedAt(System.nanoTime()));
        } else {
            spinning.budget.abandon();
        }
        restoreSleepInterrupt();
    }

    /**
     * sleepForWork() sleeps until work is added, the earliest deadline passes, another thread sends
     * it to steal or (an STW draining in unbind() or close()) the watch is due; then expires
     * deadlines and steals what it was sent for. Every idle sleep ends here, so a steal request is
     * never left unanswered: one left set would make the monitor pass this worker over for good.
     */
    @GuardedBy("work.lock")
    void sleepForWork() {
        if (mode == Mode.MULTI_THREADED) {
            scheduler.idle.onWorkerSleeping();
        }
        sleep(true, Long.MAX_VALUE);
        if (mode == Mode.MULTI_THREADED) {
            scheduler.idle.onWorkerWoke();
        }
        Worker victim = work.takeStealHint();
        if (victim != null) {
            spinning.steal(this, victim);
        }
        if (work.takeStealAny()) {
            // Woken by an enqueuer (wakeIdleWorker) holding one spinning count for us: look for a
            // task on every worker, then give the count back.
            try {
                if (work.num() == 0) {
                    if (spinNanos > 0) {
                        spinning.spin(this);
                    } else {
                        spinning.steal(this, null);
                    }
                }
            } finally {
                scheduler.idle.onEndSpinning();
            }
        }
    }

    /**
     * sleep(idle, maxNanos) sleeps on the work's condition ({@link Work#sleep}) for at most maxNanos
     * (and, draining in unbind() or close(), until the watch is due, which it then acts on), minding
     * interrupts and deadlines. Called with lock held; releases it meanwhile. Idle sleeps and a
     * pinned fiber's wait both come here, so a due watch is never left unacted (a pinned wait would
     * otherwise spin on a watch due forever, its sleeps 1 ns each).
     */
    @GuardedBy("work.lock")
    void sleep(boolean idle, long maxNanos) {
        try {
            work.sleep(idle, closeWatch == null ? maxNanos : Math.min(maxNanos, closeWatch.nanosUntilDue()));
        } catch (InterruptedException e) {
            // Worker threads ignore interrupts (fibers share the thread); a bound thread keeps its
            // status, restored once the wait is over (restoring it here would fail the next sleep).
            interruptedWhileAsleep |= mode == Mode.SINGLE_THREADED;
        }
        work.drainInbox(); // a pinned wait (PinnedWait) sees its fiber QUEUED only once this ran
        if (work.deadlines.hasDeadlines()) {
            work.expireDeadlines(System.nanoTime());
        }
        if (closeWatch != null && closeWatch.due()) {
            work.lock.unlock(); // the watch dumps every worker's fibers, this one's included
            try {
                closeWatch.act();
            } finally {
                work.lock.lock();
            }
            work.drainInbox(); // what a cancellation woke
        }
    }

    /** restoreSleepInterrupt() gives a bound thread back the interrupt that came while it slept for work. */
    @GuardedBy("work.lock")
    void restoreSleepInterrupt() {
        if (interruptedWhileAsleep) {
            interruptedWhileAsleep = false;
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- suspending a fiber

    /**
     * checkMaySuspend(fiber, userLock) throws, before anything is published, if {@code fiber} may not
     * suspend: it is not this thread's running fiber, its waits were cancelled (by a bounded close
     * or a {@link FiberCancellation}), or (with the lock check on) the thread holds a monitor or a
     * thread-owned lock other than {@code userLock}, which the wait releases. Called by the fiber
     * itself, without the worker lock.
     */
    @Excludes("work.lock")
    void checkMaySuspend(Fiber fiber, Lock userLock) {
        if (fiber != current) {
            throw new IllegalStateException(fiber + " is not the fiber running on this thread ("
                    + current + "): only a fiber can suspend itself");
        }
        if (waitsCancelled(fiber)) { // racy read: a later cancellation is seen under the lock in suspend()
            throw cancellation(fiber);
        }
        if (checkLocks && !virtualFibers) { // a virtual thread owns its locks: nothing to check
            LockCheck.verify(locksHeldAtBind, userLock);
        }
    }

    /**
     * park(fiber, waiter) suspends {@code fiber} (the current one) unless {@code waiter} has been
     * notified meanwhile, and returns with no lock held: the untimed wait of a primitive that has
     * queued waiter, checked {@link #checkMaySuspend} and released its own lock. The waiter's flag is
     * set before its fiber is woken, so a notification that races with this call is seen or wakes
     * the suspended fiber.
     */
    @Excludes("work.lock")
    static void park(Fiber fiber, Waiter waiter) {
        if (!suspend(fiber, waiter, 0)) {
            fiber.worker.parkLocked(fiber, waiter);
        }
    }

    /** parkLocked(fiber, waiter) is {@link #park} with the worker lock taken by the fiber. */
    @Excludes("work.lock")
    private void parkLocked(Fiber fiber, Waiter waiter) {
        work.lock.lock();
        try {
            if (!waiter.notified) {
                suspend(fiber, false, 0);
            }
        } finally {
            work.lock.unlock();
        }
    }

    /**
     * suspend(fiber, mark, epoch) is the fiber's half of an untimed park without the worker lock:
     * it leaves the worker what to check (mark: the waiter, whose {@code notified} flag ends the wait,
     * or {@link #EPOCH_WAIT} and the epoch the fiber read) and yields; the trampoline takes the lock
     * and decides ({@link #parkYielded}). So the lock's code and the suspend's bookkeeping are not
     * in this fiber's frames, and, the method being static and reaching the worker through the
     * fiber, nothing of it but the fiber is live across the yield (see Memory). Returns true once
     * the fiber has been resumed (notified, woken or cancelled: it throws if cancelled, as
     * {@link #suspend(Fiber, boolean, long)} does); false, without having suspended, if the fiber
     * must wait the locked way: a thread's main fiber, a JFR recording that wants
     * {@link FiberSuspendEvent}, or a pinned yield. Named as the locked suspend (marl's
     * {@code Worker::suspend}): a fiber dump ({@link SuspendedFiber}) starts at the deepest
     * {@code Worker.suspend}.
     */
    @Excludes("work.lock")
    static boolean suspend(Fiber fiber, Waiter mark, int epoch) {
        if (fiber.isMain() || (FlightRecording.started() && FiberSuspendEvent.isTurnedOn())) {
            return false;
        }
        fiber.worker.parkingEpoch = epoch;
        fiber.worker.parking = mark;
        if (!fiber.stack.suspend()) {
            fiber.worker.parking = null; // pinned: the trampoline did not run
            return false;
        }
        // Resumed by the trampoline, without the lock. The cancellation that woke it was written
        // under the lock, which the trampoline took and released since, on this thread.
        Worker worker = fiber.worker;
        if (worker.waitsCancelled(fiber)) {
            throw worker.cancellation(fiber);
        }
        return true;
    }

    /**
     * parkYielded(fiber, waiter) is the worker's half of {@link #suspend(Fiber, Waiter, int)}: the
     * fiber has yielded, RUNNING, without the lock, and the trampoline has taken the lock back. If
     * the waiter has been notified meanwhile (for {@link #EPOCH_WAIT}: the fiber's wake epoch has
     * moved), or the fiber's waits are cancelled, the fiber is to resume at once: returns true, and
     * it stays RUNNING. Otherwise it is suspended (YIELDED) and listed, as {@link #suspend} does, for
     * a wake to queue it. No wake-up is lost: a notifier sets {@code notified} before it wakes the
     * fiber, and a wake takes this lock (or goes through the inbox, which the owner drains under it
     * later), so it either comes before this check, which then sees the flag (the epoch a wake
     * bumps, likewise), or finds the fiber suspended. Either way the fiber resumes without the lock.
     * Called with lock held, on the worker's thread.
     */
    @GuardedBy("work.lock")
    @SuppressWarnings("GuardedBy") // fiber is this worker's: work.lock is the fiber.worker.work.lock its state needs
    private boolean parkYielded(Fiber fiber, Waiter waiter) {
        fiber.setResumesUnlocked(true);
        boolean woken = waiter == EPOCH_WAIT ? fiber.wakeEpoch != parkingEpoch : waiter.notified;
        if (woken || waitsCancelled(fiber)) {
            return true;
        }
        fiber.changeState(Fiber.State.RUNNING, Fiber.State.YIELDED);
        work.listSuspended(fiber);
        keepInterrupt(fiber);
        return false;
    }

    /**
     * suspend() is marl's Worker::suspend, the locked way. Called with lock held on the current
     * fiber; returns with lock held once the fiber has been woken or its deadline has passed.
     *
     * @throws FiberCancelledException if a bounded close cancelled this worker's waits, or a
     *     FiberCancellation the fiber's waits
     */
    @GuardedBy("work.lock")
    @SuppressWarnings("GuardedBy") // fiber is this worker's: work.lock is the fiber.worker.work.lock its state needs
    void suspend(Fiber fiber, boolean timed, long deadline) {
        if (waitsCancelled(fiber)) {
            throw cancellation(fiber);
        }
        if (timed) {
            fiber.changeState(Fiber.State.RUNNING, Fiber.State.WAITING);
            work.deadlines.add(fiber.timer(), deadline);
        } else {
            fiber.changeState(Fiber.State.RUNNING, Fiber.State.YIELDED);
        }
        if (FlightRecording.started() && FiberSuspendEvent.isTurnedOn()) {
            switchAwayRecorded(fiber, timed);
        } else {
            switchAway(fiber); // nothing but this and fiber live across the switch: see Memory above
        }
        if (waitsCancelled(fiber)) {
            throw cancellation(fiber);
        }
    }

    /**
     * switchAway(fiber) lists the fiber as suspended, gives the thread to other fibers until the
     * fiber is resumed, and marks it running again. Called and returns with lock held.
     */
    @GuardedBy("work.lock")
    private void switchAway(Fiber fiber) {
        work.listSuspended(fiber); // before the yield: the fiber is listed whenever a dumper holds the lock
        keepInterrupt(fiber);
        // A continuation fiber is made running again by the trampoline that resumes it
        // (resumed(fiber), before it mounts the continuation), not here after the yield: whatever this
        // frame still needs after the yield is live across it, so it is in every suspended fiber's
        // stack chunk (see Memory above).
        if (fiber.isMain() || !fiber.stack.suspend()) {
            switchAwayInPlace(fiber);
        }
    }

    /**
     * switchAwayInPlace(fiber) is {@link #switchAway}'s wait for a fiber whose continuation is not
     * unmounted: the main fiber (its thread runs the trampoline until it is picked) or a pinned one
     * (it blocks the thread); then it is made running again. Called and returns with lock held.
     */
    @GuardedBy("work.lock")
    private void switchAwayInPlace(Fiber fiber) {
        if (fiber.isMain()) {
            stats.mainFiberWaits = true; // a bound thread's own code waits: not a task (see WorkerStats)
            trampoline();
            stats.mainFiberWaits = false;
        } else {
            PinnedWait.block(this, fiber);
        }
        resumed(fiber);
        work.progressed();
    }

    /** switchAwayRecorded(fiber, timed) is {@link #switchAway} while a JFR recording has {@link FiberSuspendEvent} on. */
    @GuardedBy("work.lock")
    private void switchAwayRecorded(Fiber fiber, boolean timed) {
        FiberSuspendEvent event = FiberSuspendEvent.beginIfTurnedOn(); // null if the recording stopped meanwhile
        switchAway(fiber);
        if (event != null) {
            event.endAndCommit(fiber, timed);
        }
    }

    /**
     * resumed(fiber) makes a woken fiber, about to continue after its yield, running again: its
     * interrupt status back on the thread, off the suspended list, QUEUED to RUNNING. Called with
     * lock held on the fiber's worker thread, by the trampoline just before it resumes a
     * continuation fiber, or by the fiber itself after an in-place wait.
     */
    @GuardedBy("work.lock")
    @SuppressWarnings("GuardedBy") // fiber is this worker's: work.lock is the fiber.worker.work.lock its state needs
    private void resumed(Fiber fiber) {
        restoreInterrupt(fiber);
        work.unlistSuspended(fiber);
        fiber.setBlockedInJdk(false);
        fiber.changeState(Fiber.State.QUEUED, Fiber.State.RUNNING);
    }

    /**
     * blockedInJdk(fiber) suspends a fiber of the virtual-thread engine that the trampoline found
     * still RUNNING after its run returned: it blocked in the JDK (a park, a monitor, a sleep, I/O)
     * or called {@code Thread.yield()}, and the JDK will wake it ({@link VirtualFiber#execute}).
     * If the JDK already has (it may, from any thread, as soon as the thread unmounted), the fiber
     * is readied at once; otherwise the JDK's later wake finds it YIELDED: the flag is written before
     * the wake is posted, and read here after the state change, both under this lock or through
     * the inbox that the owner drains under it. {@code withLock}: the fiber held the worker lock
     * when its run returned, which only a fiber that did not run at all does (a JDK stack walk held
     * it still), and it resumes holding it. Called with lock held, on the worker's thread.
     */
    @GuardedBy("work.lock")
    @SuppressWarnings("GuardedBy") // fiber is this worker's: work.lock is the fiber.worker.work.lock its state needs
    private void blockedInJdk(Fiber fiber, boolean withLock) {
        fiber.changeState(Fiber.State.RUNNING, Fiber.State.YIELDED);
        work.listSuspended(fiber);
        fiber.setBlockedInJdk(true);
        fiber.setResumesUnlocked(!withLock); // it blocked in its task's code, where it holds no worker lock
        if (fiber.virtualThread().runnable) {
            work.wakeLocked(fiber);
        }
    }

    /**
     * yieldFiber(fiber) lets every task and fiber already queued on this worker start before the
     * current fiber continues: it queues a task that wakes the fiber, then suspends.
     */
    @Excludes("work.lock")
    void yieldFiber(Fiber fiber) {
        checkMaySuspend(fiber, null);
        work.lock.lock();
        try {
            if (work.deadlines.hasDeadlines()) {
                work.expireDeadlines(System.nanoTime());
            }
            work.drainInbox(); // tasks and wakes other threads left count as work to yield to
            if (work.num() == 0) {
                return;
            }
            work.addTask(new Task(fiber::wake, true, fiber.priority()));
            suspend(fiber, false, 0);
        } finally {
            work.lock.unlock();
        }
    }

    /**
     * keepInterrupt(fiber), as a fiber on a worker thread suspends, takes the thread's interrupt
     * status into the fiber (in its flags: nothing more lives across the switch), so that the
     * fibers and tasks that run on the thread meanwhile do not see it; restoreInterrupt(fiber), as
     * it resumes, gives it back, and drops any status left on the thread by what ran meanwhile (a
     * task that ended interrupted, before the worker resumed this fiber). A bound thread's status is
     * the application's and is left alone (see {@link Fiber}).
     */
    private void keepInterrupt(Fiber fiber) {
        if (mode == Mode.MULTI_THREADED && (fiber.isMain() || !virtualFibers)) {
            fiber.keepInterrupt(Thread.interrupted());
        }
    }

    private void restoreInterrupt(Fiber fiber) {
        // A virtual thread's status is its own already: the JDK keeps it across the switch.
        if (mode == Mode.MULTI_THREADED && (fiber.isMain() || !virtualFibers)) {
            Thread.interrupted(); // not this fiber's: left by what ran meanwhile
            if (fiber.takeInterrupt()) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * waitsCancelled(fiber) is whether {@code fiber} may not wait: a bounded close cancelled this
     * worker's waits, or a {@link FiberCancellation} open on the fiber was cancelled. Either way a
     * fiber taking a wait's user lock again is spared (see {@link FiberWaits#relock}). Racy without
     * lock.
     */
    @SuppressWarnings("GuardedBy") // racy read, as documented above
    boolean waitsCancelled(Fiber fiber) {
        return (work.waitsCancelled || fiber.cancelledScopes != 0) && !fiber.relocking();
    }

    @SuppressWarnings("GuardedBy") // racy read of the flag: it only picks the message
    private FiberCancelledException cancellation(Fiber fiber) {
        if (work.waitsCancelled) {
            return new FiberCancelledException("the wait was cancelled because " + scheduler
                    + " was closed with a timeout that passed while this fiber was still suspended");
        }
        return new FiberCancelledException("the wait was cancelled because the task running on " + fiber
                + " was cancelled: FiberCancellation.cancel() (which Future.cancel(true) and a disposed"
                + " Reactor task call for the tasks of marl4j's executor and scheduler)");
    }

    // ---------------------------------------------------------------- helpers

    /** addStatsTo(totals) adds this worker's counters and gauges, read racily, to totals. */
    @SuppressWarnings("GuardedBy") // racy reads of the idle list's size and the suspended count: gauges, possibly stale
    void addStatsTo(StatsTotals totals) {
        stats.addTo(totals, idleFibers.size(), work.numSuspended(), work.tasksWaiting());
    }

    @Override
    public String toString() {
        return (mode == Mode.MULTI_THREADED ? "worker " + id : "bound worker") + " of " + scheduler;
    }
}
