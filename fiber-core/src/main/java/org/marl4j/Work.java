package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * Work is one worker's queues, its lock, and every call other threads make on a worker: marl's
 * {@code Worker::Work}. Enqueuers add tasks, wakers add ready fibers (marl's
 * {@code Worker::enqueue(Fiber*)}, {@link #wake}), thieves take tasks, timers come due, the
 * scheduler stops it, a bounded close cancels its waits, and its monitor looks at it. The worker's
 * own run loop, and how its fibers suspend, live in {@link Worker}, which holds this as its part.
 *
 * <p><b>What it holds</b>, all guarded by {@link #lock} (marl's {@code work.mutex}, a {@link
 * WorkerLock}, below) unless said: the {@link SchedulingPolicy}, with the queued tasks and the
 * ready fibers in the order it decides (with the default {@link FifoPolicy}, the ready fibers wait
 * here, in {@code readyFibers}, marl's {@code work.fibers}); the inboxes, where tasks and wakes
 * that came without the lock wait for the policy (below); the {@link Deadlines} heap of fibers
 * waiting with a timeout and of delayed tasks not yet due (what comes due joins the policy, {@link
 * #expireDeadlines}; other threads file and cancel delayed tasks through {@code Deadlines}' static
 * calls, which take this lock); the list of suspended fibers (its size is marl's {@code
 * numBlockedFibers}; a bounded close cancels them through {@link Closing#cancelWaits}); the owner's
 * sleep (marl's {@code work.added} condition); and {@code num}, the count of tasks and fibers in
 * the policy, written under the lock and read without it by a spinning owner, thieves and the
 * monitor. The batch steals are {@link Steals}', which takes this lock for the victim's side.
 *
 * <p><b>Inboxes.</b> The owner holds the lock across fiber switches, so an enqueuer or waker that
 * took it, as marl's do, would often wait for it. With a built-in policy (whose {@code enqueued}
 * never throws, {@link #lockFreeEnqueue}) they push instead: a task from another thread onto the
 * lock-free {@link TaskInbox} ({@link #tryEnqueue}), a task the owner's own thread made into its
 * single-producer {@link LocalTaskRing} ({@link #enqueueOwn}), a fiber woken from another thread
 * onto the {@link WakeInbox} ({@link #wake}); and the tasks a throwing policy refused in an earlier
 * drain or after a steal wait first in line as pending tasks ({@link #keepPending}). Whoever holds
 * the lock next (the owner at each turn of its loop and around each sleep, or a thief before it
 * steals) moves them into the policy in one batch ({@link #drainInbox()}): the pending tasks, the
 * ring, the task inbox, then the wakes, so the policy still sees every task and fiber in push order.
 * An enqueuer that takes the lock drains the tasks first ({@link #drainTasks()}), so the earlier
 * tasks of the owner's ring keep their place. {@code num} counts only what the policy holds;
 * readers without the lock add the inboxes ({@link #queued()}, {@link #hasArrivals()},
 * {@link #tasksQueued()}, {@link #holdsOnly()}). Pushes take no lock: the stacks are many-pusher
 * (a compare-and-set on their head), the ring has one pusher, the owner's thread, which alone also
 * reads and writes {@code ownTasksClosed}; the lock holder is the one consumer of all of them.
 *
 * <p><b>The owner's sleep.</b> The owner sleeps on {@code added} only inside {@link #sleep}, and
 * adders signal it only then ({@code notifyAdded}), so a busy or spinning owner costs adders no
 * signal. An inbox pusher reads {@code notifyAdded} after its push, and the owner checks the
 * inboxes after setting it, both through volatile accesses, so one of them sees the other
 * ({@link #signalIfAsleep()}): a sleeping owner is always signalled, and only the first pusher of a
 * sleep takes the lock to signal. The scheduler's monitor may send an idle sleeper to steal
 * ({@link #sendToSteal}), an enqueuer may wake it to look for work anywhere ({@link #wakeToSteal});
 * the owner answers both when it wakes ({@link Worker}'s sleepForWork).
 *
 * <p><b>Lock discipline.</b> Methods marked {@link Excludes} take the lock themselves (other
 * threads call them); methods marked {@link GuardedBy} are called with it held. User code runs under
 * the lock in one place only, the {@link SchedulingPolicy}, which may throw: every policy call is
 * made before any of this class's own state changes, so a throwing policy leaves the counts
 * consistent (a drain puts back what the policy did not take), and every method that takes the lock
 * releases it in {@code finally}. A fiber's own fields are guarded by this same lock, reached as
 * {@code fiber.worker.work.lock}; the checker cannot see that a fiber listed or woken here is this
 * worker's, so the methods that touch them say so where they suppress it.
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
    /** The owner's sleep: signalled when work is added while it sleeps. */
    private final Condition added = lock.newCondition();
    private final SchedulingPolicy policy;
    /** This owner's steal buffer, for when it is the thief. */
    final Steals steals = new Steals();
    /** The deadline heap, of fibers waiting with a timeout and delayed tasks not yet due. */
    @GuardedBy("lock")
    final Deadlines deadlines = new Deadlines();
    /** True with a built-in policy, whose enqueue never throws: its tasks may come through the inboxes and steal buffer. */
    final boolean lockFreeEnqueue;
    /** The policy when it is a {@link FifoPolicy}, which gives a thief's batch from its newest end; else null. */
    private final FifoPolicy fifo;
    /**
     * With a {@link FifoPolicy}, the ready fibers in the order they were woken: marl's
     * {@code work.fibers}, kept here rather than in the policy because every wake and resume passes
     * through it, so the default path stays in this file. Null with another policy, which orders
     * its ready fibers itself.
     */
    @GuardedBy("lock")
    private final ArrayDeque<Fiber> readyFibers;
    /** The owner's counters; only the owner writes them (here, its idle sleeps). */
    private final WorkerStats stats;
    /** Set by requestStop() (a worker thread, at close) or by unbind() (a bound worker): the owner drains, then stops. */
    @GuardedBy("lock")
    boolean shutdown;
    /** Set once the worker has drained and stopped: adders then pick another worker. */
    @GuardedBy("lock")
    boolean stopped;
    /**
     * Set by {@link #cancelWaits()}, a bounded close giving up: every suspended and every later wait
     * of this worker's fibers throws FiberCancelledException. Read racily by a fiber before it waits.
     */
    @GuardedBy("lock")
    boolean waitsCancelled;

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

    // The inboxes: what came without the lock, not yet in the policy.
    /** Fibers other threads woke, not yet taken by the owner ({@link #drainInbox()}). */
    private final WakeInbox wakeInbox = new WakeInbox();
    /**
     * Tasks enqueued by {@link #tryEnqueue} without the lock. Used only with a built-in policy,
     * which never throws: a custom policy's {@code enqueued} runs in the enqueuer's call, under the
     * lock, so its exception still reaches the enqueuer.
     */
    private final TaskInbox taskInbox = new TaskInbox();
    /** Tasks the owner's own thread enqueued ({@link #enqueueOwn}): the single-producer counterpart of taskInbox. */
    private final LocalTaskRing ownTasks = new LocalTaskRing();
    /** Set by the owner once it has drained for good and closed its inboxes: its own enqueues go elsewhere. Owner's thread only. */
    private boolean ownTasksClosed;
    /** Tasks taken from an inbox or the ring, or stolen, that a throwing policy did not accept yet: they go first next time. */
    @GuardedBy("lock")
    private TaskInbox.Node pendingTasks;

    // The owner's sleep.
    /**
     * True while the owner sleeps in sleep(): adders must signal. Written under the lock; volatile
     * for a pusher onto an inbox, which reads it without the lock (see {@link #signalIfAsleep()}).
     */
    private volatile boolean notifyAdded;
    /** Set by the one inbox pusher that signals the owner's current sleep; cleared as each sleep begins. */
    private final AtomicBoolean sleepSignalled = new AtomicBoolean();
    /**
     * When a pusher last signalled the sleeping owner ({@link System#nanoTime()}), or 0: the moment
     * the work arrived, which the owner's {@link SpinBudget} must judge by rather than the moment it
     * woke, or the wake-up's own latency makes every gap look long.
     */
    @GuardedBy("lock")
    private long signalledAt;
    /** True while the owner sleeps in sleep(true), idle: the monitor may send it to steal. */
    @GuardedBy("lock")
    private boolean idleAsleep;
    /** The worker the monitor asked the sleeping owner to steal from, or null. */
    @GuardedBy("lock")
    private Worker stealFrom;
    /**
     * Set when an enqueuer woke the sleeping owner to look for work on every worker (Go's wakep):
     * the owner then holds one count of the scheduler's spinning workers, and gives it back.
     */
    @GuardedBy("lock")
    private boolean stealAny;

    // The suspended fibers.
    /**
     * The head of the fibers inside a wait (between suspending and resuming): an intrusive, circular
     * doubly linked list through {@link Fiber#prevSuspended}/{@link Fiber#nextSuspended} around this
     * sentinel, a Fiber that never runs, so listing and unlisting cost O(1), allocate nothing, and
     * take no branch: {@link #unlistSuspended} runs on every resume, right after the yield, in code
     * C2 inlines into the frames of every suspended fiber, and a branch seen one way while C2
     * compiled it would become an uncommon trap that deoptimizes that code when the other way comes,
     * and fibers suspending meanwhile would freeze larger, interpreted frames.
     */
    private final Fiber suspended;
    /** How many fibers are listed in {@link #suspended}: marl's {@code numBlockedFibers}. */
    @GuardedBy("lock")
    private int numSuspended;

    /** policy() is this worker's scheduling policy; only for identity checks, never called through without the lock. */
    SchedulingPolicy policy() {
        return policy;
    }

    Work(SchedulingPolicy policy, WorkerStats stats) {
        this.policy = policy;
        this.stats = stats;
        this.lockFreeEnqueue = policy instanceof FifoPolicy || policy instanceof PriorityPolicy;
        this.fifo = policy instanceof FifoPolicy fifoPolicy ? fifoPolicy : null;
        this.readyFibers = fifo != null ? new ArrayDeque<>() : null;
        this.suspended = Fiber.sentinel();
        setActivity(IDLE); // until its thread runs: a worker not started yet has not stalled
    }

    // ---------------------------------------------------------------- enqueue and wake, from any thread

    /** enqueue(task) adds a task. Rejected only if the worker has stopped; a policy's exception propagates. */
    @Excludes("lock")
    void enqueue(Task task, Worker owner) {
        lock.lock();
        try {
            if (stopped) {
                throw new RejectedExecutionException(owner + " has stopped");
            }
            drainTasks(); // the owner's earlier tasks, still in its ring, go first (FIFO per producer)
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
            if (!taskInbox.push(task)) {
                return NOT_ADDED; // closed: the worker has stopped
            }
            if (notifyAdded) { // read after the push: see signalIfAsleep()
                signalIfAsleep();
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
            boolean asleep = notifyAdded;
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
    int enqueueOwn(Task task, Worker owner) {
        assert owner.onOwnerThread() : "enqueueOwn off the owner's thread";
        if (!lockFreeEnqueue) {
            return tryEnqueue(task); // a custom policy's callback enqueueing under the lock is refused there
        }
        assert !lock.isHeldByCurrentThread() : "enqueueOwn under the worker's own lock: a full ring would deadlock";
        if (ownTasksClosed) {
            return NOT_ADDED;
        }
        if (ownTasks.offer(task)) {
            return ADDED_OWNER_AWAKE;
        }
        lock.lock();
        try {
            if (stopped) {
                return NOT_ADDED;
            }
            drainTasks();
            addTask(task);
            return ADDED_OWNER_AWAKE;
        } finally {
            lock.unlock();
        }
    }

    /**
     * wake(fiber) is marl's Worker::enqueue(Fiber*): queues a suspended fiber to resume. From
     * another thread it only pushes the fiber onto the wake inbox (no lock: the owner holds it across
     * fiber switches, so a waker would often wait for it) and signals a sleeping owner; the owner
     * performs the wake when it drains the inbox ({@link #drainInbox()}), which it does before it
     * could sleep. On the owner's thread the lock is free and uncontended, and it wakes the fiber at
     * once. If the policy's {@code awakened} throws there, the fiber goes onto the inbox, as a wake
     * from another thread would, and the exception to the caller: this thread's next drain wakes it
     * (the drain retries as often as the policy refuses), so its wake, already spent by its
     * notifier, is not lost with it.
     */
    @Excludes("lock")
    void wake(Fiber fiber) {
        if (!fiber.worker.onOwnerThread()) {
            if (wakeInbox.push(fiber)) { // false: in already, and its pusher signals
                signalIfAsleep();
            }
            return;
        }
        lock.lock();
        try {
            wakeLocked(fiber);
        } catch (RuntimeException | Error policyFailure) { // awakened() threw before the fiber changed state
            wakeInbox.push(fiber); // the owner is this thread, awake: no signal needed
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
        wakeInbox.pushClaimed(newest, oldest);
        signalIfAsleep();
    }

    /**
     * signalIfAsleep() wakes the owner if it sleeps, for a task or fiber just pushed onto an inbox;
     * only the first pusher of a sleep takes the lock to signal. The pusher's push and its read of
     * notifyAdded, and the owner's write of notifyAdded and its check of the inboxes in sleep(), are
     * each ordered by volatile accesses, so either the owner sees the push or the pusher signals.
     */
    @Excludes("lock")
    void signalIfAsleep() {
        if (notifyAdded && sleepSignalled.compareAndSet(false, true)) {
            lock.lock();
            try {
                signalledAt = System.nanoTime();
                added.signal();
            } finally {
                lock.unlock();
            }
        }
    }

    /** wakeLocked(fiber) bumps the wake epoch and queues the fiber if it is suspended; {@link #drainInbox()}'s wake. */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // fiber is this worker's: lock is the fiber.worker.work.lock its state needs
    void wakeLocked(Fiber fiber) {
        fiber.wakeEpoch++; // under lock: see Worker's overview
        if (fiber.state == Fiber.State.YIELDED || fiber.state == Fiber.State.WAITING) {
            if (fiber.blockedInJdk() && !fiber.virtualThread().runnable) {
                // Only the JDK resumes a fiber blocked in one of its calls: it submits the thread's
                // run task (VirtualFiber.execute, which sets runnable first) once per unpark, after
                // the state change. Run on a marl4j wake instead, the thread could start between
                // the two, and the late submit would then be taken for a new wake, or for the
                // fiber's own yield to its worker (the yield's hand-back then a wake, which on a
                // locked switch blocks the worker on the lock its unmounted fiber holds).
                return;
            }
            addReadyFiber(fiber);
        } // RUNNING, QUEUED, IDLE: running, already woken, or not waiting for anything
    }

    /** setPriority(fiber, priority) changes a fiber's priority and lets the policy re-order it. */
    @Excludes("lock")
    @SuppressWarnings("GuardedBy") // fiber is this worker's: lock is the fiber.worker.work.lock its state needs
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
    void requestStop() {
        lock.lock();
        try {
            shutdown = true;
            wakeOwner();
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- what waits, read without the lock

    /** queued() estimates, without the lock, how many tasks and ready fibers wait: the policy's and the inboxes'. */
    int queued() {
        return numAcquire() + ownTasks.size() + (taskInbox.isEmpty() ? 0 : 1);
    }

    /**
     * tasksWaiting() counts, without the lock, the tasks queued here to start (not ready fibers nor
     * delayed tasks, nor the rare pending ones): the policy's and the inboxes'. Racy, for {@link Scheduler#stats()}.
     */
    int tasksWaiting() {
        return (int) NUM_TASKS.getAcquire(this) + ownTasks.size() + taskInbox.size();
    }

    /** hasArrivals() is true, without the lock, when a task or ready fiber waits in the policy or an inbox. */
    boolean hasArrivals() {
        return numAcquire() > 0 || !ownTasks.isEmpty() || !taskInbox.isEmpty() || !wakeInbox.isEmpty();
    }

    /** hasWokenFibers() is true, without the lock, when fibers woken from other threads wait in the inbox for the owner. */
    boolean hasWokenFibers() {
        return !wakeInbox.isEmpty();
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
        return Math.min(2, n + taskHint());
    }

    /** holdsOnly() is true when one task waits here and nothing else, a racy hint. Any thread. */
    boolean holdsOnly() {
        return numAcquire() == 0 && taskHint() == 1;
    }

    /** taskHint() counts, without the lock, the ring's tasks and the task inbox's up to 2. */
    private int taskHint() {
        return ownTasks.size() + taskInbox.sizeUpTo2();
    }

    /** num() counts the queued tasks and ready fibers. */
    int num() {
        return (int) NUM.get(this);
    }

    /** numAcquire() is num() for callers without the lock: a spinning owner, a thief, the monitor. */
    int numAcquire() {
        return (int) NUM.getAcquire(this);
    }

    // ---------------------------------------------------------------- draining the inboxes (lock held)

    /**
     * drainInbox() moves into the policy what waits in the inboxes, tasks first ({@link
     * #drainTasks()}), then performs, in the order they were pushed, the wakes other threads left:
     * exactly what {@link #wake} does under the lock. The owner calls it before each turn of its loop
     * and before and after each sleep, so no pushed fiber waits for it to find other work. If a
     * policy throws, the fiber it threw on and those not yet woken go back into the inbox, for the
     * next drain: a fiber is never lost to a policy's exception.
     */
    @GuardedBy("lock")
    void drainInbox() {
        drainTasks();
        if (wakeInbox.isEmpty()) {
            return;
        }
        Fiber fiber = wakeInbox.takeAll();
        while (fiber != null) {
            Fiber next = WakeInbox.taken(fiber);
            try {
                wakeLocked(fiber);
            } catch (Throwable t) {
                wakeInbox.push(fiber); // not woken: awakened() threw before the fiber was queued
                for (Fiber rest = next; rest != null; ) {
                    Fiber after = WakeInbox.taken(rest);
                    wakeInbox.push(rest);
                    rest = after;
                }
                throw t;
            }
            fiber = next;
        }
    }

    /**
     * drainTasks() moves the waiting tasks into the policy: the pending ones, then the owner's ring,
     * then the task inbox, each in push order. If the policy throws, the tasks it has not taken stay
     * first in line for the next drain.
     */
    @GuardedBy("lock")
    void drainTasks() {
        TaskInbox.Node node = pendingTasks;
        pendingTasks = null;
        addInOrder(node);
        for (Task task; (task = ownTasks.poll()) != null; ) {
            try {
                addTask(task);
            } catch (Throwable t) {
                pendingTasks = new TaskInbox.Node(task);
                throw t;
            }
        }
        if (!taskInbox.isEmpty()) {
            addInOrder(taskInbox.takeAll());
        }
    }

    /**
     * keepPending(head) puts last among the pending tasks a chain of tasks the policy refused
     * after they were taken from elsewhere (a steal): they have no other queue to go back to, and
     * the next drain offers them to the policy again, in order.
     */
    @GuardedBy("lock")
    void keepPending(TaskInbox.Node head) {
        if (pendingTasks == null) {
            pendingTasks = head;
            return;
        }
        TaskInbox.Node last = pendingTasks;
        while (last.next != null) {
            last = last.next;
        }
        last.next = head;
    }

    /** addInOrder(node) adds a chain of inbox tasks to the policy; those it does not take become pendingTasks. */
    @GuardedBy("lock")
    private void addInOrder(TaskInbox.Node node) {
        while (node != null) {
            try {
                addTask(node.task);
            } catch (Throwable t) {
                pendingTasks = node;
                throw t;
            }
            node = node.next;
        }
    }

    /**
     * closeTaskInbox() closes the task inbox if nothing waits in it, so enqueuers move on to another
     * worker; returns false if a task arrived since the owner last drained (it must run first).
     * Called by the owner once it has drained for good.
     */
    @GuardedBy("lock")
    boolean closeTaskInbox() {
        if (pendingTasks != null || !ownTasks.isEmpty() || !taskInbox.close()) {
            return false;
        }
        ownTasksClosed = true;
        return true;
    }

    /** hasUndrained() is true when a woken fiber or a task waits in an inbox, not yet in the policy: the owner must drain before it sleeps. */
    @GuardedBy("lock")
    private boolean hasUndrained() {
        return !wakeInbox.isEmpty() || !ownTasks.isEmpty() || !taskInbox.isEmpty() || pendingTasks != null;
    }

    // ---------------------------------------------------------------- tasks and ready fibers (lock held)

    /** addTask(task) queues a task; if the policy throws, nothing changed. */
    @GuardedBy("lock")
    void addTask(Task task) {
        policy.enqueued(task);
        addedTask();
    }

    /** addReadyFiber(fiber) queues a suspended fiber to resume; if the policy throws, nothing changed. */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // fiber is this worker's: lock is the fiber.worker.work.lock its state needs
    void addReadyFiber(Fiber fiber) {
        if (readyFibers != null) {
            readyFibers.addLast(fiber);
        } else {
            policy.awakened(fiber);
        }
        if (fiber.state == Fiber.State.WAITING) {
            deadlines.remove(fiber.timerIfAny()); // a WAITING fiber has one, filed by Worker.suspend
        }
        fiber.changeState(fiber.state, Fiber.State.QUEUED);
        added();
    }

    /** takeReadyFiber() removes the fiber to resume next, or returns null if a task goes first. */
    @GuardedBy("lock")
    Fiber takeReadyFiber() {
        Fiber fiber = readyFibers != null ? readyFibers.pollFirst() : policy.pickNextFiber();
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

    /** removeReadyFiber(fiber) takes a particular ready fiber out of the ready queue. */
    @GuardedBy("lock")
    void removeReadyFiber(Fiber fiber) {
        if (readyFibers != null ? readyFibers.remove(fiber) : policy.remove(fiber)) {
            removed();
        }
    }

    /** numTasksLocked() is the count of tasks among num(), read under the lock: how many a thief may take half of. */
    @GuardedBy("lock")
    int numTasksLocked() {
        return (int) NUM_TASKS.get(this);
    }

    /** stealsNewestFirst() is whether {@link #stealNewerLocked()} gives a batch newest first. */
    boolean stealsNewestFirst() {
        return fifo != null;
    }

    /**
     * stealNewerLocked() takes one more task for a thief's batch, after {@link #stealLocked()} in
     * the same hold of the lock: with a {@link FifoPolicy} its newest stealable task, with another
     * policy what its {@code steal} gives. Null if none is left to steal.
     */
    @GuardedBy("lock")
    Task stealNewerLocked() {
        Task task = fifo != null ? fifo.stealNewest() : policy.steal();
        if (task != null) {
            removedTask();
        }
        return task;
    }

    /** stealLocked() takes a stealable task, or returns null: for a thief, or a pinned wait of the owner. */
    @GuardedBy("lock")
    Task stealLocked() {
        if (stopped) {
            return null;
        }
        drainTasks(); // the policy sees every task before any is stolen
        Task task = policy.steal();
        if (task != null) {
            assert !task.is(Task.Flag.SAME_THREAD) : "policy " + policy + " gave away a SAME_THREAD task";
            removedTask();
        }
        return task;
    }

    @GuardedBy("lock")
    private void added() {
        NUM.setRelease(this, num() + 1);
        wakeOwner();
    }

    @GuardedBy("lock")
    private void removed() {
        NUM.setRelease(this, num() - 1);
    }

    /** addedTask() counts a task the policy has just taken: addTask's, and a due delayed task's ({@link #expireDeadlines}). */
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

    // ---------------------------------------------------------------- the owner's sleep

    /**
     * sleep(idle, maxNanos) releases the lock until something is added, {@link #wakeOwner()} is
     * called, the earliest deadline passes or {@code maxNanos} have passed; it may also return
     * spuriously. Called by the owner, with lock held; {@code idle} says it sleeps for want of work
     * (so the monitor may send it to steal) rather than in a pinned fiber's wait; such a sleep that
     * blocks is counted in {@link WorkerStats#idleSleeps}. It returns at once if the inboxes hold
     * anything undrained.
     */
    @GuardedBy("lock")
    void sleep(boolean idle, long maxNanos) throws InterruptedException {
        sleepSignalled.set(false);
        signalledAt = 0; // a signal of an earlier sleep (a pinned wait's, say) is not this gap's arrival
        notifyAdded = true; // before the inbox check below: see signalIfAsleep()
        idleAsleep = idle;
        if (idle) {
            setActivity(IDLE);
        }
        try {
            if (hasUndrained()) {
                return; // a fiber was woken or a task enqueued meanwhile: the caller drains the inboxes
            }
            long nanos = maxNanos;
            if (deadlines.hasDeadlines()) {
                nanos = Math.min(nanos, deadlines.nextDeadline() - System.nanoTime());
            }
            if (idle && nanos > 0) {
                stats.idleSleeps++; // counted as it begins, so a sleep still going on shows
            }
            if (nanos == Long.MAX_VALUE) {
                added.await();
            } else if (nanos > 0) {
                added.awaitNanos(nanos);
            }
        } finally {
            notifyAdded = false;
            idleAsleep = false;
            if (idle) {
                setActivity(ACTIVE);
            }
        }
    }

    /** wakeOwner() ends the owner's sleep(), if it sleeps: for a task or fiber added, or a change like shutdown or a nearer deadline. */
    @GuardedBy("lock")
    void wakeOwner() {
        if (notifyAdded) {
            added.signal();
        }
    }

    /**
     * arrivedAt(now) is when the work that ended the owner's idle gap arrived: when a pusher last
     * signalled it asleep, or now if none did; and forgets that signal. Called by the owner.
     */
    @GuardedBy("lock")
    long arrivedAt(long now) {
        long at = signalledAt;
        signalledAt = 0;
        return at != 0 ? at : now;
    }

    /**
     * sendToSteal(victim) wakes the owner, if it sleeps idle, to steal from {@code victim}; returns
     * whether it did. Called by the scheduler's monitor, which holds no worker lock.
     */
    @Excludes("lock")
    boolean sendToSteal(Worker victim) {
        if (!lock.tryLock()) {
            return false;
        }
        try {
            if (!idleAsleep || stealFrom != null) {
                return false;
            }
            stealFrom = victim;
            added.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * wakeToSteal() wakes the owner, if it sleeps idle and was not woken so already, to look for a
     * task on every worker; returns whether it did. Called by an enqueuer that holds one count of
     * the scheduler's spinning workers, which passes to the owner when this returns true.
     */
    @Excludes("lock")
    boolean wakeToSteal() {
        if (!lock.tryLock()) {
            return false;
        }
        try {
            if (!idleAsleep || stealAny) {
                return false;
            }
            stealAny = true;
            added.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** takeStealHint() returns, and clears, the worker the monitor sent the owner to steal from. */
    @GuardedBy("lock")
    Worker takeStealHint() {
        Worker victim = stealFrom;
        stealFrom = null;
        return victim;
    }

    /** takeStealAny() returns, and clears, whether an enqueuer woke the owner to look for work anywhere. */
    @GuardedBy("lock")
    boolean takeStealAny() {
        boolean any = stealAny;
        stealAny = false;
        return any;
    }

    // ---------------------------------------------------------------- suspended fibers (lock held)

    /** listSuspended(fiber) lists a fiber that is about to suspend, or has just yielded to. */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // fiber is this worker's: lock is the fiber.worker.work.lock its links need
    void listSuspended(Fiber fiber) {
        Fiber first = suspended.nextSuspended;
        fiber.prevSuspended = suspended;
        fiber.nextSuspended = first;
        first.prevSuspended = fiber;
        suspended.nextSuspended = fiber;
        numSuspended++;
    }

    /** unlistSuspended(fiber) unlists a fiber that has resumed. */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // fiber is this worker's: lock is the fiber.worker.work.lock its links need
    void unlistSuspended(Fiber fiber) {
        Fiber prev = fiber.prevSuspended;
        Fiber next = fiber.nextSuspended;
        prev.nextSuspended = next;
        next.prevSuspended = prev;
        fiber.prevSuspended = null;
        fiber.nextSuspended = null;
        numSuspended--;
    }

    /** numSuspended() is the number of suspended fibers: marl's {@code numBlockedFibers}. */
    @GuardedBy("lock")
    int numSuspended() {
        return numSuspended;
    }

    /**
     * suspendedFibers() copies out the list of suspended fibers: for a bounded close that cancels
     * their waits ({@link Closing#cancelWaits}) and for a diagnostic dump ({@link SuspendedFiber#addSuspendedOf}),
     * which do their work under the lock while the list may change under them.
     */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // every listed fiber is this worker's: lock is the fiber.worker.work.lock its links need
    List<Fiber> suspendedFibers() {
        List<Fiber> fibers = new ArrayList<>(numSuspended);
        for (Fiber f = suspended.nextSuspended; f != suspended; f = f.nextSuspended) {
            fibers.add(f);
        }
        return fibers;
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

    // ---------------------------------------------------------------- deadlines: timed waits and delayed tasks

    /**
     * expireDeadlines(now) makes timed-out fibers ready and queues delayed tasks that are due. Each
     * entry leaves the heap only once the policy took it, so a throwing policy loses nothing.
     */
    @GuardedBy("lock")
    void expireDeadlines(long now) {
        Timed entry;
        while ((entry = deadlines.peekExpired(now)) != null) {
            if (entry instanceof FiberTimer timer) {
                addReadyFiber(timer.fiber); // removes it from the heap
            } else {
                DelayedTask task = (DelayedTask) entry;
                policy.enqueued(task.due);
                deadlines.removeDelayed(task);
                addedTask();
            }
        }
    }

    /** nextDeadlineBefore(until) is the earliest deadline if it comes before until, else until. */
    @GuardedBy("lock")
    long nextDeadlineBefore(long until) {
        return deadlines.hasDeadlines() && deadlines.nextDeadline() - until < 0 ? deadlines.nextDeadline() : until;
    }

    // ---------------------------------------------------------------- steals, off the journey

    /** addStolen(first) adds what this owner just stole to its policy, with the rest of the batch ({@link Steals#addStolen}). */
    @GuardedBy("lock")
    void addStolen(Task first) {
        steals.addStolen(this, first);
    }

    /** steal(into) takes tasks from here for the thief whose work is into ({@link Steals#steal}); skips a contended lock. */
    @Excludes("lock")
    Task steal(Work into) {
        return Steals.steal(this, into);
    }

    /** stealWaiting(into) is {@link #steal} for a thief that was sent here ({@link Steals#stealWaiting}). */
    @Excludes("lock")
    Task stealWaiting(Work into) {
        return Steals.stealWaiting(this, into);
    }

    @Override
    public String toString() {
        return "Work[num=" + numAcquire() + ", policy=" + policy + "]";
    }

    /**
     * The lock of one worker ({@code work.mutex} in marl): exclusive and not reentrant, like marl's.
     *
     * <p>It is a class of its own rather than a {@code ReentrantLock} for two reasons. The worker's
     * fibers pass it to one another across fiber switches (all on the worker's one OS thread), so a
     * reentrant hold count would only hide bugs. And the lock-checking mode ({@link LockCheck}) must
     * recognise this lock among the synchronizers a thread holds when a fiber suspends: the JVM
     * reports a synchronizer by the class of its AQS, which here is this class. It is a {@link Lock}
     * so that Error Prone's GuardedBy check sees {@code lock(); try { ... } finally { unlock(); }}.
     */
    static final class WorkerLock extends AbstractQueuedSynchronizer implements Lock {
        private static final long serialVersionUID = 1L;

        /**
         * lock() takes the lock, waiting for it if another thread holds it. A thread that already holds
         * it gets an IllegalStateException instead of waiting for itself forever: see {@link #reentered}.
         */
        @Override
        public void lock() {
            if (!compareAndSetState(0, 1)) {
                Thread self = Thread.currentThread();
                if (getExclusiveOwnerThread() == self) { // read only when contended
                    throw reentered();
                }
                if (self.isVirtual()) {
                    spinToAcquire();
                } else {
                    acquire(1);
                }
            } else {
                setExclusiveOwnerThread(Thread.currentThread());
            }
        }

        /**
         * spinToAcquire() takes the lock for a virtual thread, which must never park for it: a fiber of
         * the virtual-thread engine would unmount, its worker's trampoline would then queue behind it for
         * this lock, and nothing would be left to run the fiber when the lock is handed to it. Every
         * other holder keeps the lock for a few bookkeeping steps, so the spin is short.
         */
        private void spinToAcquire() {
            while (!tryAcquire(1)) {
                Thread.onSpinWait();
            }
        }

        /**
         * handOver(from, to) passes a hold of {@code from} on to {@code to}, if {@code from} holds the
         * lock; otherwise does nothing. The virtual-thread engine's trampoline hands the lock to the
         * fiber it resumes and takes it back when the fiber yields (see {@link VirtualFiber}): the same
         * OS thread, but a different {@code Thread} while the fiber is mounted.
         */
        void handOver(Thread from, Thread to) {
            if (getExclusiveOwnerThread() == from && getState() == 1) {
                setExclusiveOwnerThread(to);
            }
        }

        /**
         * reentered() is the error for a thread that asks again for the worker lock it holds, which only
         * code run under that lock can do: a {@link SchedulingPolicy} callback that enqueues, waits or
         * otherwise calls into the scheduler, against its contract. Waiting would hang the worker for
         * good (the lock is not reentrant), and retrying a tryLock elsewhere would spin forever, so the
         * call fails, naming the likely culprit; the policy's caller reports it as any policy error.
         */
        static IllegalStateException reentered() {
            return new IllegalStateException("a marl4j worker's lock was asked for again by the thread that holds it, "
                    + "which would hang that worker: a SchedulingPolicy callback (enqueued, awakened, pickNextTask, "
                    + "pickNextFiber, steal, remove) called into the scheduler (an enqueue, a wait, a signal that wakes a "
                    + "fiber). Policy callbacks run under the worker's lock and may only order the tasks and fibers they "
                    + "are given: enqueue follow-up work from a task instead");
        }

        /** Not supported: the worker lock is held for a few bookkeeping steps, never waited for interruptibly. */
        @Override
        public void lockInterruptibly() {
            throw new UnsupportedOperationException("the worker lock is taken with lock() or tryLock() only");
        }

        @Override
        public boolean tryLock() {
            return tryAcquire(1);
        }

        /** Not supported, as {@link #lockInterruptibly()}. */
        @Override
        public boolean tryLock(long time, TimeUnit unit) {
            throw new UnsupportedOperationException("the worker lock is taken with lock() or tryLock() only");
        }

        @Override
        public void unlock() {
            release(1);
        }

        /** isHeldByCurrentThread() says whether the calling thread holds this lock. */
        boolean isHeldByCurrentThread() {
            return isHeldExclusively();
        }

        @Override
        public Condition newCondition() {
            return new ConditionObject();
        }

        @Override
        protected boolean tryAcquire(int ignored) {
            if (compareAndSetState(0, 1)) {
                setExclusiveOwnerThread(Thread.currentThread());
                return true;
            }
            return false;
        }

        @Override
        protected boolean tryRelease(int ignored) {
            if (getExclusiveOwnerThread() != Thread.currentThread()) {
                throw new IllegalMonitorStateException("worker lock released by a thread that does not hold it");
            }
            setExclusiveOwnerThread(null);
            setState(0);
            return true;
        }

        @Override
        protected boolean isHeldExclusively() {
            return getExclusiveOwnerThread() == Thread.currentThread();
        }
    }

    /**
     * WakeInbox holds the fibers other threads woke on one worker, until the owner takes them under
     * its lock: so a wake from another thread takes no worker lock, and does not contend with the
     * owner, which holds it across fiber switches. A lock-free stack of fibers linked through
     * {@link Fiber#inboxNext} (many pushers, one taker); a fiber is in it at most once, which its
     * {@link Fiber#inInbox} flag decides.
     */
    static final class WakeInbox {
        private static final VarHandle HEAD;
        private static final VarHandle IN_INBOX;

        static {
            try {
                MethodHandles.Lookup lookup = MethodHandles.lookup();
                HEAD = lookup.findVarHandle(WakeInbox.class, "head", Fiber.class);
                IN_INBOX = lookup.findVarHandle(Fiber.class, "inInbox", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        @SuppressWarnings("unused") // accessed through HEAD
        private volatile Fiber head;

        /**
         * push(fiber) adds the fiber unless it is in already; returns whether it added it. Any thread.
         * A fiber already in needs no second entry: the owner clears the flag before it wakes the
         * fiber, so the wake it performs comes after every push that found the flag set.
         */
        boolean push(Fiber fiber) {
            if (!claim(fiber)) {
                return false;
            }
            pushClaimed(fiber, fiber);
            return true;
        }

        /**
         * claim(fiber) flags the fiber as in an inbox, for a caller that will push it with
         * {@link #pushClaimed}; false if it is in already (or claimed by another caller). Any thread.
         */
        static boolean claim(Fiber fiber) {
            return !fiber.inInbox && IN_INBOX.compareAndSet(fiber, false, true);
        }

        /**
         * pushClaimed(newest, oldest) adds, with one compare-and-set, a chain of claimed fibers linked
         * newest-first through inboxNext from newest to oldest: as if each had been pushed in turn,
         * oldest first. Any thread.
         */
        void pushClaimed(Fiber newest, Fiber oldest) {
            Fiber first;
            do {
                first = (Fiber) HEAD.getVolatile(this);
                oldest.inboxNext = first;
            } while (!HEAD.compareAndSet(this, first, newest));
        }

        /** isEmpty() is a volatile read: any thread. */
        boolean isEmpty() {
            return HEAD.getVolatile(this) == null;
        }

        /**
         * takeAll() empties the inbox and returns its fibers linked through inboxNext in the order
         * they were pushed, or null. The owner only; each fiber stays flagged until {@link #taken}.
         */
        Fiber takeAll() {
            Fiber fiber = (Fiber) HEAD.getAndSet(this, null);
            Fiber reversed = null;
            while (fiber != null) {
                Fiber next = fiber.inboxNext;
                fiber.inboxNext = reversed;
                reversed = fiber;
                fiber = next;
            }
            return reversed;
        }

        /** taken(fiber) unlinks a fiber returned by takeAll() and lets it be pushed again. Returns the next one. */
        static Fiber taken(Fiber fiber) {
            Fiber next = fiber.inboxNext;
            fiber.inboxNext = null;
            fiber.inInbox = false; // volatile: before the owner's wake of it, which covers later pushers that saw it set
            return next;
        }
    }
}
