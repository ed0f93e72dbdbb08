package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;
import org.marl4j.WaitQueue.Waiter;

/**
 * The fiber-wait entry points of one {@link Worker}: how a fiber suspends itself (marl's
 * {@code Worker::wait} and {@code Worker::suspend}), how a bounded close cancels every wait, and
 * the listing of suspended fibers for diagnostics. The run loop that resumes fibers is
 * {@link Worker}'s.
 *
 * <h2>Implementation overview</h2>
 *
 * <p><b>The worker lock across a suspend.</b> As in marl, the worker's {@code lock} is held across
 * fiber switches: {@link #suspend(Fiber, boolean, long)} is entered with it held, the fiber yields
 * with it held, and the fiber that the worker resumes next continues holding it (and releases it
 * when it runs a task or sleeps). A waker needs the worker lock ({@link Work#wake}), so it only ever
 * sees a waiter before it decided to suspend or once it is fully suspended. Waking a RUNNING or
 * QUEUED fiber changes no state, as in marl.
 *
 * <p><b>Parking without the lock.</b> The untimed waits of a fiber's own node
 * ({@link #park(Fiber, Waiter)}: an {@link Event}, a {@link FiberCallback}) and of a future
 * ({@link #awaitDone}) yield without taking the lock ({@link #suspend(Fiber, Waiter, int)}), leaving
 * on the worker what ends the wait (the node, or the wake epoch the fiber read). The trampoline,
 * back on the thread's own stack, takes the lock and does what the fiber would have done under it
 * ({@link #parkYielded}): resume the fiber at once if the wait has ended meanwhile, else mark it
 * YIELDED and list it. The fiber stays RUNNING until then, so a wake in between changes no state
 * but bumps the epoch (or finds {@code notified} set), which the trampoline then sees; and the
 * fiber resumes without the lock, which the trampoline releases for it. Why: the lock's code, the
 * state change and the listing then run in the trampoline's frames, not the fiber's, so they are
 * not in its stack chunk (see Memory). A main fiber (no continuation), a pinned yield and a JFR
 * recording of {@link FiberSuspendEvent} take the locked way.
 *
 * <p><b>Lost wake-ups, and one departure from marl.</b> marl's waiter takes the worker lock
 * <em>before</em> releasing the user's lock, so no waker can slip in between. marl4j cannot: the
 * user's lock may be a {@link Mutex}, whose unlock wakes the next owner's fiber and so takes a
 * worker lock, perhaps this one (a self-deadlock; the lock is not reentrant) or another worker's
 * (lock-order inversion). So no worker lock is ever held while user code or a user lock runs.
 * Instead, {@link #await} samples its fiber's {@code wakeEpoch} while it still holds the user's
 * lock, before it evaluates the predicate; every wake() bumps the epoch under the worker lock; the waiter, now under the worker lock,
 * suspends only if the epoch is unchanged. A waker that made the predicate true under the user's
 * lock has therefore either bumped the epoch already or finds the fiber suspended. The primitives
 * ({@link Waiter}, through {@link #park}) use a per-wait {@code notified} flag the same way. Every
 * check that may refuse a wait ({@link #checkMaySuspend}: the lock check, cancellation) runs
 * before the waiter can be notified, so a refused wait never swallows a notification meant for
 * another waiter; a cancellation that comes later, in {@link #suspend}, may find the waiter
 * notified already, and the primitive passes that notification on ({@link WaitQueue#leave}).
 * {@link #await(Fiber, BooleanSupplier)} needs no lock at all: it reads the epoch before the
 * predicate, and its predicate reads only volatile state.
 *
 * <p><b>Memory.</b> A suspended fiber's cost is mostly its continuation's stack chunk, which the
 * JVM sizes from the frames between the continuation's entry and {@code Continuation.yield}: the
 * run loop, the user's task, and the wait. So the wait paths here allocate nothing per wait (a
 * fiber is its own waiter node: see {@link Waiter}), the run loop keeps only a small frame below
 * the task ({@link Worker}'s runUntilShutdown), and every frame or live local added between a wait
 * and the yield costs every suspended fiber (see benchmarks' {@code MemoryBenchmark}).
 *
 * <p><b>Cancellation.</b> {@link #cancelWaits()} (a bounded close giving up) resumes every
 * suspended fiber with a {@link FiberCancelledException} and makes every later wait throw one, so
 * the worker drains. A {@link FiberCancellation} does the same for one fiber while the scope is
 * open: its cancel() counts itself in the fiber's {@code cancelledScopes} under this worker's lock
 * and then wakes the fiber, so the check in {@link #suspend} (under the lock, before and after the
 * switch) sees it whether the cancel came before the fiber suspended or while it was suspended.
 */
final class FiberWaits {
    private final Worker worker;
    private final Work work;
    /** worker.lock: guards the fields below marked with it, and is held across every fiber switch. */
    private final WorkerLock lock;
    private final boolean checkLocks;
    /** With checkLocks: locks the bound thread already held at bind(), which the check ignores. */
    private Set<Integer> locksHeldAtBind = Set.of();
    /** Set by cancelWaits(): every suspended and every later wait throws FiberCancelledException. */
    @GuardedBy("lock")
    private boolean cancelled;

    FiberWaits(Worker worker) {
        this.worker = worker;
        this.work = worker.work;
        this.lock = worker.lock;
        this.checkLocks = worker.scheduler.checkLocks;
    }

    /** recordLocksHeldAtBind() notes, with the lock check on, the locks a thread holds as it binds. */
    void recordLocksHeldAtBind() {
        if (checkLocks) {
            locksHeldAtBind = LockCheck.heldLocks();
        }
    }

    /**
     * await() is marl's Worker::wait: suspends {@code fiber} (the current one) until {@code pred},
     * checked with {@code userLock} held, is true or the deadline passes. Called and returns with
     * userLock held, as many times as before (a reentrant one is released completely meanwhile).
     * Returns the last value of pred.
     */
    @Excludes("lock")
    boolean await(Fiber fiber, Lock userLock, boolean timed, long deadline, BooleanSupplier pred) {
        // Every hold of a reentrant userLock is released while suspended, or its waker could not take it.
        int holds = LockHolds.reduceToOne(userLock, "Fiber.await");
        try {
            return awaitHeldOnce(fiber, userLock, timed, deadline, pred);
        } finally {
            LockHolds.restore(userLock, holds);
        }
    }

    @Excludes("lock")
    private boolean awaitHeldOnce(Fiber fiber, Lock userLock, boolean timed, long deadline, BooleanSupplier pred) {
        while (true) {
            // Read with userLock held, before pred: a waker that makes pred true must take userLock
            // after this, so its wake() bumps the epoch after this read, and is seen below or finds
            // us suspended.
            int epoch = fiber.wakeEpoch;
            if (pred.getAsBoolean()) {
                return true;
            }
            if (timed && deadline - System.nanoTime() <= 0) {
                return false;
            }
            checkMaySuspend(fiber, userLock);
            userLock.unlock();
            lock.lock();
            try {
                if (fiber.wakeEpoch == epoch) {
                    suspend(fiber, timed, deadline);
                }
            } finally {
                lock.unlock();
                relock(fiber, userLock);
            }
        }
    }

    /**
     * relock(fiber, userLock) takes a wait's user lock again, as {@code Condition.await} does before
     * it returns or throws, even when a bounded close has cancelled this worker's waits meanwhile: a
     * {@link Mutex} contended then would refuse the fiber, and the caller's {@code finally} would
     * unlock a Mutex it does not hold (and restore its holds onto the owner's). So the fiber's own
     * waits for the Mutex are spared the cancellation; the holder, cancelled too, unwinds and
     * releases it. Called without lock.
     */
    @Excludes("lock")
    static void relock(Fiber fiber, Lock userLock) {
        boolean outer = fiber.relocking(); // a Mutex's own wait for its guard nests a relock in one
        fiber.setRelocking(true);
        try {
            userLock.lock();
        } finally {
            fiber.setRelocking(outer);
        }
    }

    /**
     * await(fiber, pred) suspends {@code fiber} (the current one) until {@code pred}, which reads
     * only state written with volatile (or stronger) semantics before its writer wakes the fiber,
     * is true. No lock is needed: the epoch is read before pred, so if pred misses a write, the
     * wake() that follows the write bumps the epoch after this read (volatile accesses are totally
     * ordered), and is seen under the worker lock or finds the fiber suspended. The leanest wait:
     * what {@code Futures.await} uses, with its one callback object as pred.
     */
    @Excludes("lock")
    void await(Fiber fiber, BooleanSupplier pred) {
        while (true) {
            int epoch = fiber.wakeEpoch;
            if (pred.getAsBoolean()) {
                return;
            }
            checkMaySuspend(fiber, null);
            lock.lock();
            try {
                if (fiber.wakeEpoch == epoch) {
                    suspend(fiber, false, 0);
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * park() suspends {@code fiber} (the current one) unless {@code waiter} has already been
     * notified, releasing userLock meanwhile. The waiter's flag is set before its fiber is woken, so
     * a notification that races with this call is seen here or wakes the suspended fiber. The
     * refusals (lock check, cancellation) are checked before the waiter is published, by
     * {@link Waiter#forCurrent(Lock)} or by the primitive's own wait ({@link #checkMaySuspend}).
     */
    @Excludes("lock")
    void park(Fiber fiber, Lock userLock, Waiter waiter, boolean timed, long deadline) {
        userLock.unlock();
        lock.lock();
        try {
            if (!waiter.notified) {
                suspend(fiber, timed, deadline);
            }
        } finally {
            lock.unlock();
            relock(fiber, userLock);
        }
    }

    /**
     * park(fiber, waiter) is the untimed {@link #park(Fiber, Lock, Waiter, boolean, long)} of a
     * primitive that has already released its own lock (after queuing waiter and checking
     * {@link #checkMaySuspend}): it suspends {@code fiber} (the current one) unless {@code waiter}
     * has been notified meanwhile, and returns with no lock held.
     */
    @Excludes("lock")
    static void park(Fiber fiber, Waiter waiter) {
        if (!suspend(fiber, waiter, 0)) {
            fiber.waits().parkLocked(fiber, waiter);
        }
    }

    /**
     * The {@link Worker#parking} mark of a wait on the wake epoch ({@link #awaitDone}): the fiber is
     * to stay suspended unless its epoch has moved from {@link Worker#parkingEpoch}. Never queued
     * nor notified.
     */
    static final Waiter EPOCH_WAIT = new Waiter.ThreadWaiter(null);

    /**
     * suspend(fiber, mark, epoch) is the fiber's half of an untimed park without the worker lock:
     * it leaves the worker what to check (mark: the waiter, whose {@code notified} flag ends the wait,
     * or {@link #EPOCH_WAIT} and the epoch the fiber read) and yields; the trampoline takes the lock
     * and decides ({@link #parkYielded}). So the lock's code and the suspend's bookkeeping are not
     * in this fiber's frames, and, the method being static and reaching the worker through the
     * fiber, nothing of it but the fiber is live across the yield (see Memory). Returns true once
     * the fiber has been resumed (notified, woken or cancelled: it throws if cancelled, as
     * {@link #suspend(Fiber, boolean, long)} does); false, without having suspended, if the fiber must wait the locked way:
     * a thread's main fiber, a JFR recording that wants {@link FiberSuspendEvent}, or a pinned yield.
     * Named as the locked {@link #suspend(Fiber, boolean, long)} (marl's {@code Worker::suspend}): a
     * fiber dump ({@link SuspendedFiber}) starts at the deepest {@code FiberWaits.suspend}.
     */
    @Excludes("lock")
    @SuppressWarnings("GuardedBy") // the fiber hands parking to its trampoline, which reads it on this thread after the switch
    private static boolean suspend(Fiber fiber, Waiter mark, int epoch) {
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
        FiberWaits waits = fiber.worker.waits;
        if (waits.waitsCancelled(fiber)) {
            throw waits.cancellation(fiber);
        }
        return true;
    }

    /**
     * awaitDone(fiber, future) suspends {@code fiber} (the current one, whose refusal checks the
     * caller ran) until {@code future} is done; the caller has registered the fiber's continuation
     * as the future's callback, which wakes the fiber ({@link FiberContinuation#accept}). The wait
     * is on the wake epoch, as {@link #await(Fiber, BooleanSupplier)}'s: the epoch is read before
     * isDone(), so a completion that isDone() misses wakes the fiber after that read, and the
     * trampoline sees the epoch moved or finds the fiber suspended. Other wakes suspend it again.
     */
    @Excludes("lock")
    static void awaitDone(Fiber fiber, CompletableFuture<?> future) {
        while (true) {
            int epoch = fiber.wakeEpoch;
            if (future.isDone()) {
                return;
            }
            if (!suspend(fiber, EPOCH_WAIT, epoch)) {
                // A JFR recording or a pinned yield: the whole wait the locked way, its epoch read
                // anew (so nothing but fiber and future is live across the yield above).
                fiber.waits().await(fiber, future::isDone);
                return;
            }
        }
    }

    /** parkLocked(fiber, waiter) is {@link #park(Fiber, Waiter)} with the worker lock taken by the fiber. */
    @Excludes("lock")
    private void parkLocked(Fiber fiber, Waiter waiter) {
        lock.lock();
        try {
            if (!waiter.notified) {
                suspend(fiber, false, 0);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * parkYielded(fiber, waiter) is the worker's half of {@link #suspend(Fiber, Waiter, int)}: the fiber has
     * yielded, RUNNING, without the lock, and the trampoline has taken the lock back. If the waiter
     * has been notified meanwhile (for {@link #EPOCH_WAIT}: the fiber's wake epoch has moved), or
     * the fiber's waits are cancelled, the fiber is to resume at
     * once: returns true, and it stays RUNNING. Otherwise it is suspended (YIELDED), as
     * {@link #suspend} does, for a wake to queue it. No wake-up is lost: a notifier sets
     * {@code notified} before it wakes the fiber, and a wake takes this lock (or goes through the
     * inbox, which the owner drains under it later), so it either comes before this check, which
     * then sees the flag (the epoch a wake bumps, likewise), or finds the fiber suspended. Either way the fiber resumes without the
     * lock ({@link Fiber#resumesUnlocked}). Called with lock held, on the worker's thread.
     */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that fiber.worker.lock, worker.lock name
    boolean parkYielded(Fiber fiber, Waiter waiter) {
        fiber.setResumesUnlocked(true);
        boolean woken = waiter == EPOCH_WAIT ? fiber.wakeEpoch != worker.parkingEpoch : waiter.notified;
        if (woken || waitsCancelled(fiber)) {
            return true;
        }
        fiber.changeState(Fiber.State.RUNNING, Fiber.State.YIELDED);
        worker.suspended.add(fiber);
        keepInterrupt(fiber);
        return false;
    }

    /**
     * awaitNotified(fiber, waiter) suspends {@code fiber} (the current one: the caller checked) until
     * {@code waiter}, which no queue holds, has been notified: {@link FiberCallback}'s wait, whose
     * refusal checks ran before the callback was handed out. Spurious wakes ({@link Fiber#wake()} by
     * anyone) suspend it again. A wait that ends un-notified (cancelled) marks the node taken, since
     * its callback may still run and write to it ({@link Waiter}). Kept small for the same reason as
     * {@link #park(Fiber, Waiter)}: every live value here is in every suspended fiber's stack chunk.
     */
    @Excludes("lock")
    static void awaitNotified(Fiber fiber, Waiter waiter) {
        try {
            while (!waiter.notified) {
                park(fiber, waiter);
            }
        } catch (Throwable t) {
            waiter.takenByNotifier(); // harmless if notified meanwhile: the node is freed once notified
            throw t;
        }
    }

    /** sleep(fiber, deadline) suspends the current fiber until the deadline has passed. */
    @Excludes("lock")
    void sleep(Fiber fiber, long deadline) {
        checkMaySuspend(fiber, null);
        lock.lock();
        try {
            while (deadline - System.nanoTime() > 0) {
                suspend(fiber, true, deadline);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * yieldFiber(fiber) lets every task and fiber already queued on this worker start before the
     * current fiber continues: it queues a task that wakes the fiber, then suspends.
     */
    @Excludes("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that work.deadlines.lock, work.inboxes.work.lock, work.lock name
    void yieldFiber(Fiber fiber) {
        checkMaySuspend(fiber, null);
        lock.lock();
        try {
            if (work.deadlines.hasDeadlines()) {
                work.deadlines.expireDeadlines(System.nanoTime());
            }
            work.inboxes.drainInbox(); // tasks and wakes other threads left count as work to yield to
            if (work.num() == 0) {
                return;
            }
            work.addTask(new Task(fiber::wake, true, fiber.priority()));
            suspend(fiber, false, 0);
        } finally {
            lock.unlock();
        }
    }

    /**
     * checkMaySuspend(fiber, userLock) throws, before anything is published, if {@code fiber} may not
     * suspend: it is not this thread's running fiber, its waits were cancelled (by a bounded close
     * or a {@link FiberCancellation}), or (with the lock
     * check on) the thread holds a monitor or a thread-owned lock other than {@code userLock}, which
     * the wait releases. Called by the fiber itself, without the worker lock.
     */
    @Excludes("lock")
    @SuppressWarnings("GuardedBy") // racy read: a later cancellation is seen under the lock in suspend()
    void checkMaySuspend(Fiber fiber, Lock userLock) {
        if (fiber != worker.current) {
            throw new IllegalStateException(fiber + " is not the fiber running on this thread ("
                    + worker.current + "): only a fiber can suspend itself");
        }
        if (waitsCancelled(fiber)) { // racy read: a later cancellation is seen under the lock in suspend()
            throw cancellation(fiber);
        }
        if (checkLocks && !worker.virtualFibers) { // a virtual thread owns its locks: nothing to check
            LockCheck.verify(locksHeldAtBind, userLock);
        }
    }

    /**
     * suspend() is marl's Worker::suspend. Called with lock held on the current fiber; returns with
     * lock held once the fiber has been woken or its deadline has passed.
     *
     * @throws FiberCancelledException if a bounded close cancelled this worker's waits, or a
     *     FiberCancellation the fiber's waits
     */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that fiber.worker.lock, work.deadlines.lock name
    private void suspend(Fiber fiber, boolean timed, long deadline) {
        if (waitsCancelled(fiber)) {
            throw cancellation(fiber);
        }
        if (timed) {
            fiber.changeState(Fiber.State.RUNNING, Fiber.State.WAITING);
            work.deadlines.addWaiting(fiber, deadline);
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
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that worker.lock names
    private void switchAway(Fiber fiber) {
        worker.suspended.add(fiber); // before the yield: the fiber is listed whenever a dumper holds the lock
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
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that worker.lock names
    private void switchAwayInPlace(Fiber fiber) {
        if (fiber.isMain()) {
            worker.stats.mainFiberWaits = true; // a bound thread's own code waits: not a task (see WorkerStats)
            worker.trampoline();
            worker.stats.mainFiberWaits = false;
        } else {
            PinnedWait.block(worker, fiber);
        }
        resumed(fiber);
        work.progressed();
    }

    /**
     * resumed(fiber) makes a woken fiber, about to continue after its yield, running again: its
     * interrupt status back on the thread, off the suspended list, QUEUED to RUNNING. Called with
     * lock held on the fiber's worker thread, by the trampoline just before it resumes a
     * continuation fiber, or by the fiber itself after an in-place wait.
     */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that fiber.worker.lock, worker.lock name
    void resumed(Fiber fiber) {
        restoreInterrupt(fiber);
        worker.suspended.remove(fiber);
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
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that fiber.worker.lock, work.lock, worker.lock name
    void blockedInJdk(Fiber fiber, boolean withLock) {
        fiber.changeState(Fiber.State.RUNNING, Fiber.State.YIELDED);
        worker.suspended.add(fiber);
        fiber.setBlockedInJdk(true);
        fiber.setResumesUnlocked(!withLock); // it blocked in its task's code, where it holds no worker lock
        if (fiber.virtualThread().runnable) {
            work.wakeLocked(fiber);
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
        if (worker.mode == Worker.Mode.MULTI_THREADED && (fiber.isMain() || !worker.virtualFibers)) {
            fiber.keepInterrupt(Thread.interrupted());
        }
    }

    private void restoreInterrupt(Fiber fiber) {
        // A virtual thread's status is its own already: the JDK keeps it across the switch.
        if (worker.mode == Worker.Mode.MULTI_THREADED && (fiber.isMain() || !worker.virtualFibers)) {
            Thread.interrupted(); // not this fiber's: left by what ran meanwhile
            if (fiber.takeInterrupt()) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** switchAwayRecorded(fiber, timed) is {@link #switchAway} while a JFR recording has {@link FiberSuspendEvent} on. */
    @GuardedBy("lock")
    private void switchAwayRecorded(Fiber fiber, boolean timed) {
        FiberSuspendEvent event = FiberSuspendEvent.beginIfTurnedOn(); // null if the recording stopped meanwhile
        switchAway(fiber);
        if (event != null) {
            event.endAndCommit(fiber, timed);
        }
    }

    /**
     * waitsCancelled(fiber) is whether {@code fiber} may not wait: a bounded close cancelled this
     * worker's waits, or a {@link FiberCancellation} open on the fiber was cancelled. Either way a
     * fiber taking a wait's user lock again is spared (see {@link #relock}). Racy without lock.
     */
    @SuppressWarnings("GuardedBy") // racy read, as documented above
    private boolean waitsCancelled(Fiber fiber) {
        return (cancelled || fiber.cancelledScopes != 0) && !fiber.relocking();
    }

    @GuardedBy("lock")
    private FiberCancelledException cancellation(Fiber fiber) {
        if (cancelled) {
            return new FiberCancelledException("the wait was cancelled because " + worker.scheduler
                    + " was closed with a timeout that passed while this fiber was still suspended");
        }
        return new FiberCancelledException("the wait was cancelled because the task running on " + fiber
                + " was cancelled: FiberCancellation.cancel() (which Future.cancel(true) and a disposed"
                + " Reactor task call for the tasks of marl4j's executor and scheduler)");
    }

    /**
     * cancelWaits() is a bounded close giving up: it resumes every suspended fiber of this worker
     * with a {@link FiberCancelledException} thrown from its wait, and makes every later wait throw
     * one at once, so that the fibers unwind (their finally blocks run) and the worker drains.
     */
    @Excludes("lock")
    @SuppressWarnings("GuardedBy") // the lambda runs inside SuspendedList.forEach, under the worker lock taken here
    int cancelWaits() {
        List<VirtualFiber> blockedInJdk = new java.util.ArrayList<>();
        int[] woken = {0};
        lock.lock();
        try {
            cancelled = true;
            worker.suspended.forEach(f -> {
                if (f.blockedInJdk()) {
                    blockedInJdk.add(f.virtualThread()); // interrupted below, as shutdownNow() does a pool's threads
                    woken[0]++;
                } else if (f.state == Fiber.State.YIELDED || f.state == Fiber.State.WAITING) {
                    f.wakeEpoch++;
                    work.addReadyFiber(f);
                    woken[0]++;
                }
            });
            work.ownerSleep.wakeOwner();
        } finally {
            lock.unlock();
        }
        // Outside the lock: the interrupt wakes the fiber through this worker (VirtualFiber.execute).
        blockedInJdk.forEach(VirtualFiber::interrupt);
        return woken[0];
    }

    /**
     * addSuspendedTo(into) describes, with lock held, every fiber of this worker that is suspended
     * in a wait, with where it waits. Holding the lock keeps each fiber unmounted while its
     * continuation is walked, since this worker resumes fibers only with its lock held; it also
     * stalls this worker for the walk, which is the price of a diagnostic snapshot.
     */
    @Excludes("lock")
    @SuppressWarnings("GuardedBy") // the lambda runs inside SuspendedList.forEach, under the worker lock taken here
    void addSuspendedTo(List<SuspendedFiber> into) {
        lock.lock();
        try {
            long now = System.nanoTime();
            Thread thread = worker.thread();
            worker.suspended.forEach(f -> into.add(SuspendedFiber.of(f, thread, f.pinned(), now)));
        } finally {
            lock.unlock();
        }
    }
}
