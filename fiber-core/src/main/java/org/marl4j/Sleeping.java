package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import org.marl4j.Worker.Mode;

/**
 * Sleeping is how one {@link Worker} out of work waits for more ({@link #waitForWork()}, marl's
 * {@code waitForWork}): it files what came due, spins first if it is a multi-threaded worker
 * ({@link Spinning}), then sleeps until work arrives or it may stop; and what the owner does each
 * time it wakes: drain the inboxes, expire deadlines ({@link Deadlines}), answer the steal requests
 * of the monitor and of enqueuers ({@link #sleepForWork()}), act on a due {@link CloseWatch}, and
 * keep a bound thread's interrupt for after the wait. The sleep itself on the work's condition,
 * and how other threads end it, is {@link OwnerSleep}; the why of spinning, stealing and the steal
 * requests is in {@link Worker}'s overview. A pinned fiber's wait ({@link PinnedWait}) sleeps here
 * too ({@link #sleep}).
 *
 * <p>Owned by the worker's thread: nothing here is shared. Its methods are called with the worker's
 * lock ({@link Worker#lock}, the work's) held, and release it while they spin or sleep; the fields
 * marked {@link GuardedBy} are written under it.
 */
final class Sleeping {
    private final Worker worker;
    private final Scheduler scheduler;
    private final Mode mode;
    private final Work work;
    /** worker.lock, held on entry to every method here and released while it spins or sleeps. */
    private final WorkerLock lock;
    private final long spinNanos;
    /** How the worker spins for work and steals before it sleeps. */
    private final Spinning spinning;

    /** A bound thread was interrupted while it slept for work: its status is restored after the wait. */
    @GuardedBy("lock")
    private boolean interruptedWhileAsleep;
    /**
     * For an STW draining in unbind() (or close()): when to log the suspended fibers, and (close)
     * when to cancel them. Set by {@link Worker#stopSingleThreaded}.
     */
    @GuardedBy("lock")
    CloseWatch closeWatch;

    Sleeping(Worker worker) {
        this.worker = worker;
        this.scheduler = worker.scheduler;
        this.mode = worker.mode;
        this.work = worker.work;
        this.lock = worker.lock;
        this.spinNanos = worker.scheduler.spinNanos;
        this.spinning = worker.spinning;
    }

    /**
     * waitForWork() returns once there is a task or ready fiber, or the worker may stop. An MTW
     * spins first. Called with lock held; may release it while spinning or sleeping.
     */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that spinning.lock, work.deadlines.lock, work.inboxes.work.lock, work.ownerSleep.lock, worker.lock name
    void waitForWork() {
        work.inboxes.drainInbox();
        if (work.deadlines.hasDeadlines()) {
            work.deadlines.expireDeadlines(System.nanoTime());
        }
        if (work.num() > 0) {
            return;
        }
        if (mode == Mode.MULTI_THREADED && spinNanos > 0 && spinning.spin()) {
            return;
        }
        while (work.num() == 0 && !worker.mayStop()) {
            sleepForWork();
        }
        if (work.num() > 0) {
            // The idle gap a fruitless spin began ends when the work arrived, not when this worker
            // woke: judged by the wake-up, a gap a spin would have bridged looks long, the budget
            // halves, the next gap is slept through too, and a two-worker ping-pong stays at
            // 18 µs a round trip instead of 0.85, a state it does not leave.
            spinning.budget.workFound(work.ownerSleep.arrivedAt(System.nanoTime()));
        } else {
            spinning.budget.abandon();
        }
        restoreInterrupt();
    }

    /**
     * sleepForWork() sleeps until work is added, the earliest deadline passes, another thread sends
     * it to steal or (an STW draining in unbind() or close()) the watch is due; then expires
     * deadlines and steals what it was sent for. Every idle sleep ends here, so a steal request is never left
     * unanswered: one left set would make the monitor pass this worker over for good.
     */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that spinning.lock, work.ownerSleep.lock name
    void sleepForWork() {
        if (mode == Mode.MULTI_THREADED) {
            scheduler.idle.onWorkerSleeping();
        }
        sleep(true, Long.MAX_VALUE);
        if (mode == Mode.MULTI_THREADED) {
            scheduler.idle.onWorkerWoke();
        }
        Worker victim = work.ownerSleep.takeStealHint();
        if (victim != null) {
            spinning.steal(victim);
        }
        if (work.ownerSleep.takeStealAny()) {
            // Woken by an enqueuer (wakeIdleWorker) holding one spinning count for us: look for a
            // task on every worker, then give the count back.
            try {
                if (work.num() == 0) {
                    if (spinNanos > 0) {
                        spinning.spin();
                    } else {
                        spinning.steal(null);
                    }
                }
            } finally {
                scheduler.idle.onEndSpinning();
            }
        }
    }

    /**
     * sleep(idle, maxNanos) sleeps on the work's condition, as {@link OwnerSleep#sleep}, for at most
     * maxNanos (and, draining in unbind() or close(), until the watch is due, which it then acts
     * on), minding interrupts and deadlines. Called with lock held; releases it meanwhile. Idle
     * sleeps and a pinned fiber's wait both come here, so a due watch is never left unacted (a
     * pinned wait would otherwise spin on a watch due forever, its sleeps 1 ns each).
     */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that work.deadlines.lock, work.inboxes.work.lock, work.ownerSleep.lock name
    void sleep(boolean idle, long maxNanos) {
        try {
            work.ownerSleep.sleep(idle, closeWatch == null ? maxNanos : Math.min(maxNanos, closeWatch.nanosUntilDue()));
        } catch (InterruptedException e) {
            // Worker threads ignore interrupts (fibers share the thread); a bound thread keeps its
            // status, restored once the wait is over (restoring it here would fail the next sleep).
            interruptedWhileAsleep |= mode == Mode.SINGLE_THREADED;
        }
        work.inboxes.drainInbox(); // a pinned wait (PinnedWait) sees its fiber QUEUED only once this ran
        if (work.deadlines.hasDeadlines()) {
            work.deadlines.expireDeadlines(System.nanoTime());
        }
        if (closeWatch != null && closeWatch.due()) {
            lock.unlock(); // the watch dumps every worker's fibers, this one's included
            try {
                closeWatch.act();
            } finally {
                lock.lock();
            }
            work.inboxes.drainInbox(); // what a cancellation woke
        }
    }

    @GuardedBy("lock")
    void restoreInterrupt() {
        if (interruptedWhileAsleep) {
            interruptedWhileAsleep = false;
            Thread.currentThread().interrupt();
        }
    }
}
