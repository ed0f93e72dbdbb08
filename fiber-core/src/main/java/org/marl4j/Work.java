package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.RejectedExecutionException;

/**
 * Work is one worker's queue of work, its lock, and every call other threads make on a worker:
 * marl's {@code Worker::Work}. Enqueuers add tasks, wakers add ready fibers, thieves take tasks,
 * timers come due, the scheduler stops it, and its monitor looks at it (and files the due timers of
 * an owner stalled in a task). The worker's own run loop
 * lives in {@link Worker}; the batch steals in {@link Steals}, the owner's sleep, with the
 * calls that end it, in {@link OwnerSleep}, the deadline heap, with the filing, cancelling and
 * expiring of timed waits and delayed tasks, in {@link Deadlines}, and the tasks and wakes that
 * come without the lock, with their draining into the policy, in {@link Inboxes}: all four held
 * here, and all under this class's lock where they need one.
 *
 * <p>What it holds, all guarded by {@link #lock}: the {@link SchedulingPolicy}, with the queued
 * tasks and the ready fibers in the order it decides; the {@link Deadlines} heap of fibers waiting
 * with a timeout and of delayed tasks not yet due (what comes due joins the policy through {@link
 * #addReadyFiber} and {@link #addedTask}); and {@code num}, the count of tasks and fibers
 * in the policy, written under the lock and read without it by a spinning owner, thieves and the
 * monitor.
 *
 * <p>Inboxes: with a built-in policy, {@link #tryEnqueue} and {@link #enqueueOwn}, and a {@link
 * #wake} from another thread, push onto lock-free {@link Inboxes} rather than take the lock, and
 * whoever holds it next moves them into the policy ({@link Inboxes#drainInbox()}). The entry points
 * here keep the rest: the locked path (a custom policy, a full ring), the signal to a sleeping
 * owner, a wake on the owner's thread. {@code num} counts only what the policy holds; readers
 * without the lock add the inboxes ({@link #queued()}, {@link #hasArrivals()}); {@code numTasks}
 * counts the tasks among {@code num}, for thieves ({@link #tasksQueued()}).
 *
 * <p>Stealing, in batches through the thief's steal buffer, is {@link Steals}: the victim's
 * side takes this class's lock, the thief's side runs under the thief's own. Here is only the
 * stealable count ({@link #tasksQueued()}) and the taking of one task ({@link #stealLocked()}).
 *
 * <p>The owner's sleep, and how adders, inbox pushers, the monitor and enqueuers end it, is {@link
 * OwnerSleep}, which takes and requires this class's lock.
 *
 * <p>Lock discipline: methods marked {@link Excludes} take the lock themselves (other threads call
 * them); methods marked {@link GuardedBy} are called with it held. User code runs under the lock in
 * one place only, the {@link SchedulingPolicy}, which may throw: every policy call is made before
 * any of this class's own state changes, so a throwing policy leaves the counts consistent, and
 * every method that takes the lock releases it in {@code finally}.
 */
final class Work {
    private static final VarHandle NUM;
    private static final VarHandle ACTIVITY;
    private static final VarHandle PROGRESS;
    private static final VarHandle NUM_TASKS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            NUM = lookup.findVarHandle(Work.class, "num", int.class);
            ACTIVITY = lookup.findVarHandle(Work.class, "activity", int.class);
            PROGRESS = lookup.findVarHandle(Work.class, "progress", long.class);
            NUM_TASKS = lookup.findVarHandle(Work.class, "numTasks", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** activity: the owner runs its loop, a task or a fiber. */
    static final int ACTIVE = 0;
    /** activity: the owner spins for work. */
    static final int SPINNING = 1;
    /** activity: the owner sleeps for want of work (not a pinned fiber's wait): it may be sent to steal. */
    static final int IDLE = 2;

    final WorkerLock lock = new WorkerLock();
    private final SchedulingPolicy policy;
    /** The owner's sleep, and the signals and steal requests that end it. */
    final OwnerSleep ownerSleep;
    /** Thieves' batch steals from here, and this owner's steal buffer when it is the thief. */
    final Steals steals;
    /** The deadline heap, of fibers waiting with a timeout and delayed tasks, and the calls that file, cancel and expire them. */
    final Deadlines deadlines;
    /** The tasks and woken fibers that came without the lock, not yet in the policy, and their draining. */
    final Inboxes inboxes;
    /** True with a built-in policy, whose enqueue never throws: its tasks may come through the inboxes and steal buffer. */
    final boolean lockFreeEnqueue;
    /** Set by requestStop() (a worker thread, at close) or by unbind() (a bound worker): the owner drains, then stops. */
    @GuardedBy("lock")
    boolean shutdown;
    /** Set once the worker has drained and stopped: adders then pick another worker. */
    @GuardedBy("lock")
    boolean stopped;

    @SuppressWarnings("unused") // accessed through NUM; written under lock, read racily
    private volatile int num;
    /**
     * The tasks among {@code num} (the rest are ready fibers, which are never stolen): written under
     * the lock, read racily by thieves, so a thief never touches the lock of a worker that only has
     * fibers to resume (two fibers on two workers waking each other, say).
     */
    @SuppressWarnings("unused") // accessed through NUM_TASKS
    private volatile int numTasks;
    /** ACTIVE, SPINNING or IDLE; written by the owner only (opaque), read racily by the monitor. */
    @SuppressWarnings("unused") // accessed through ACTIVITY
    private int activity;
    /** Bumped by the owner (opaque) at every task start and fiber switch; the monitor reads it racily. */
    @SuppressWarnings("unused") // accessed through PROGRESS
    private long progress;

    /** policy() is this worker's scheduling policy; only for identity checks, never called through without the lock. */
    SchedulingPolicy policy() {
        return policy;
    }

    Work(SchedulingPolicy policy, WorkerStats stats) {
        this.policy = policy;
        this.ownerSleep = new OwnerSleep(this, stats);
        this.steals = new Steals(this);
        this.deadlines = new Deadlines(this, policy);
        this.inboxes = new Inboxes(this);
        this.lockFreeEnqueue = policy instanceof FifoPolicy || policy instanceof PriorityPolicy;
        setActivity(IDLE); // until its thread runs: a worker not started yet has not stalled
    }

    // ---------------------------------------------------------------- calls from other threads

    /** enqueue(task) adds a task. Rejected only if the worker has stopped; a policy's exception propagates. */
    @Excludes("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that inboxes.work.lock names
    void enqueue(Task task, Worker owner) {
        lock.lock();
        try {
            if (stopped) {
                throw new RejectedExecutionException(owner + " has stopped");
            }
            inboxes.drainTasks(); // the owner's earlier tasks, still in its ring, go first (FIFO per producer)
            addTask(task);
        } finally {
            lock.unlock();
        }
    }

    /** tryEnqueue's answer: the lock was contended or the worker has stopped; try another worker. */
    static final int NOT_ADDED = 0;
    /** tryEnqueue's answer: added, and the owner was asleep, so it was signalled and will run it. */
    static final int ADDED_OWNER_WOKEN = 1;
    /** tryEnqueue's answer: added to an owner that is awake (busy, perhaps blocked in a task, or spinning). */
    static final int ADDED_OWNER_AWAKE = 2;

    /**
     * tryEnqueue(task) adds a task unless the lock is contended or the worker has stopped. Returns
     * {@link #NOT_ADDED}, so the scheduler moves on to another worker, or says whether the owner was
     * asleep, so the scheduler knows whether to wake another worker that could take it. A policy's
     * exception propagates.
     */
    @Excludes("lock")
    int tryEnqueue(Task task) {
        if (lockFreeEnqueue) {
            if (!inboxes.pushTask(task)) {
                return NOT_ADDED; // closed: the worker has stopped
            }
            if (ownerSleep.asleep()) { // read after the push: see OwnerSleep.signalIfAsleep()
                ownerSleep.signalIfAsleep();
                return ADDED_OWNER_WOKEN;
            }
            return ADDED_OWNER_AWAKE;
        }
        if (!lock.tryLock()) {
            if (lock.isHeldByCurrentThread()) {
                throw WorkerLock.reentered(); // the caller would retry this worker forever
            }
            return NOT_ADDED;
        }
        try {
            if (stopped) {
                return NOT_ADDED;
            }
            boolean asleep = ownerSleep.asleep();
            addTask(task);
            return asleep ? ADDED_OWNER_WOKEN : ADDED_OWNER_AWAKE;
        } finally {
            lock.unlock();
        }
    }

    /**
     * enqueueOwn(task) is {@link #tryEnqueue} for the owner's own thread (a task or fiber running on
     * this worker made the task): the task goes into the owner's ring, which takes no lock and no
     * compare-and-set, and the owner, running, needs no signal. When the ring is full the owner
     * takes its lock and moves the ring into the policy first, so its tasks keep their order.
     * Returns {@link #NOT_ADDED} once the worker has stopped, else {@link #ADDED_OWNER_AWAKE}.
     */
    @Excludes("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that inboxes.work.lock names
    int enqueueOwn(Task task, Worker owner) {
        assert owner.onOwnerThread() : "enqueueOwn off the owner's thread";
        if (!lockFreeEnqueue) {
            return tryEnqueue(task); // a custom policy's callback enqueueing under the lock is refused there
        }
        assert !lock.isHeldByCurrentThread() : "enqueueOwn under the worker's own lock: a full ring would deadlock";
        if (inboxes.ownTasksClosed()) {
            return NOT_ADDED;
        }
        if (inboxes.offerOwn(task)) {
            return ADDED_OWNER_AWAKE;
        }
        lock.lock();
        try {
            if (stopped) {
                return NOT_ADDED;
            }
            inboxes.drainTasks();
            addTask(task);
            return ADDED_OWNER_AWAKE;
        } finally {
            lock.unlock();
        }
    }

    /**
     * wake(fiber) is marl's Worker::enqueue(Fiber*): queues a suspended fiber to resume. From
     * another thread it only pushes the fiber onto the inbox (no lock: the owner holds it across
     * fiber switches, so a waker would often wait for it) and signals a sleeping owner; the owner
     * performs the wake when it drains the inbox ({@link Inboxes#drainInbox()}), which it does
     * before it could sleep. On the owner's thread the lock is free and uncontended, and it wakes
     * the fiber at once. If the policy's {@code awakened} throws there, the fiber goes onto the
     * inbox, as a wake from another thread would, and the exception to the caller: this thread's
     * next drain wakes it (the drain retries as often as the policy refuses), so its wake, already
     * spent by its notifier, is not lost with it.
     */
    @Excludes("lock")
    void wake(Fiber fiber) {
        if (!fiber.worker.onOwnerThread()) {
            if (inboxes.pushWoken(fiber)) {
                ownerSleep.signalIfAsleep();
            }
            return;
        }
        lock.lock();
        try {
            wakeLocked(fiber);
        } catch (RuntimeException | Error policyFailure) { // awakened() threw before the fiber changed state
            inboxes.pushWoken(fiber); // the owner is this thread, awake: no signal needed
            throw policyFailure;
        } finally {
            lock.unlock();
        }
    }

    /**
     * wakeClaimed(newest, oldest) is {@link #wake} from another thread for a chain of fibers of this
     * worker, claimed in the inbox and linked newest-first (see {@link WakeBatch}): one push for all.
     */
    @Excludes("lock")
    void wakeClaimed(Fiber newest, Fiber oldest) {
        inboxes.pushClaimed(newest, oldest);
        ownerSleep.signalIfAsleep();
    }

    /** queued() estimates, without the lock, how many tasks and ready fibers wait: the policy's and the inboxes'. */
    int queued() {
        return numAcquire() + inboxes.queued();
    }

    /**
     * tasksWaiting() counts, without the lock, the tasks queued here to start (not ready fibers nor
     * delayed tasks): the policy's and the inboxes'. Racy, for {@link Scheduler#stats()}.
     */
    int tasksWaiting() {
        return (int) NUM_TASKS.getAcquire(this) + inboxes.tasksWaiting();
    }

    /** hasArrivals() is true, without the lock, when a task or ready fiber waits in the policy or an inbox. */
    boolean hasArrivals() {
        return numAcquire() > 0 || inboxes.hasPushed();
    }

    /** wakeLocked(fiber) bumps the wake epoch and queues the fiber if it is suspended (and {@link Inboxes#drainInbox()}'s wakes). */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that fiber.worker.lock names
    void wakeLocked(Fiber fiber) {
        fiber.wakeEpoch++; // under lock: see FiberWaits.await()
        if (fiber.state == Fiber.State.YIELDED || fiber.state == Fiber.State.WAITING) {
            addReadyFiber(fiber);
        } // RUNNING, QUEUED, IDLE: running, already woken, or not waiting for anything
    }

    /** setPriority(fiber, priority) changes a fiber's priority and lets the policy re-order it. */
    @Excludes("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that fiber.worker.lock names
    void setPriority(Fiber fiber, int priority) {
        lock.lock();
        try {
            fiber.setPriorityLocked(priority);
            if (fiber.state == Fiber.State.QUEUED) {
                policy.propertyChanged(fiber);
            }
        } finally {
            lock.unlock();
        }
    }

    /** requestStop() tells the owner to stop once it has drained. */
    @Excludes("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that ownerSleep.lock names
    void requestStop() {
        lock.lock();
        try {
            shutdown = true;
            ownerSleep.wakeOwner();
        } finally {
            lock.unlock();
        }
    }

    /**
     * tasksQueued() estimates, without the lock, how many tasks wait here, for a thief: 0, 1, or 2
     * meaning two or more. Racy: a hint for whether to steal, never a promise.
     */
    int tasksQueued() {
        int n = (int) NUM_TASKS.getAcquire(this);
        if (n >= 2) {
            return 2;
        }
        return Math.min(2, n + inboxes.taskHint());
    }

    /** numTasksLocked() is the count of tasks among num(), read under the lock: how many a thief may take half of. */
    @GuardedBy("lock")
    int numTasksLocked() {
        return (int) NUM_TASKS.get(this);
    }

    /** stealLocked() takes a stealable task, or returns null: for a thief, or a pinned wait of the owner. */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that inboxes.work.lock names
    Task stealLocked() {
        if (stopped) {
            return null;
        }
        inboxes.drainTasks(); // the policy sees every task before any is stolen
        Task task = policy.steal();
        if (task != null) {
            assert !task.is(Task.Flag.SAME_THREAD) : "policy " + policy + " gave away a SAME_THREAD task";
            removedTask();
        }
        return task;
    }

    // ---------------------------------------------------------------- tasks and ready fibers (lock held)

    /** num() counts the queued tasks and ready fibers. */
    int num() {
        return (int) NUM.get(this);
    }

    /** holdsOnly() is true when one task waits here and nothing else, a racy hint. Any thread. */
    boolean holdsOnly() {
        return numAcquire() == 0 && inboxes.taskHint() == 1;
    }

    /** numAcquire() is num() for callers without the lock: a spinning owner, a thief, the monitor. */
    int numAcquire() {
        return (int) NUM.getAcquire(this);
    }

    /** addTask(task) queues a task; if the policy throws, nothing changed. */
    @GuardedBy("lock")
    void addTask(Task task) {
        policy.enqueued(task);
        addedTask();
    }

    /** addReadyFiber(fiber) queues a suspended fiber to resume; if the policy throws, nothing changed. */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that deadlines.lock, fiber.worker.lock name
    void addReadyFiber(Fiber fiber) {
        policy.awakened(fiber);
        if (fiber.state == Fiber.State.WAITING) {
            deadlines.remove(fiber.timerIfAny()); // a WAITING fiber has one, filed by Deadlines.addWaiting
        }
        fiber.changeState(fiber.state, Fiber.State.QUEUED);
        added();
    }

    /** takeReadyFiber() removes the fiber the policy resumes next, or returns null if a task goes first. */
    @GuardedBy("lock")
    Fiber takeReadyFiber() {
        Fiber fiber = policy.pickNextFiber();
        if (fiber != null) {
            removed();
        }
        return fiber;
    }

    /**
     * takeTask() removes the task the policy starts next; called when num() is positive and no
     * fiber goes first. A policy that then has nothing breaks its contract: the count is reset to
     * what it says it holds (nothing) and the error reported, so the worker is not left spinning.
     */
    @GuardedBy("lock")
    Task takeTask() {
        Task task = policy.pickNextTask();
        if (task == null) {
            int lost = num();
            NUM.setRelease(this, 0);
            NUM_TASKS.setRelease(this, 0);
            throw new IllegalStateException("scheduling policy " + policy + " holds " + lost
                    + " task(s) or fiber(s) it does not hand out: see SchedulingPolicy's contract");
        }
        removedTask();
        return task;
    }

    /** removeReadyFiber(fiber) takes a particular ready fiber out of the policy. */
    @GuardedBy("lock")
    void removeReadyFiber(Fiber fiber) {
        if (policy.remove(fiber)) {
            removed();
        }
    }

    // ---------------------------------------------------------------- the owner's activity, for the monitor

    /** setActivity(a) publishes what the owner does, for the monitor. Called by the owner only. */
    void setActivity(int a) {
        ACTIVITY.setOpaque(this, a);
    }

    int activity() {
        return (int) ACTIVITY.getOpaque(this);
    }

    /** progressed() records that the owner started a task or switched fibers. Called by the owner only. */
    void progressed() {
        PROGRESS.setOpaque(this, (long) PROGRESS.getOpaque(this) + 1);
    }

    long progress() {
        return (long) PROGRESS.getOpaque(this);
    }

    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that ownerSleep.lock names
    private void added() {
        NUM.setRelease(this, num() + 1);
        ownerSleep.wakeOwner();
    }

    @GuardedBy("lock")
    private void removed() {
        NUM.setRelease(this, num() - 1);
    }

    /** addedTask() counts a task the policy has just taken: addTask's, and a due delayed task's ({@link Deadlines#expireDeadlines}). */
    @GuardedBy("lock")
    void addedTask() {
        NUM_TASKS.setRelease(this, (int) NUM_TASKS.get(this) + 1);
        added();
    }

    @GuardedBy("lock")
    private void removedTask() {
        NUM_TASKS.setRelease(this, (int) NUM_TASKS.get(this) - 1);
        removed();
    }

    /** enqueueDelayed(task, deadline, owner) files a delayed task in this worker's deadline heap ({@link Deadlines#enqueueDelayed}). */
    @Excludes("lock")
    void enqueueDelayed(DelayedTask task, long deadline, Worker owner) {
        deadlines.enqueueDelayed(task, deadline, owner);
    }

    /** cancelDelayed(task) takes a cancelled delayed task out of the deadline heap ({@link Deadlines#cancelDelayed}). */
    @Excludes("lock")
    void cancelDelayed(DelayedTask task) {
        deadlines.cancelDelayed(task);
    }

    /** dropDelayed() cancels the delayed tasks pending here, for a bounded close ({@link Deadlines#dropDelayed}). */
    @Excludes("lock")
    int dropDelayed() {
        return deadlines.dropDelayed();
    }

    /** delayedSummary() describes the delayed tasks pending here, for close()'s warning ({@link Deadlines#delayedSummary}). */
    @Excludes("lock")
    String delayedSummary() {
        return deadlines.delayedSummary();
    }

    /** steal(into) takes tasks from here for the thief whose work is into ({@link Steals#steal}). */
    @Excludes("lock")
    Task steal(Work into) {
        return steals.steal(into);
    }

    /** stealWaiting(into) is {@link #steal} for a thief that was sent here ({@link Steals#stealWaiting}). */
    @Excludes("lock")
    Task stealWaiting(Work into) {
        return steals.stealWaiting(into);
    }

    /** sendToSteal(victim) asks this worker, if it sleeps idle, to wake and steal from victim ({@link OwnerSleep#sendToSteal}). */
    @Excludes("lock")
    boolean sendToSteal(Worker victim) {
        return ownerSleep.sendToSteal(victim);
    }

    @Override
    public String toString() {
        return "Work[num=" + numAcquire() + ", policy=" + policy + "]";
    }
}
