package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayDeque;
import java.util.Map;
import org.marl4j.WaitQueue.Waiter;

/**
 * A Worker runs tasks and fibers on one thread: marl's {@code Scheduler::Worker}.
 *
 * <h2>Implementation overview</h2>
 *
 * <p><b>Modes.</b> A multi-threaded worker (MTW) owns a {@link WorkerThread}. A single-threaded
 * worker (STW) is created by {@link Scheduler#bind()} for the calling thread; its tasks run only
 * when that thread blocks on a marl4j primitive, and at {@link Scheduler#unbind()}.
 *
 * <p><b>Split.</b> {@link Work} (marl's {@code Worker::Work}) holds what other threads touch and
 * every call they make: enqueue, delayed tasks, wake, priority, stop, steal ({@link Steals}), the
 * owner's sleep and the calls that end it ({@link OwnerSleep}), and the lock. This
 * class is the owner's side: the run loop and the state only the owner's thread changes;
 * {@link Sleeping} is how the owner waits for work when it has none (the spin, then the sleep, and
 * what it does on waking); {@link FiberWaits} is how a fiber suspends. {@link SuspendedList} lists the fibers inside a wait; {@link WorkerStats} counts.
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
 * still RUNNING, suspends it ({@link FiberWaits#blockedInJdk}) and goes on with other work; the
 * JDK's wake-up reaches this worker as a {@link Work#wake}. Such a fiber never sleeps for work on
 * the worker's condition (its park would unmount it): it goes idle, and the trampoline sleeps.
 *
 * <p><b>Lock hand-off.</b> As in marl, {@code lock} is held across fiber switches: a suspending
 * fiber yields with it held and the fiber resumed next continues holding it; except a fiber that
 * parks without it ({@link FiberWaits#parkYielded}), for which the trampoline takes the lock once
 * the yield returns and releases it just before resuming the fiber. User code never runs
 * with the lock held except a {@link SchedulingPolicy}, whose calls {@link Work} makes safe; a task
 * runs with the lock released and re-taken in {@code finally}. How a fiber suspends, and why no
 * wake-up is lost although the user's lock is released before the worker lock is taken, is
 * written in {@link FiberWaits}, where a waiting fiber takes the lock.
 *
 * <p><b>Wakes from other threads</b> take no worker lock: {@link Work#wake} pushes the fiber onto
 * the worker's {@link WakeInbox} and signals the owner only if it sleeps. The owner performs the
 * wake itself (epoch bump, fiber made ready) under its lock when it drains the inbox ({@link
 * Inboxes#drainInbox}): at each turn
 * of its loop, before it waits for work, after a fruitless spin and after every sleep; a spin ends
 * and {@link OwnerSleep#sleep} returns at once while the inbox is not empty. The argument in {@link FiberWaits} still
 * holds with the inbox in between: the waiter, checking the epoch on its own thread, either sees the
 * bump of a drain that came first or suspends, and then the wake is still in the inbox, where the
 * same thread finds it before it next sleeps or runs another fiber; the push and the owner's
 * "I sleep" flag are ordered by volatile accesses (see {@link OwnerSleep#signalIfAsleep}), so a sleeping
 * owner is always signalled. Waiter's {@code notified} flag is set before the push, so a waiter
 * that misses it is suspended by the time the drain readies it. On the owner's own thread a wake
 * takes the (then free) lock and acts at once.
 *
 * <p><b>Spinning and stealing</b> (marl's {@code spinForWork}). An MTW out of work first spins for
 * the configured duration, checking {@code num} and trying to steal tasks (never a fiber: fibers
 * stay on their worker's thread) from a random other worker, then sleeps: half of that worker's
 * queue at once, but not a busy worker's only fresh task ({@link FreshTaskRule}), which is most
 * likely the next hop of what that worker runs. A spinning worker advertises
 * itself in the scheduler's spinning-workers ring, which {@link Scheduler#enqueue} prefers. Beyond
 * marl, two things take a task queued behind a busy or blocked worker while another sleeps,
 * whatever the spin duration. First, as Go's {@code wakep}: an enqueue onto a worker that is awake,
 * when no worker spins, wakes one sleeping worker to spin (or, with spinning off, to try every
 * worker once) and steal it. Second, as Go's {@code sysmon} retakes a P stuck in a syscall, the
 * scheduler's {@link Monitor} sends a sleeping worker to steal from a worker that has made no
 * progress for a few milliseconds with tasks queued (a task blocking its thread); it covers the
 * enqueue that raced with a worker going to sleep. Both requests are answered in {@link
 * Sleeping#sleepForWork()}, which every idle sleep goes through. The spin and the steals themselves, with
 * the thief's memory of its victims, live in {@link Spinning}.
 *
 * <p><b>Shutdown.</b> A worker runs until it is told to shut down and has no tasks, no ready fibers,
 * no blocked fibers and no delayed tasks (which run when due, as after {@code
 * ScheduledThreadPoolExecutor.shutdown()}); then it marks itself {@code stopped} under the lock, so
 * enqueuers move on. {@link FiberWaits#cancelWaits()} (a bounded close) resumes every suspended
 * fiber with a
 * {@link FiberCancelledException} and makes every later wait throw one, so the drain completes.
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

    final Scheduler scheduler;
    final int id;
    final Mode mode;
    /** The queues other threads touch (marl's Worker::Work), and {@link #lock}, which guards them. */
    final Work work;
    /** work.lock, which also guards this worker's fields below marked with it. */
    final WorkerLock lock;
    /** True for the worker of a {@link Marl#blockingCall}'s thread. */
    final boolean forBlockingCall;
    /**
     * The cancelled {@link FiberCancellation}s of this worker's fibers beyond the
     * {@link Fiber#MAX_CANCELLED_SCOPES} that a fiber's byte counts: kept here, not in every fiber,
     * since nesting that deep is rare. Null until needed.
     */
    @GuardedBy("lock")
    Map<Fiber, Integer> moreCancelledScopes;
    /** True if this worker's fibers are virtual threads ({@link FiberEngine#VIRTUAL_THREADS}), false for continuations. */
    final boolean virtualFibers;
    final WorkerStats stats = new WorkerStats();
    /** How this worker's fibers suspend: the wait entry points, cancellation, the suspended listing. */
    final FiberWaits waits;
    /** How this worker spins for work and steals before it sleeps: see {@link Spinning}. Its thread only, as a thief. */
    final Spinning spinning;
    /** How this worker waits for work, spinning then sleeping, and what it does on waking: see {@link Sleeping}. Its thread only. */
    final Sleeping sleeping;
    /**
     * The thread that runs this worker's loop, once it runs: a wake() from any other thread goes
     * through the {@link WakeInbox}. Set by that thread before it takes the lock for the first time.
     */
    volatile Thread ownerThread;

    /**
     * The waiter (or {@link FiberWaits#EPOCH_WAIT}) of the fiber that yields to park without the lock (FiberWaits.suspend(Fiber, Waiter, int)),
     * for the trampoline to take once the yield returns; null otherwise. Its thread only.
     */
    Waiter parking;
    /** With {@link FiberWaits#EPOCH_WAIT} in {@link #parking}: the wake epoch the parking fiber read. Its thread only. */
    int parkingEpoch;
    /** A ready fiber already taken from the policy, for the trampoline to resume next. */
    @GuardedBy("lock")
    private Fiber handoff;
    @GuardedBy("lock")
    private final ArrayDeque<Fiber> idleFibers = new ArrayDeque<>();
    /** Set when the worker loop ended because the worker shut down and drained. */
    @GuardedBy("lock")
    private boolean drained;
    /** Set once the worker has drained, while its idle fibers are ended ({@link #endIdleFibers}). */
    @GuardedBy("lock")
    private boolean endingIdleFibers;
    /** The fibers inside a wait; its size is marl's numBlockedFibers. */
    @GuardedBy("lock")
    final SuspendedList suspended = new SuspendedList(this);

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

    Worker(Scheduler scheduler, int id, Mode mode, boolean forBlockingCall) {
        this.scheduler = scheduler;
        this.id = id;
        this.mode = mode;
        this.forBlockingCall = forBlockingCall;
        this.virtualFibers = scheduler.fiberEngine() == FiberEngine.VIRTUAL_THREADS;
        this.work = new Work(scheduler.newPolicy(), stats);
        this.lock = work.lock;
        this.waits = new FiberWaits(this);
        this.spinning = new Spinning(this);
        this.sleeping = new Sleeping(this);
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
        waits.recordLocksHeldAtBind();
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
    @Excludes("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that sleeping.lock, work.inboxes.work.lock, work.lock name
    void stopSingleThreaded(CloseWatch watch) {
        lock.lock();
        try {
            work.shutdown = true;
            sleeping.closeWatch = watch;
            work.inboxes.drainInbox();
            if (work.num() == 0 && mayStop() && work.inboxes.closeTaskInbox()) {
                drained = true; // nothing left: no fiber needed to find that out
            } else {
                trampoline(); // returns once a fiber's loop has found the worker drained
            }
            endIdleFibers();
            work.stopped = true;
        } finally {
            lock.unlock();
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
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that work.lock, work.deadlines.lock and sleeping.lock name; the finally block writes stopped before it releases the lock
    private void runThread(Affinity affinity) {
        ownerThread = Thread.currentThread();
        main = Fiber.main(this);
        current = main;
        scheduler.initializeWorkerThread(id, affinity);
        work.setActivity(Work.ACTIVE);
        lock.lock();
        try {
            while (true) {
                try {
                    // Start with a plain wait rather than a spin, as marl does: a new thread has no work.
                    while (work.num() == 0 && !work.deadlines.hasDeadlines() && !work.shutdown) {
                        sleeping.sleepForWork();
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
            lock.unlock();
            scheduler.onWorkerStopped();
        }
    }

    /** Which internal errors of this worker's thread are reported: not every one of a burst. */
    private final ErrorBursts errorBursts = new ErrorBursts();

    /**
     * recoverFromInternalError(t) reports t, unless it is one of a burst ({@link ErrorBursts}), and
     * gets the main fiber back into a state to go on.
     */
    private void recoverFromInternalError(Throwable t) {
        String unreported = errorBursts.report(System.nanoTime());
        if (unreported != null) {
            LOG.log(System.Logger.Level.ERROR, "error in the loop of " + this + ": a scheduling policy threw, or a bug "
                    + "in marl4j; the worker keeps running its queued work" + unreported, t);
            if (lock.isHeldByCurrentThread()) {
                lock.unlock(); // the handler is user code, which may enqueue: never under this worker's lock
            }
            scheduler.reportUncaught(t);
        }
        if (!lock.isHeldByCurrentThread()) {
            lock.lock();
        }
        current = main; // the fiber that threw has ended; its task had already finished or not begun
        work.setActivity(Work.ACTIVE);
    }

    // ---------------------------------------------------------------- running

    /**
     * trampoline() runs fibers on the thread's own stack until the main fiber is picked to run (a
     * single-threaded worker's thread woken in its own wait) or the worker has shut down and drained
     * (a multi-threaded worker at close; a single-threaded one in unbind()). Called on the main fiber
     * with lock held; the lock stays held across each fiber's run.
     */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that next.worker.lock, waits.lock name
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
                waits.resumed(next); // a fiber woken in a wait (an idle one is RUNNING already)
            }
            if (next.takeResumesUnlocked()) {
                lock.unlock(); // it parked without the lock (FiberWaits.suspend(Fiber, Waiter, int)): it goes on without it
            }
            next.stack.resume();
            current = main;
            Waiter waiter = parking;
            if (waiter != null) { // it yielded to park, without the lock (FiberWaits.suspend(Fiber, Waiter, int))
                parking = null;
                lock.lock();
                if (waits.parkYielded(next, waiter)) {
                    handoff = next; // notified meanwhile: it goes on at once
                }
            } else if (next.state == Fiber.State.RUNNING && !next.stack.finished()) {
                // A virtual thread that blocked in the JDK (or called Thread.yield()): its worker
                // suspends it for the JDK to wake. A marl4j switch changes the state before it yields.
                // It held the worker lock (handed back by resume()) only if it never ran, a JDK stack
                // walk having held it still: then it resumes with the lock, as it was suspended.
                boolean withLock = lock.isHeldByCurrentThread();
                if (!withLock) {
                    lock.lock();
                }
                waits.blockedInJdk(next, withLock);
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
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that next.worker.lock, sleeping.lock, work.lock name
    private Fiber pickNext() {
        Fiber next = handoff;
        if (next != null) {
            handoff = null;
            return next;
        }
        sleeping.waitForWork();
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
    @GuardedBy("lock")
    public void run() {
        runUntilShutdown(current);
    }

    /**
     * runUntilShutdown(self) is the worker loop on self: it runs tasks inline until the worker has
     * drained, or self retires (returns early). Called with lock held; releases it while a task runs.
     *
     * <p>Why the loop is written this way: a task that suspends its fiber freezes every frame between
     * the continuation's entry and the wait into the fiber's stack chunk, the bulk of a suspended
     * fiber's heap (see {@link FiberWaits}). So the frame below a running task is this one loop, the
     * task run inline in it rather than in a method of its own (a second frame), with nothing live
     * across the task's call but {@code this} and {@code self}: the task's bookkeeping is done by
     * {@link #nextTask} under the lock before the task starts, whose frame has returned by then, and
     * a JFR recording's event is kept in a frame of its own ({@link #runTaskRecorded}), off the path
     * that runs when no recording is on. The continuation's target is this worker itself, whose
     * {@link #run()} C2 inlines into the JDK's entry frame, so no frame of a body object sits below.
     */
    @GuardedBy("lock")
    private void runUntilShutdown(Fiber self) {
        Task task;
        while ((task = nextTask(self)) != null) {
            lock.unlock();
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
                lock.lock();
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
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that self.worker.lock, sleeping.lock, work.deadlines.lock, work.inboxes.work.lock, work.lock name
    private Task nextTask(Fiber self) {
        while (true) {
            if (endingIdleFibers) {
                return null; // the worker has drained: this idle fiber's body ends (endIdleFibers)
            }
            work.inboxes.drainInbox(); // fibers woken from other threads take their turn among the rest
            if (work.num() > 0) {
                if (work.deadlines.hasDeadlines()) {
                    work.deadlines.expireDeadlines(System.nanoTime()); // a busy worker still honours deadlines
                }
                Fiber ready = work.takeReadyFiber();
                if (ready == null) {
                    Task task = work.takeTask();
                    if (self.priority() != task.priority()) {
                        self.setPriorityLocked(task.priority());
                    }
                    stats.tasksRun++; // counted here, under the lock, to keep the loop's frame small
                    work.progressed();
                    clearInterruptForNextTask();
                    if (self.cancelledScopes != 0) {
                        dropLeakedCancellation(self);
                    }
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
            if (mayStop() && work.inboxes.closeTaskInbox()) {
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
            sleeping.waitForWork();
        }
    }

    /**
     * endIdleFibers() ends the idle fibers of a drained worker. A continuation fiber is garbage once
     * unreachable, but a virtual thread that never ends stays listed by the JDK (its thread container,
     * its thread dumps): each is resumed once more, finds the worker drained, and its body returns.
     * Called on the trampoline, with lock held.
     */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that idle.worker.lock names
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
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that self.worker.lock names
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
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that self.worker.lock, work.lock name
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
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that work.deadlines.lock, work.lock name
    boolean mayStop() {
        return work.shutdown && suspended.size() == 0 && work.deadlines.numDelayed() == 0;
    }

    /**
     * runTask(task) runs one task outside the worker loop (a pinned wait runs queued tasks this way);
     * called without the lock. Its exception goes to the handler.
     */
    @Excludes("lock")
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
    @Excludes("lock")
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
    @Excludes("lock")
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
     * ({@code FiberWaits.switchAway}).
     */
    private void clearInterruptForNextTask() {
        if (mode == Mode.MULTI_THREADED || virtualFibers) { // a fiber's virtual thread is never the application's
            Thread.interrupted();
        }
    }

    // ---------------------------------------------------------------- helpers

    /** addStatsTo(totals) adds this worker's counters and gauges, read racily, to totals. */
    @SuppressWarnings("GuardedBy") // racy reads of sizes: gauges, as documented above
    void addStatsTo(StatsTotals totals) {
        // Racy sizes of an ArrayDeque and a list: gauges, possibly stale.
        stats.addTo(totals, idleFibers.size(), suspended.size(), work.tasksWaiting());
    }

    @Override
    public String toString() {
        return (mode == Mode.MULTI_THREADED ? "worker " + id : "bound worker") + " of " + scheduler;
    }
}
