package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import org.marl4j.WaitQueue.Waiter;
import org.marl4j.Work.WakeInbox;

/**
 * A Fiber is a lightweight thread of execution owned by one worker of a {@link Scheduler}: marl's
 * {@code Scheduler::Fiber}. Tasks run on fibers; a task that blocks on a marl4j primitive suspends
 * its fiber, and the worker thread goes on with other tasks and fibers.
 *
 * <pre>{@code
 * Fiber fiber = Fiber.current();            // the fiber running this task
 * lock.lock();
 * try {
 *     fiber.await(lock, () -> ready);      // suspends the fiber, not the thread
 * } finally {
 *     lock.unlock();
 * }
 * // elsewhere, after setting ready under the lock:
 * fiber.wake();
 * }</pre>
 *
 * <p>Threading contract. A fiber is always resumed on its worker's thread. What else holds depends
 * on the scheduler's {@link FiberEngine}:
 * <ul>
 *   <li>{@link FiberEngine#VIRTUAL_THREADS}: the fiber is a virtual thread of its own
 *       ({@code Thread.currentThread()} in a task), carried by its worker's thread. Its
 *       {@code ThreadLocal}s, {@code ScopedValue} bindings, interrupt status and locks are its
 *       own, across marl4j waits and blocking JDK calls alike, and a blocking JDK call suspends the
 *       fiber only. Locks, monitors and ThreadLocals behave as on any virtual thread.
 *   <li>{@link FiberEngine#CONTINUATIONS}: the fibers of one worker share that thread's
 *       {@code ThreadLocal}s and {@code ScopedValue} bindings, as marl's fibers share
 *       {@code thread_local}s: do not rely on either across a suspend. Never suspend while holding
 *       a monitor ({@code synchronized}) or a thread-owned lock such as {@code ReentrantLock}: the
 *       JVM records the thread as owner, so another fiber of the same thread could enter it too, or
 *       deadlock on it. Use {@link Mutex}. Run with {@code -Dorg.marl4j.checkLocks=true} to have
 *       every suspend check this. A blocking JDK call holds the worker thread.
 *   <li>If the JVM cannot suspend a fiber (its stack holds a native frame or is inside a class
 *       initializer), that one wait blocks the worker thread instead. Meanwhile that thread runs
 *       the worker's queued tasks itself, as plain thread code without a fiber ({@link #current()}
 *       is null in them), and idle workers steal them, so a waker queued behind the wait still
 *       runs, even with one worker thread. The worker's other ready fibers, and its
 *       {@link Task.Flag#SAME_THREAD} tasks, wait until the pinned fiber is woken: if its waker is
 *       one of them, the wait never ends, and marl4j logs a warning saying so after a second.
 *       Do not wait on a marl4j primitive inside a static initializer.
 *   <li>Fiber waits are not interruptible (blocking JDK calls are, on the virtual-thread engine).
 *       On a bound thread the interrupt status is the application's and stays pending across
 *       waits. Every other fiber has its own, as each virtual thread does: the status a fiber had
 *       when it suspended is its own again when it resumes, and no other fiber sees it meanwhile;
 *       and it is cleared before each task (as {@code ThreadPoolExecutor} does), so a status one
 *       task leaves is not the next one's.
 * </ul>
 *
 * <p>A thread bound with {@link Scheduler#bind()} has a fiber too (its "main fiber"): when it
 * blocks, the thread runs its worker's queued tasks until it is woken.
 *
 * <p>marl's configurable fiber stack size has no equivalent: a fiber's frames live on its worker
 * thread's stack while it runs and are copied to the heap, at their actual size, when it suspends.
 * The worker threads' stack size bounds how deep a task may recurse.
 */
public final class Fiber extends Waiter {
    /**
     * Where a fiber sits, guarded by its worker's lock. Every change goes through
     * {@link #changeState}, which checks it against this table (marl's {@code changeFiberState}):
     *
     * <pre>
     * from      to        when
     * IDLE      RUNNING   the trampoline picks an idle (or new) fiber to run the worker loop
     * RUNNING   IDLE      the worker loop hands the thread to a ready fiber and parks itself for reuse
     * RUNNING   YIELDED   the fiber suspends without a deadline (Worker.suspend, or for a fiber
     *                     that parked without the lock, the trampoline: Worker.parkYielded), or
     *                     a virtual thread blocked in the JDK (the trampoline: Worker.blockedInJdk)
     * RUNNING   WAITING   the fiber suspends with a deadline, filed in the deadline heap
     * YIELDED   QUEUED    wake(), or cancellation by close(Duration)
     * WAITING   QUEUED    wake(), its deadline passed, or cancellation by close(Duration)
     * QUEUED    RUNNING   its worker resumes it (or, pinned, it stops blocking the thread)
     * </pre>
     *
     * A thread's main fiber starts RUNNING; a new fiber starts IDLE.
     */
    enum State {
        /** IDLE: no task of its own; sits in its worker's idle list, ready to run the worker loop again. */
        IDLE,
        /** YIELDED: suspended without a deadline until woken; in the worker's suspended list, no queue. */
        YIELDED,
        /** WAITING: suspended until woken or its deadline; sits in its worker's deadline heap. */
        WAITING,
        /** QUEUED: woken or timed out; sits in its worker's ready queue (the scheduling policy). */
        QUEUED,
        /** RUNNING: executing on its worker's thread. */
        RUNNING;

        /** allows(to) is whether the transition table above has the row this -> to. */
        boolean allows(State to) {
            return switch (this) {
                case IDLE -> to == RUNNING;
                case RUNNING -> to == IDLE || to == YIELDED || to == WAITING;
                case YIELDED, WAITING -> to == QUEUED;
                case QUEUED -> to == RUNNING;
            };
        }
    }

    final Worker worker;
    /**
     * The stack the fiber runs on, as its scheduler's {@link FiberEngine} makes it: a continuation or
     * a virtual thread. Null for a thread's main fiber, which runs on the thread's own stack. Set
     * once, by the worker that creates the fiber, before the fiber first runs.
     */
    Stack stack;

    /** Bumped by every wake(), under its worker's lock; read by the fiber itself without it (see {@link Worker}'s overview). */
    volatile int wakeEpoch;

    /** Where the fiber sits; changed only by {@link #changeState}. */
    @GuardedBy("worker.work.lock")
    State state;
    /**
     * The fiber's number, from 1 per worker; 0 for a thread's main fiber (see {@link #id()}). Here,
     * an int the object has room for because its priority lives on a side object ({@link FiberTimer}),
     * so that the continuation has room for its fiber (it is the fiber's future callback: see
     * {@link FiberContinuation}).
     */
    private final int id;

    /** Links of the worker's intrusive list of suspended fibers (see {@link Work#listSuspended}). */
    @GuardedBy("worker.work.lock")
    Fiber prevSuspended;
    @GuardedBy("worker.work.lock")
    Fiber nextSuspended;
    /** The next fiber in its worker's {@link WakeInbox}; written by the pushing thread before it publishes. */
    Fiber inboxNext;
    /** True from a wake() that pushed this fiber onto its worker's inbox until the owner takes it off. */
    volatile boolean inInbox;
    /**
     * PINNED, RELOCKING, INTERRUPTED, WAITER_TAKEN, RESUMES_UNLOCKED and BLOCKED_IN_JDK bits, written by the worker's thread only (one
     * byte: a Fiber is 64 bytes, with not one byte to spare).
     */
    private byte flags;
    /** Set while this fiber is pinned: blocking its worker's thread in a wait with its continuation mounted. */
    private static final byte PINNED = 1;
    /** Set while this fiber takes a wait's user lock again (see FiberWaits.relock): cancellation spares it. */
    private static final byte RELOCKING = 2;
    /** Set while this fiber, suspended on a worker thread, keeps the interrupt status it had (see Worker.keepInterrupt). */
    private static final byte INTERRUPTED = 4;
    /**
     * Set when a wait ended un-notified after a notifier had taken this fiber's own waiter node
     * (the Waiter fields this class inherits): the node is in use until {@code notified} is set.
     * Read and written by the fiber itself only.
     */
    private static final byte WAITER_TAKEN = 8;
    /**
     * Set from the trampoline's {@code Worker.parkYielded} until it resumes the fiber: the fiber
     * parked without the worker lock and goes on without it.
     */
    private static final byte RESUMES_UNLOCKED = 16;
    /** Set while this fiber (a virtual thread) is suspended in a blocking call of the JDK: see {@link #blockedInJdk()}. */
    private static final byte BLOCKED_IN_JDK = 32;
    /**
     * How many {@link FiberCancellation}s open on this fiber are cancelled: while non-zero, every
     * wait of the fiber throws {@link FiberCancelledException}. Written under its worker's lock (by
     * FiberCancellation.cancel() and close()); the fiber reads it racily before a wait and again
     * under the lock when it suspends and resumes (see Worker). A byte, so that it fits beside the
     * other small fields without growing the object: it counts up to {@link #MAX_CANCELLED_SCOPES},
     * and the worker counts deeper nesting (addCancelledScope()).
     */
    @GuardedBy("worker.work.lock")
    byte cancelledScopes;
    /** The most cancelled scopes {@link #cancelledScopes} counts; the rest are in the worker's {@code moreCancelledScopes}. */
    static final byte MAX_CANCELLED_SCOPES = Byte.MAX_VALUE;

    /**
     * checkMaySuspend(userLock) refuses a wait this fiber may not make (a lock held across it, a
     * cancelled scope) before its node can be notified; see {@link Worker#checkMaySuspend}.
     */
    @Excludes("worker.work.lock")
    void checkMaySuspend(Lock userLock) {
        worker.checkMaySuspend(this, userLock);
    }

    /** addCancelledScope() counts one more cancelled scope open on this fiber; with its worker's lock held. */
    @GuardedBy("worker.work.lock")
    void addCancelledScope() {
        if (cancelledScopes < MAX_CANCELLED_SCOPES) {
            cancelledScopes++;
            return;
        }
        if (worker.moreCancelledScopes == null) {
            worker.moreCancelledScopes = new HashMap<>();
        }
        worker.moreCancelledScopes.merge(this, 1, Integer::sum);
    }

    /**
     * removeCancelledScope() counts one cancelled scope fewer, the worker's overflow first, so the
     * byte stays non-zero while any is left; nothing once the worker loop dropped a leaked count.
     * With its worker's lock held.
     */
    @GuardedBy("worker.work.lock")
    void removeCancelledScope() {
        Map<Fiber, Integer> more = worker.moreCancelledScopes;
        Integer beyond = more == null ? null : more.get(this);
        if (beyond != null) {
            if (beyond == 1) {
                more.remove(this);
            } else {
                more.put(this, beyond - 1);
            }
        } else if (cancelledScopes > 0) {
            cancelledScopes--;
        }
    }
    /**
     * This fiber's side object: its entry in its worker's deadline heap, made at its first wait with
     * a timeout, and its priority, made when the priority is first set to non-zero; kept for the
     * fiber's life; null until then. Written under its worker's lock; volatile, since {@link #priority()}
     * reads it from any thread.
     *
     * <p>Why a side object: every suspended fiber is one of these objects, and most never wait with
     * a timeout nor run a task with a priority; the deadline and heap index (12 bytes) in the Fiber
     * itself took it from 64 to 80 bytes, and the priority's 4 bytes now hold the id.
     */
    @GuardedBy("worker.work.lock")
    private volatile FiberTimer timer;

    private Fiber(Worker worker, int id) {
        this.worker = worker;
        this.id = id;
    }

    @SuppressWarnings("GuardedBy") // a new fiber, seen by no other thread yet
    static Fiber main(Worker worker) {
        Fiber fiber = new Fiber(worker, 0);
        fiber.state = State.RUNNING;
        return fiber;
    }

    /** sentinel() makes the never-running head of a worker's list of suspended fibers ({@link Work#listSuspended}): it has no worker. */
    static Fiber sentinel() {
        return new Fiber();
    }

    /** The sentinel's constructor: a circular list of one, linked to itself. */
    private Fiber() {
        this.worker = null;
        this.id = 0;
        this.prevSuspended = this;
        this.nextSuspended = this;
    }

    /** create(worker, id) makes a fiber that runs worker's loop on a continuation of its own, numbered id (from 1). */
    @SuppressWarnings("GuardedBy") // a new fiber, seen by no other thread yet
    static Fiber create(Worker worker, int id) {
        Fiber fiber = new Fiber(worker, id);
        fiber.state = State.IDLE;
        fiber.stack = worker.virtualFibers
                ? VirtualFiber.start(fiber, worker.fiberThreadName())
                : new FiberContinuation(worker, fiber);
        return fiber;
    }

    /**
     * workerThread() is the platform thread that runs this fiber: its worker's thread, or the thread
     * bound with {@link Scheduler#bind()}. On {@link FiberEngine#CONTINUATIONS} that is
     * {@code Thread.currentThread()} in the fiber's tasks; on {@link FiberEngine#VIRTUAL_THREADS} the
     * fiber is a virtual thread of its own, which this thread carries. Fibers of one worker share it,
     * whatever the engine: it says which worker code runs on.
     *
     * @return the worker's thread, or the bound thread
     */
    public Thread workerThread() {
        return worker.thread();
    }

    /** id() is 0 for a thread's main fiber, else the fiber's number, from 1 per worker; for diagnostics. */
    int id() {
        return id;
    }

    /** pinned() is whether this fiber is pinned (see {@link PinnedWait}); read with its worker's lock held. */
    @GuardedBy("worker.work.lock")
    boolean pinned() {
        return (flags & PINNED) != 0;
    }

    /** setPinned(pinned) marks the pinned wait's start and end; the worker's thread, with its worker's lock held. */
    @GuardedBy("worker.work.lock")
    void setPinned(boolean pinned) {
        flags = (byte) (pinned ? flags | PINNED : flags & ~PINNED);
    }

    /** relocking() is whether this fiber is taking a wait's user lock again; the worker's thread only. */
    boolean relocking() {
        return (flags & RELOCKING) != 0;
    }

    /** setRelocking(relocking) marks FiberWaits.relock's start and end; the worker's thread only. */
    void setRelocking(boolean relocking) {
        flags = (byte) (relocking ? flags | RELOCKING : flags & ~RELOCKING);
    }

    /**
     * keepInterrupt(interrupted) keeps, while the fiber is suspended, the interrupt status it had
     * when it suspended; takeInterrupt() returns it and forgets it. The worker's thread only.
     */
    void keepInterrupt(boolean interrupted) {
        flags = (byte) (interrupted ? flags | INTERRUPTED : flags & ~INTERRUPTED);
    }

    boolean takeInterrupt() {
        boolean interrupted = (flags & INTERRUPTED) != 0;
        flags = (byte) (flags & ~INTERRUPTED);
        return interrupted;
    }

    /** setResumesUnlocked(true) marks a fiber parked without the worker lock; the worker's thread only. */
    void setResumesUnlocked(boolean unlocked) {
        flags = (byte) (unlocked ? flags | RESUMES_UNLOCKED : flags & ~RESUMES_UNLOCKED);
    }

    /** takeResumesUnlocked() is whether the fiber resumes without the worker lock, and forgets it; the worker's thread only. */
    boolean takeResumesUnlocked() {
        boolean unlocked = (flags & RESUMES_UNLOCKED) != 0;
        if (unlocked) {
            flags = (byte) (flags & ~RESUMES_UNLOCKED);
        }
        return unlocked;
    }

    /** isMain() is whether this is a worker's main fiber: its thread's own stack, not a continuation. */
    boolean isMain() {
        return stack == null;
    }

    /**
     * virtualThread() is the virtual thread this fiber runs on ({@link FiberEngine#VIRTUAL_THREADS}),
     * or null.
     */
    VirtualFiber virtualThread() {
        return stack instanceof VirtualFiber v ? v : null;
    }

    /**
     * blockedInJdk() is whether this fiber is suspended in a blocking call of the JDK rather than a
     * marl4j wait (virtual-thread engine only): cancellation interrupts it. Read and written with
     * its worker's lock held.
     */
    @GuardedBy("worker.work.lock")
    boolean blockedInJdk() {
        return (flags & BLOCKED_IN_JDK) != 0;
    }

    @GuardedBy("worker.work.lock")
    void setBlockedInJdk(boolean blocked) {
        flags = (byte) (blocked ? flags | BLOCKED_IN_JDK : flags & ~BLOCKED_IN_JDK);
    }

    /** timer() is this fiber's deadline-heap entry, made on first use. Called with its worker's lock held. */
    @GuardedBy("worker.work.lock")
    FiberTimer timer() {
        FiberTimer t = timer;
        if (t == null) {
            t = new FiberTimer(this);
            timer = t;
        }
        return t;
    }

    /** timerIfAny() is this fiber's deadline-heap entry, or null if it never waited with a timeout. */
    @GuardedBy("worker.work.lock")
    FiberTimer timerIfAny() {
        return timer;
    }

    /** The waiting fiber of this node, as a {@link Waiter}: the fiber itself. */
    @Override
    Fiber fiber() {
        return this;
    }

    /** As a {@link Waiter}: a notification wakes the fiber. */
    @Override
    void resume() {
        wake();
    }

    @Override
    void takenByNotifier() {
        flags |= WAITER_TAKEN;
    }

    /**
     * waiterForWait() returns the node for a wait of this (the current) fiber: the fiber itself,
     * reset, unless a notifier may still be writing to it (see {@link Waiter}); then a fresh one.
     */
    Waiter waiterForWait() {
        if ((flags & WAITER_TAKEN) != 0) {
            if (!notified) {
                return new Waiter.FiberWaiter(this);
            }
            flags &= ~WAITER_TAKEN;
        }
        assert queuedIn == 0 : "a fiber's own waiter node reused while still in a queue";
        notified = false;
        prev = null;
        next = null;
        return this;
    }

    /**
     * waiterForCallback() is {@link #waiterForWait()} for a {@link FiberCallback}, whose node is
     * handed out before its wait begins: the node stays the callback's until the callback has run,
     * so any wait the fiber makes in between takes a fresh node (were it to reuse this one, the
     * callback's run would end that other wait instead, or unlink a node still in its queue).
     */
    Waiter waiterForCallback() {
        Waiter node = waiterForWait();
        if (node == this) {
            flags |= WAITER_TAKEN; // freed by waiterForWait() once notified, as for a taken node
        }
        return node;
    }

    /**
     * changeState(from, to) is the one place a fiber's state changes: it checks the fiber is in
     * {@code from} and that the table above {@link State} allows {@code from -> to}. A failure is a
     * bug in marl4j, reported as such.
     */
    @GuardedBy("worker.work.lock")
    void changeState(State from, State to) {
        if (state != from || !from.allows(to)) {
            throw new IllegalStateException("marl4j internal error: " + this + " cannot go from " + from
                    + " to " + to + " (it is " + state + ")");
        }
        state = to;
    }

    /**
     * current() returns the fiber running on the calling thread: the fiber of the current task, the
     * main fiber of a thread bound to a scheduler, or null on any other thread.
     *
     * @return the current fiber, or null off the scheduler
     */
    public static Fiber current() {
        Worker worker = Worker.current();
        return worker == null ? null : worker.current; // null in a task that a pinned wait runs
    }

    /**
     * await(lock, predicate) suspends this fiber until {@code predicate} is true. {@code lock} must be
     * held by the caller, protects the state the predicate reads, is released while the fiber is
     * suspended (every hold of a {@link Mutex} or {@code ReentrantLock} held several times) and is
     * held again, as many times, when this returns. Whoever makes the predicate true should do so
     * with {@code lock} held and then call {@link #wake()}.
     *
     * @param lock the lock guarding the state {@code predicate} reads, held by the caller
     * @param predicate the condition to wait for, evaluated with {@code lock} held
     * @throws IllegalStateException if this is not the calling thread's current fiber
     * @throws IllegalMonitorStateException if the caller does not hold a {@link Mutex} or
     *     {@code ReentrantLock} given as {@code lock}
     */
    public void await(Lock lock, BooleanSupplier predicate) {
        checkAwait(lock, predicate);
        FiberWaits.await(this, lock, false, 0, predicate);
    }

    /**
     * await(predicate) suspends this fiber until {@code predicate} is true, without a lock: the
     * predicate must read only state that its writer publishes with volatile (or stronger) writes,
     * such as a volatile field or an atomic, before it calls {@link #wake()}. A wake-up is not lost
     * to a race between the predicate and the suspend. Lighter than
     * {@link #await(Lock, BooleanSupplier)} when a callback from another thread completes the wait.
     *
     * <pre>{@code
     * volatile boolean done;                      // set by a callback, which then calls fiber.wake()
     * fiber.await(() -> done);
     * }</pre>
     *
     * @param predicate the condition to wait for; reads only safely published state
     * @throws IllegalStateException if this is not the calling thread's current fiber
     */
    public void await(BooleanSupplier predicate) {
        Objects.requireNonNull(predicate, "predicate must not be null");
        checkCurrent();
        FiberWaits.await(this, predicate);
    }

    /**
     * await(lock, timeout, predicate) is {@link #await(Lock, BooleanSupplier)} that gives up after
     * {@code timeout}. Returns the predicate's last value: false means it timed out.
     *
     * @param lock the lock guarding the state {@code predicate} reads, held by the caller
     * @param timeout how long to wait at most
     * @param predicate the condition to wait for, evaluated with {@code lock} held
     * @return the predicate's last value: false if the wait timed out
     * @throws IllegalStateException if this is not the calling thread's current fiber
     * @throws IllegalMonitorStateException if the caller does not hold a {@link Mutex} or
     *     {@code ReentrantLock} given as {@code lock}
     */
    public boolean await(Lock lock, Duration timeout, BooleanSupplier predicate) {
        checkAwait(lock, predicate);
        return FiberWaits.await(this, lock, true, deadlineAfter(timeout), predicate);
    }

    /**
     * wake() resumes this fiber if it is suspended in a wait; it will re-check its predicate. Waking
     * a fiber that is running or already woken does nothing. May be called from any thread.
     */
    public void wake() {
        worker.work.wake(this);
    }

    /**
     * priority() returns this fiber's priority: that of the task it runs (see
     * {@link Task#withPriority}) unless changed with {@link #setPriority}. Used by
     * {@link PriorityPolicy}; the default {@link FifoPolicy} ignores it.
     *
     * @return the priority; higher runs sooner under {@link PriorityPolicy}
     */
    @SuppressWarnings("GuardedBy") // racy read of the timer: a priority is a scheduling hint
    public int priority() {
        FiberTimer t = timer;
        return t == null ? 0 : t.priority;
    }

    /**
     * setPriorityLocked(priority) sets the priority; a zero one needs no side object. Called with
     * its worker's lock held.
     */
    @GuardedBy("worker.work.lock")
    void setPriorityLocked(int priority) {
        FiberTimer t = timer;
        if (t != null) {
            t.priority = priority;
        } else if (priority != 0) {
            timer().priority = priority;
        }
    }

    /**
     * setPriority(priority) changes this fiber's priority. If the fiber is ready to resume, its
     * worker's scheduling policy re-orders it at once ({@link SchedulingPolicy#propertyChanged});
     * if it is suspended, the new priority counts when it is woken. May be called from any thread.
     * The next task the fiber starts sets its priority again.
     *
     * @param priority the new priority; higher runs sooner under {@link PriorityPolicy}
     */
    public void setPriority(int priority) {
        worker.work.setPriority(this, priority);
    }

    /**
     * yield() lets the tasks and fibers already queued on this worker run before the current fiber
     * continues (Boost.Fiber's {@code this_fiber::yield}). Off a fiber, it is {@link Thread#yield()}.
     */
    public static void yield() {
        Worker worker = Worker.current();
        if (worker == null || worker.current == null) { // no worker, or a task run by a pinned wait
            Thread.yield();
        } else {
            worker.yieldFiber(worker.current);
        }
    }

    /**
     * sleep(duration) suspends the current fiber for at least {@code duration}, leaving its worker
     * free to run other work (Boost.Fiber's {@code this_fiber::sleep_for}); many fibers sleeping at
     * once on one worker cost one sleep, not the sum. Off a fiber, it parks the calling thread.
     *
     * @param duration how long to sleep at least
     */
    public static void sleep(Duration duration) {
        long deadline = deadlineAfter(duration);
        Worker worker = Worker.current();
        if (worker != null && worker.current != null) {
            FiberWaits.sleep(worker.current, deadline);
            return;
        }
        boolean interrupted = false;
        for (long nanos; (nanos = deadline - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(nanos);
            interrupted |= Thread.interrupted();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void checkAwait(Lock lock, BooleanSupplier predicate) {
        Objects.requireNonNull(lock, "lock must not be null");
        Objects.requireNonNull(predicate, "predicate must not be null");
        checkCurrent();
    }

    private void checkCurrent() {
        if (this != current()) {
            throw new IllegalStateException("await() must be called on Fiber.current(), but " + this
                    + " is not the fiber running on thread " + Thread.currentThread().getName());
        }
    }

    /** deadlineAfter(timeout) is now + timeout in nanoTime units, saturating for huge timeouts. */
    static long deadlineAfter(Duration timeout) {
        return System.nanoTime() + timeoutNanos(timeout);
    }

    /**
     * timeoutNanos(timeout) is timeout in nanoseconds, 0 for a negative one, and at most
     * Long.MAX_VALUE / 2 (~146 years: never), so that adding it to a nanoTime reading cannot overflow.
     */
    static long timeoutNanos(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout must not be null");
        long nanos;
        try {
            nanos = timeout.toNanos();
        } catch (ArithmeticException overflow) {
            nanos = timeout.isNegative() ? 0 : Long.MAX_VALUE / 2;
        }
        return Math.max(0, Math.min(nanos, Long.MAX_VALUE / 2));
    }

    @Override
    @SuppressWarnings("GuardedBy") // racy read of state: diagnostics only
    public String toString() {
        String name = isMain() ? "main fiber" : "fiber " + id();
        return name + " of " + worker + " (" + state + ")"; // racy read of state: diagnostics only
    }

    /**
     * Stack is the stack a fiber runs on, as its {@link FiberEngine} makes it: the one seam between marl4j's
     * scheduler and the JVM's way of suspending code (marl's {@code OSFiber}). A
     * {@link FiberContinuation} or a {@link VirtualFiber}; a thread's main fiber has none.
     *
     * <p>The switch is asymmetric: {@link #suspend()} returns control to whoever called
     * {@link #resume()}, which is always the worker's trampoline, on the worker's own thread (see
     * {@link Worker}). Both run with the worker's lock held unless the fiber parks without it.
     *
     * <p>It is also the fiber's callback for a future the fiber awaits
     * ({@link FiberCallback#awaitCompletion}): {@link #accept} wakes the fiber.
     */
    interface Stack extends BiConsumer<Object, Throwable> {
        /** resume() runs the fiber on the calling (its worker's) thread until it suspends or ends. */
        void resume();

        /**
         * suspend() yields the running fiber, which must be this one, back to its {@link #resume()}
         * caller. Returns false, without yielding, if the JVM pinned the fiber (a native frame or a
         * class initializer on its stack).
         */
        boolean suspend();

        /** finished() is true once the fiber's body has returned. */
        boolean finished();

        /**
         * suspendedStackTrace() returns the frames of this suspended fiber, innermost first. Call it only
         * while nothing can resume the fiber: with its worker's lock held.
         */
        StackTraceElement[] suspendedStackTrace();
    }
}
