package org.marl4j;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import org.marl4j.Work.WorkerLock;

/**
 * A FiberCancellation lets another thread cancel the waits of a piece of code running on a fiber:
 * the fiber's counterpart of interrupting the thread that runs a task, which is how
 * {@code Future.cancel(true)} and Reactor's {@code dispose()} stop a thread pool's task. Fibers
 * cannot use interrupts for this, since the fibers of a worker share its thread.
 *
 * <pre>{@code
 * // in a task, on its fiber:
 * try (FiberCancellation cancellation = FiberCancellation.open()) {
 *     handle.set(cancellation);              // give it to whoever may cancel this work
 *     Page page = Futures.await(fetch(url)); // throws FiberCancelledException once cancelled
 *     ...
 * }
 * // elsewhere, on any thread:
 * handle.get().cancel();
 * }</pre>
 *
 * <p>From {@link #cancel()} until {@link #close()}, every wait of the fiber on a marl4j primitive
 * (including {@code Futures.await} and the other fiber-blocking waits built on them) throws
 * {@link FiberCancelledException}: the wait it is suspended in at once, and every later one as it
 * begins, so the code unwinds and its {@code finally} blocks run. A wait whose condition already
 * holds returns as usual; only a wait that would suspend is refused. After {@code close()} the
 * fiber waits normally again. A {@link Mutex} that a wait releases is always taken back before the
 * exception propagates, as {@code Condition.await} does.
 *
 * <p>Scopes nest: a cancellation cancels the waits inside it, including those inside scopes opened
 * within it, and a scope closed inside it does not end it. {@link #close()} must be called by the
 * fiber that opened the scope before its task ends; use try-with-resources. (A cancelled scope
 * left open when its task ends is reported to the scheduler's uncaught-exception handler and stops
 * applying; one left open and cancelled later would cancel whatever that fiber runs then.)
 *
 * <p>Opened off a fiber (on a plain thread, or in a task a pinned wait runs), a scope has no waits
 * to cancel: {@link #cancel()} only marks it cancelled. Thread waits are not interrupted.
 *
 * <p>On the {@link FiberEngine#VIRTUAL_THREADS} engine, {@link #cancel()} from another thread also
 * interrupts the fiber's virtual thread, as {@code Future.cancel(true)} interrupts a pool's thread:
 * a blocking JDK call it is in, or makes next, throws {@code InterruptedException} (or closes its
 * channel). {@link #close()} waits for that interrupt to have landed and clears it, so neither the
 * code after the scope nor a later task on the fiber sees it.
 */
public final class FiberCancellation implements AutoCloseable {
    /*
     * state: OPEN -> CANCELLED (cancel(), under the worker lock, together with the fiber's count)
     *        OPEN -> CLOSED (close() of a scope never cancelled: one CAS, no lock)
     *        CANCELLED -> CANCELLED_CLOSED (close(), under the worker lock, taking the count back)
     * A cancel() that interrupts the fiber's virtual thread sets INTERRUPTING with CANCELLED and
     * swaps it for INTERRUPTED once the interrupt is delivered, after the lock is released; close()
     * waits out INTERRUPTING, so the interrupt never lands after the scope (on the fiber's next
     * task), and clears the status INTERRUPTED says this scope set.
     * So the count is incremented and decremented under the same lock, and close() takes the lock
     * only for a scope that was cancelled.
     */
    private static final int OPEN = 0;
    private static final int CANCELLED = 1;
    private static final int CLOSED = 2;
    private static final int CANCELLED_CLOSED = CANCELLED | CLOSED;
    private static final int INTERRUPTING = 4;
    private static final int INTERRUPTED = 8;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(FiberCancellation.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The fiber whose waits this scope cancels; null when opened off a fiber. */
    private final Fiber fiber;
    private volatile int state;

    private FiberCancellation(Fiber fiber) {
        this.fiber = fiber;
    }

    /**
     * open() opens a cancellation scope for the code that the calling fiber runs until
     * {@link #close()}.
     *
     * @return the scope, to hand to whoever may cancel; close it on this fiber
     */
    public static FiberCancellation open() {
        return new FiberCancellation(Fiber.current());
    }

    /**
     * cancel() cancels the fiber's waits until the scope is closed: the wait it is suspended in, if
     * any, throws {@link FiberCancelledException} at once, and so does every later one. May be
     * called from any thread, the fiber itself included; does nothing once the scope is closed or
     * already cancelled.
     *
     * @return true if this call cancelled the scope; false if it was closed or cancelled already
     */
    @SuppressWarnings("GuardedBy") // lock, held here, is the f.worker.work.lock its cancelled scopes need
    public boolean cancel() {
        Fiber f = fiber;
        if (f == null) {
            return STATE.compareAndSet(this, OPEN, CANCELLED);
        }
        VirtualFiber thread = Fiber.current() != f ? f.virtualThread() : null;
        WorkerLock lock = f.worker.lock();
        lock.lock();
        try {
            if (!STATE.compareAndSet(this, OPEN, thread != null ? CANCELLED | INTERRUPTING : CANCELLED)) {
                return false;
            }
            f.addCancelledScope();
        } finally {
            lock.unlock();
        }
        f.wake(); // after the count: the fiber, resumed or about to suspend, sees it under the lock
        if (thread != null) {
            thread.interrupt(); // ends a blocking JDK call too, as Future.cancel(true) on a pool's thread does
            int s;
            do {
                s = state;
            } while (!STATE.compareAndSet(this, s, (s & ~INTERRUPTING) | INTERRUPTED));
        }
        return true;
    }

    /**
     * fiber() is the fiber whose waits this scope cancels: the one that opened it. An adapter can
     * compare it with {@link Fiber#current()} to leave a task alone that cancels itself, as Reactor
     * does not interrupt a task disposed from its own thread.
     *
     * @return the fiber, or null if the scope was opened off a fiber
     */
    public Fiber fiber() {
        return fiber;
    }

    /**
     * isCancelled() is whether {@link #cancel()} took effect on this scope (before it was closed).
     *
     * @return true if the scope was cancelled
     */
    public boolean isCancelled() {
        return (state & CANCELLED) != 0;
    }

    /**
     * close() ends the scope: the fiber's waits are no longer cancelled by it, and a later
     * {@link #cancel()} does nothing. Idempotent.
     *
     * @throws IllegalStateException if called on another fiber or thread than the one that opened
     *     the scope
     */
    @Override
    @SuppressWarnings("GuardedBy") // lock, held here, is the fiber.worker.work.lock its cancelled scopes need
    public void close() {
        if (Fiber.current() != fiber) {
            throw new IllegalStateException("a FiberCancellation must be closed by the fiber that opened it ("
                    + (fiber == null ? "none: it was opened off a fiber" : fiber) + "), not by "
                    + (Fiber.current() == null ? Thread.currentThread() : Fiber.current())
                    + ": close it in a try-with-resources around the code it cancels");
        }
        if (STATE.compareAndSet(this, OPEN, CLOSED)) {
            return; // never cancelled: the common case, one CAS
        }
        if (fiber == null) {
            STATE.compareAndSet(this, CANCELLED, CANCELLED_CLOSED);
            return;
        }
        // The canceller is between its unlock and the interrupt: microseconds, unless it is a fiber
        // of this worker that blocked in the interrupt; parking then lets it run.
        for (int spins = 0; (state & INTERRUPTING) != 0; spins++) {
            if (spins < 100) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(10_000);
            }
        }
        WorkerLock lock = fiber.worker.lock();
        lock.lock();
        try {
            int s = state;
            if ((s & CLOSED) == 0 && STATE.compareAndSet(this, s, s | CLOSED)) {
                fiber.removeCancelledScope();
            } else {
                return; // closed already
            }
        } finally {
            lock.unlock();
        }
        if ((state & INTERRUPTED) != 0) {
            Thread.interrupted(); // the interrupt was this scope's, for the waits inside it
        }
    }

    @Override
    public String toString() {
        String s = switch (state & CANCELLED_CLOSED) {
            case OPEN -> "open";
            case CANCELLED -> "cancelled";
            case CLOSED -> "closed";
            default -> "cancelled, closed";
        };
        return "FiberCancellation[" + s + ", " + (fiber == null ? "off a fiber" : fiber) + "]";
    }
}
