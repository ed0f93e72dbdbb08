package org.marl4j;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import java.util.concurrent.locks.Lock;

/**
 * A Worker runs tasks and fibers on one thread: marl's {@code Scheduler::Worker}.
 *
 * <h2>Implementation overview</h2>
 *
 * <p><b>Modes.</b> A multi-threaded worker (MTW) owns a {@link WorkerThread}. A single-threaded
 * worker (STW) is created by {@link Scheduler#bind()} for the calling thread; its tasks run only
 * when that thread blocks on a marl4j primitive, and at {@link Scheduler#unbind()}.
 *
 * <p><b>Queues.</b> {@link Work} (marl's {@code Worker::Work}) holds what other threads touch: the
 * {@link SchedulingPolicy} with the queued tasks and ready fibers, the deadline heap of timed waits
 * and delayed tasks (no timer thread), and the lock. The worker adds, guarded by the same lock,
 * {@code idleFibers} (fibers with nothing to do, kept for reuse), {@code handoff} (a ready fiber
 * already taken from the policy for the trampoline to resume) and its life-cycle state.
 *
 * <p><b>Fibers and the trampoline.</b> Loom continuations are asymmetric: a yield returns to
 * whoever resumed. So the worker thread's own stack is the "main fiber" and acts as trampoline
 * ({@link #trampoline()}): it picks the next fiber and resumes it; a fiber that suspends yields
 * back to it. Every continuation fiber runs the worker loop ({@link #runUntilShutdown}); tasks run
 * inline on whichever fiber is running that loop, so a task that never blocks costs no switch. On
 * an MTW the trampoline is the thread's whole body. On an STW the main fiber is the application's
 * own stack: when it blocks, it runs the trampoline in place until it is itself woken.
 *
 * <p><b>Lock hand-off.</b> As in marl, {@code lock} is held across fiber switches: a suspending
 * fiber yields with it held and the fiber resumed next continues holding it. A waker needs the
 * worker lock, so it only ever sees a waiter before it decided to suspend or once it is fully
 * suspended. Waking a RUNNING or QUEUED fiber changes no state, as in marl.
 *
 * <p><b>Lost wake-ups, and one departure from marl.</b> marl's waiter takes the worker lock
 * <em>before</em> releasing the user's lock, so no waker can slip in between. marl4j cannot: the
 * user's lock may be a {@link Mutex}, whose unlock wakes the next owner's fiber and so takes a
 * worker lock, perhaps this one (a self-deadlock; the lock is not reentrant) or another worker's
 * (lock-order inversion). So no worker lock is ever held while user code or a user lock runs.
 * Instead, the waiter samples its fiber's {@code wakeEpoch} while it still holds the user's lock;
 * every wake() bumps the epoch under the worker lock; the waiter, now under the worker lock,
 * suspends only if the epoch is unchanged. A waker that made the predicate true under the user's
 * lock has therefore either bumped the epoch already or finds the fiber suspended. The primitives
 * ({@link Waiter}) use a per-wait {@code notified} flag the same way.
 *
 * <p><b>Spinning and stealing</b> (marl's {@code spinForWork}). An MTW out of work first spins for
 * the configured duration, checking {@code num} and trying to steal a task (never a fiber: fibers
 * stay on their worker's thread) from a random worker, then waits on {@code added}, which enqueuers
 * signal only while {@code notifyAdded} says the worker sleeps. A spinning worker advertises itself
 * in the scheduler's spinning-workers ring, which {@link Scheduler#enqueue} prefers.
 *
 * <p><b>Shutdown.</b> A worker runs until it is told to shut down and has no tasks, no ready fibers,
 * no blocked fibers and no delayed tasks (which run when due, as after {@code
 * ScheduledThreadPoolExecutor.shutdown()}); then it marks itself {@code stopped} under the lock, so enqueuers move on.
 *
 * <p><b>Pinning.</b> If the JVM cannot yield a fiber (a native frame or class initializer on its
 * stack), the fiber blocks the worker thread for that one wait ({@link #blockPinned}).
 */
final class Worker {
    enum Mode { MULTI_THREADED, SINGLE_THREADED }

    /** The worker of the current thread when it is a bound (single-threaded worker) thread. */
    private static final ThreadLocal<Worker> BOUND = new ThreadLocal<>();

    /**
     * How many times a spinning worker polls {@code num} between steal attempts. marl picked 256
     * polls of 30 nops each empirically; one {@link Thread#onSpinWait()} is a PAUSE of ~40 cycles on
     * recent x86, so 256 polls of one each keep roughly marl's cadence.
     */
    private static final int SPIN_POLLS_PER_STEAL = 256;

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
    /** work.lock, which also guards this worker's fields below. */
    final WorkerLock lock;
    private final long spinNanos;
    /** How long to spin before sleeping, adapted to recent gaps between work; this thread only. */
    private final SpinBudget spinBudget;
    private final boolean checkLocks;
    /** With checkLocks: locks the bound thread already held at bind(), which the check ignores. */
    private Set<Integer> locksHeldAtBind = Set.of();

    // Guarded by lock.
    /** A ready fiber already taken from the policy, for the trampoline to resume next. */
    private Fiber handoff;
    private final ArrayDeque<Fiber> idleFibers = new ArrayDeque<>();
    private boolean shutdown;
    /** Set when the worker loop ended because the worker shut down and drained. */
    private boolean drained;
    private int numBlockedFibers;
    /** A bound thread was interrupted while it slept for work: its status is restored after the wait. */
    private boolean interruptedWhileAsleep;
    private int fibersCreated;
    /** Head of the intrusive list, through Fiber.prevSuspended/nextSuspended, of fibers inside suspend(). */
    private Fiber suspendedHead;

    // Counters for Scheduler.stats(), each written only by this worker's thread (fibersCreated,
    // idle and blocked counts under the lock too) and read racily by stats(): a stale value is
    // fine, and plain 64-bit fields do not tear on the JVMs marl4j supports. No fences on the
    // hot path.
    private long tasksRun;
    private long tasksStolen;
    private long spinningNanos;

    /** The thread that runs this worker (its worker thread, or the bound thread): wakes from any other go through work.inbox. */
    private volatile Thread ownerThread;

    // Touched only by this worker's thread.
    /** The fiber running on this worker's thread; the main fiber when the trampoline runs. */
    Fiber current;
    Fiber main;
    private long rng;
    private Thread thread;

    Worker(Scheduler scheduler, int id, Mode mode) {
        this.scheduler = scheduler;
        this.id = id;
        this.mode = mode;
        this.spinNanos = scheduler.spinNanos;
        this.spinBudget = new SpinBudget(spinNanos);
        this.checkLocks = scheduler.checkLocks;
        this.rng = 0x9E3779B97F4A7C15L * (id + 2);
        this.work = new Work(scheduler.newPolicy());
        this.lock = work.lock;
    }

    /** current() is the worker of the calling thread, or null if the thread is neither bound nor a worker. */
    static Worker current() {
        return Thread.currentThread() instanceof WorkerThread t ? t.worker : BOUND.get();
    }

    // ---------------------------------------------------------------- life cycle

    /** bindToCurrentThread() makes this single-threaded worker the calling thread's worker. */
    void bindToCurrentThread() {
        if (checkLocks) {
            locksHeldAtBind = LockCheck.heldLocks();
        }
        main = Fiber.main(this);
        current = main;
        ownerThread = Thread.currentThread();
        BOUND.set(this);
    }

    /**
     * stopSingleThreaded() is unbind(): runs every task and blocked fiber of this bound worker to
     * completion on the calling (bound) thread, then detaches the worker from it.
     */
    void stopSingleThreaded() {
        lock.lock();
        try {
            shutdown = true;
            runUntilShutdown(main);
            work.stopped = true;
        } finally {
            lock.unlock();
            BOUND.remove();
        }
    }

    /** start(name) starts a multi-threaded worker's thread. */
    void start(String name) {
        thread = new WorkerThread(this, name, this::runThread);
        thread.start();
    }

    Thread thread() {
        return thread;
    }

    /** runThread() is the body of a multi-threaded worker's thread. */
    void runThread() {
        ownerThread = Thread.currentThread();
        main = Fiber.main(this);
        current = main;
        scheduler.initializeWorkerThread(id);
        lock.lock();
        try {
            // Start with a plain wait rather than a spin, as marl does: a new thread has no work.
            while (work.num() == 0 && !work.hasDeadlines() && !shutdown) {
                sleep();
            }
            trampoline();
        } finally {
            work.stopped = true;
            lock.unlock();
            scheduler.onWorkerStopped();
        }
    }

    /** requestStop() tells a multi-threaded worker to stop once it has drained. */
    void requestStop() {
        lock.lock();
        try {
            shutdown = true;
            work.wakeOwner();
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- enqueue, steal, wake

    /** enqueue(task) adds a task to this worker. Rejected only if the worker has stopped. */
    void enqueue(Task task) {
        lock.lock();
        if (work.stopped) {
            lock.unlock();
            throw new RejectedExecutionException("worker " + id + " of " + scheduler + " has stopped");
        }
        enqueueAndUnlock(task);
    }

    /** enqueueAndUnlock(task): called with lock held and the worker not stopped; releases lock. */
    void enqueueAndUnlock(Task task) {
        work.addTask(task);
        lock.unlock();
    }

    /** steal() takes a task from this worker for a spinning thief, or returns null. */
    Task steal() {
        return work.steal();
    }

    /** enqueueDelayed(task, deadline) parks a delayed task in the deadline heap until it is due. */
    void enqueueDelayed(DelayedTask task, long deadline) {
        lock.lock();
        try {
            if (work.stopped) {
                throw new RejectedExecutionException("worker " + id + " of " + scheduler + " has stopped");
            }
            work.addDelayed(task, deadline);
        } finally {
            lock.unlock();
        }
    }

    /** cancelDelayed(task) drops a cancelled delayed task from the heap if it is not due yet. */
    void cancelDelayed(DelayedTask task) {
        lock.lock();
        try {
            work.cancelDelayed(task);
        } finally {
            lock.unlock();
        }
    }

    /** wake(fiber) is marl's Worker::enqueue(Fiber*): queues a suspended fiber to resume. */
    void wake(Fiber fiber) {
        if (Thread.currentThread() != ownerThread) {
            // Another thread: leave the wake for this worker to apply, without its lock (WakeInbox).
            if (work.inbox.push(fiber)) {
                work.signalIfAsleep();
            }
            return;
        }
        lock.lock();
        try {
            wakeLocked(fiber);
        } finally {
            lock.unlock();
        }
    }

    /** drainInbox() applies the wakes other threads pushed to work.inbox, in arrival order. Called with lock held. */
    private void drainInbox() {
        for (Fiber fiber = work.inbox.takeAll(); fiber != null; ) {
            Fiber next = WakeInbox.next(fiber);
            wakeLocked(fiber);
            fiber = next;
        }
    }

    /** wakeLocked(fiber) is wake(fiber) with lock held. */
    private void wakeLocked(Fiber fiber) {
        fiber.wakeEpoch++; // under lock: see await()
        switch (fiber.state) {
            case RUNNING, QUEUED, IDLE:
                return; // running, already woken, or not waiting for anything
            case WAITING:
                work.removeWaiting(fiber);
                break;
            case YIELDED:
                break;
        }
        fiber.state = Fiber.State.QUEUED;
        work.addReadyFiber(fiber);
    }

    /** setPriority(fiber, priority) changes a fiber's priority and lets the policy re-order it. */
    void setPriority(Fiber fiber, int priority) {
        lock.lock();
        try {
            fiber.priority = priority;
            if (fiber.state == Fiber.State.QUEUED) {
                work.propertyChanged(fiber);
            }
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- waiting on a fiber

    /**
     * await() is marl's Worker::wait: suspends {@code fiber} (the current one) until {@code pred},
     * checked with {@code userLock} held, is true or the deadline passes. Called and returns with
     * userLock held. Returns the last value of pred.
     */
    boolean await(Fiber fiber, Lock userLock, boolean timed, long deadline, BooleanSupplier pred) {
        while (!pred.getAsBoolean()) {
            if (timed && deadline - System.nanoTime() <= 0) {
                return false;
            }
            // Read with userLock held: a waker that makes pred true must take userLock after this,
            // so its wake() bumps the epoch after this read, and is seen below or finds us suspended.
            int epoch = fiber.wakeEpoch;
            userLock.unlock();
            lock.lock();
            try {
                if (fiber.wakeEpoch == epoch) {
                    suspendChecked(fiber, timed, deadline);
                }
            } finally {
                lock.unlock();
                userLock.lock();
            }
        }
        return true;
    }

    /**
     * park() suspends {@code fiber} (the current one) unless {@code waiter} has already been
     * notified, releasing userLock meanwhile. The waiter's flag is set before its fiber is woken, so
     * a notification that races with this call is seen here or wakes the suspended fiber.
     */
    void park(Fiber fiber, Lock userLock, Waiter waiter, boolean timed, long deadline) {
        userLock.unlock();
        lock.lock();
        try {
            if (!waiter.notified) {
                suspendChecked(fiber, timed, deadline);
            }
        } finally {
            lock.unlock();
            userLock.lock();
        }
    }

    /** sleep(fiber, deadline) suspends the current fiber until the deadline has passed. */
    void sleep(Fiber fiber, long deadline) {
        lock.lock();
        try {
            while (deadline - System.nanoTime() > 0) {
                suspendChecked(fiber, true, deadline);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * yieldFiber(fiber) lets every task and fiber already queued on this worker start before the
     * current fiber continues: it queues a task that wakes the fiber, then suspends.
     */
    void yieldFiber(Fiber fiber) {
        lock.lock();
        try {
            if (work.hasDeadlines()) {
                work.expireDeadlines(System.nanoTime());
            }
            if (work.num() == 0) {
                return;
            }
            work.addTask(new Task(fiber::wake, true, fiber.priority));
            suspendChecked(fiber, false, 0);
        } finally {
            lock.unlock();
        }
    }

    private void suspendChecked(Fiber fiber, boolean timed, long deadline) {
        if (fiber != current) {
            throw new IllegalStateException(fiber + " is not the fiber running on this thread ("
                    + current + "): only a fiber can suspend itself");
        }
        if (checkLocks) {
            LockCheck.verify(locksHeldAtBind);
        }
        suspend(fiber, timed, deadline);
    }

    /**
     * suspend() is marl's Worker::suspend. Called with lock held on the current fiber; returns with
     * lock held once the fiber has been woken or its deadline has passed.
     */
    private void suspend(Fiber fiber, boolean timed, long deadline) {
        assert fiber.state == Fiber.State.RUNNING : fiber;
        if (timed) {
            fiber.state = Fiber.State.WAITING;
            work.addWaiting(fiber, deadline);
        } else {
            fiber.state = Fiber.State.YIELDED;
        }
        numBlockedFibers++;
        FiberSuspendEvent event = FiberSuspendEvent.beginIfTurnedOn(); // null, allocating nothing, unless recorded
        linkSuspended(fiber); // before the yield: the fiber is listed whenever a dumper holds the lock
        if (fiber == main) {
            trampoline();
        } else if (!FiberContinuation.suspend()) {
            blockPinned(fiber);
        }
        unlinkSuspended(fiber);
        numBlockedFibers--;
        fiber.state = Fiber.State.RUNNING;
        if (event != null) {
            event.endAndCommit(fiber, timed);
        }
    }

    /** linkSuspended(fiber) pushes fiber on the suspended list: O(1), no allocation. Called with lock held. */
    private void linkSuspended(Fiber fiber) {
        fiber.prevSuspended = null;
        fiber.nextSuspended = suspendedHead;
        if (suspendedHead != null) {
            suspendedHead.prevSuspended = fiber;
        }
        suspendedHead = fiber;
    }

    /** unlinkSuspended(fiber) removes fiber from the suspended list. Called with lock held. */
    private void unlinkSuspended(Fiber fiber) {
        Fiber prev = fiber.prevSuspended;
        Fiber next = fiber.nextSuspended;
        if (prev == null) {
            suspendedHead = next;
        } else {
            prev.nextSuspended = next;
        }
        if (next != null) {
            next.prevSuspended = prev;
        }
        fiber.prevSuspended = null;
        fiber.nextSuspended = null;
    }

    /**
     * addSuspendedTo(into, boundThread) describes, with lock held, every fiber of this worker that is
     * suspended in a wait, with where it waits; {@code boundThread} is a bound worker's thread (a
     * worker thread's is known). Holding the lock keeps each fiber unmounted while its continuation is
     * walked, since this worker resumes fibers only with its lock held; it also stalls this worker for
     * the walk, which is the price of a diagnostic snapshot.
     */
    void addSuspendedTo(List<SuspendedFiber> into, Thread boundThread) {
        Thread onThread = mode == Mode.MULTI_THREADED ? thread : boundThread;
        lock.lock();
        try {
            long now = System.nanoTime();
            for (Fiber f = suspendedHead; f != null; f = f.nextSuspended) {
                // A listed fiber that is still current did not yield: it is pinned in blockPinned(),
                // which released the lock. current is written under the lock, so it is exact here.
                into.add(SuspendedFiber.of(f, onThread, f == current, now));
            }
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- running

    /**
     * trampoline() runs fibers on the thread's own stack until the main fiber is picked to run
     * (single-threaded worker) or the worker has shut down (multi-threaded worker). Called on the
     * main fiber with lock held; the lock stays held across each fiber's run.
     */
    private void trampoline() {
        while (true) {
            Fiber next = pickNext();
            if (next == main) {
                current = main;
                return;
            }
            current = next;
            next.continuation.resume();
            current = main;
            if (drained && mode == Mode.MULTI_THREADED) {
                return; // shut down, with nothing queued and nothing blocked
            }
        }
    }

    /**
     * pickNext() waits for work, then chooses the fiber to run: a woken fiber, else an idle one to
     * run tasks, else a new one. Called with lock held.
     */
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
        return next != null ? next : newFiber();
    }

    private Fiber newFiber() {
        Fiber fiber = Fiber.create(this, ++fibersCreated);
        fiber.continuation = new FiberContinuation(fiberBody);
        return fiber;
    }

    /**
     * The body of every continuation fiber of this worker: one Runnable per worker, not a lambda
     * per fiber (24 bytes per suspended fiber). It runs the fiber that is current, which is the one
     * being started: the trampoline sets {@code current} before it first resumes a new fiber.
     */
    private final Runnable fiberBody = () -> runFiber(current);

    /** runFiber() is the body of every continuation fiber; entered with lock held. */
    private void runFiber(Fiber self) {
        self.state = Fiber.State.RUNNING;
        runUntilShutdown(self);
    }

    /** Runs the worker loop on self until the worker has drained, or self retires (returns early). */
    private void runUntilShutdown(Fiber self) {
        while (!shutdown || work.num() > 0 || numBlockedFibers > 0 || work.numDelayed() > 0) {
            waitForWork();
            if (runUntilIdle(self)) {
                return;
            }
        }
        drained = true;
    }

    /**
     * runUntilIdle() resumes ready fibers before starting new tasks, and runs tasks inline on
     * {@code self}. Called with lock held; releases it while a task runs. Returns true if self
     * should end because enough fibers are idle already.
     */
    private boolean runUntilIdle(Fiber self) {
        while (work.num() > 0) {
            if (!work.inbox.isEmpty()) {
                drainInbox(); // woken fibers go before further tasks, as when wakers took the lock
            }
            if (work.hasDeadlines()) {
                work.expireDeadlines(System.nanoTime()); // a busy worker still honours deadlines
            }
            Fiber ready = work.takeReadyFiber();
            if (ready != null) {
                handoff = ready; // the trampoline resumes it next
                if (self != main && idleFibers.size() >= MAX_IDLE_FIBERS) {
                    return true; // retire
                }
                self.state = Fiber.State.IDLE;
                idleFibers.addFirst(self);
                switchToTrampoline(self);
                self.state = Fiber.State.RUNNING;
                continue;
            }
            Task task = work.takeTask();
            if (self.priority != task.priority()) {
                self.priority = task.priority();
            }
            lock.unlock();
            try {
                runTask(task);
            } finally {
                lock.lock();
            }
        }
        return false;
    }

    private void switchToTrampoline(Fiber self) {
        if (self == main) {
            trampoline();
        } else if (!FiberContinuation.suspend()) {
            // The worker loop's own frames never pin; reaching here is a bug in marl4j.
            throw new IllegalStateException("marl4j internal error: the worker loop of " + self + " is pinned");
        }
    }

    private void runTask(Task task) {
        tasksRun++;
        TaskRunEvent event = TaskRunEvent.beginIfTurnedOn(); // null, allocating nothing, unless recorded
        try {
            task.run();
        } catch (Throwable t) {
            scheduler.reportUncaught(t);
        }
        if (event != null) {
            event.endAndCommit(this, task);
        }
    }

    /**
     * waitForWork() returns once there is a task or ready fiber, or the worker may stop. An MTW
     * spins first. Called with lock held; may release it while spinning or sleeping.
     */
    private void waitForWork() {
        if (!work.inbox.isEmpty()) {
            drainInbox();
        }
        if (work.hasDeadlines()) {
            work.expireDeadlines(System.nanoTime());
        }
        if (work.num() > 0) {
            return;
        }
        long idleSince = 0;
        if (mode == Mode.MULTI_THREADED && spinNanos > 0) {
            idleSince = System.nanoTime();
            long spinUntil = idleSince + spinBudget.nanos();
            if (work.hasDeadlines() && work.nextDeadline() - spinUntil < 0) {
                spinUntil = work.nextDeadline();
            }
            scheduler.onBeginSpinning(id);
            lock.unlock();
            Task stolen;
            long spinStart = System.nanoTime();
            try {
                stolen = spinForWork(spinUntil);
            } finally {
                spinningNanos += System.nanoTime() - spinStart;
                lock.lock();
            }
            if (stolen != null) {
                tasksStolen++;
                work.addTask(stolen);
                spinBudget.workArrived(System.nanoTime() - idleSince);
                return;
            }
            if (!work.inbox.isEmpty()) {
                drainInbox();
            }
        }
        while (work.num() == 0 && !(shutdown && numBlockedFibers == 0 && work.numDelayed() == 0)) {
            sleep();
        }
        if (idleSince != 0) {
            spinBudget.workArrived(System.nanoTime() - idleSince);
        }
        restoreInterrupt();
    }

    /** sleep() sleeps until work is added or the earliest deadline passes, then expires deadlines. */
    private void sleep() {
        try {
            work.sleep();
        } catch (InterruptedException e) {
            // Worker threads ignore interrupts (fibers share the thread); a bound thread keeps its
            // status, restored once the wait is over (restoring it here would fail the next sleep).
            interruptedWhileAsleep |= mode == Mode.SINGLE_THREADED;
        }
        if (!work.inbox.isEmpty()) {
            drainInbox();
        }
        if (work.hasDeadlines()) {
            work.expireDeadlines(System.nanoTime());
        }
    }

    /** spinForWork() is called without the lock; returns a stolen task, or null when work arrived or time is up. */
    private Task spinForWork(long spinUntil) {
        do {
            for (int i = 0; i < SPIN_POLLS_PER_STEAL; i++) {
                Thread.onSpinWait();
                if (work.numAcquire() > 0 || !work.inbox.isEmpty()) {
                    return null;
                }
            }
            Task stolen = scheduler.steal(this, nextRandom());
            if (stolen != null) {
                return stolen;
            }
            Thread.yield();
        } while (System.nanoTime() - spinUntil < 0);
        return null;
    }

    /**
     * blockPinned() is the fallback when the JVM pinned the fiber: it blocks this worker's thread
     * until the fiber is woken or its deadline passes. Called with lock held.
     */
    private void blockPinned(Fiber fiber) {
        while (fiber.state != Fiber.State.QUEUED) {
            sleep();
        }
        work.removeReadyFiber(fiber);
        restoreInterrupt();
    }

    private void restoreInterrupt() {
        if (interruptedWhileAsleep) {
            interruptedWhileAsleep = false;
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- helpers

    /** addStatsTo(totals) adds this worker's counters, read racily, to totals. */
    void addStatsTo(long[] totals) {
        totals[0] += tasksRun;
        totals[1] += tasksStolen;
        totals[2] += fibersCreated;
        totals[3] += idleFibers.size(); // racy size of an ArrayDeque: a gauge, possibly stale
        totals[4] += numBlockedFibers;
        totals[5] += spinningNanos;
    }

    private long nextRandom() {
        long x = rng;
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        rng = x;
        return x;
    }

    @Override
    public String toString() {
        return (mode == Mode.MULTI_THREADED ? "worker " + id : "bound worker") + " of " + scheduler;
    }
}
