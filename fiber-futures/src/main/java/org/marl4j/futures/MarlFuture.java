package org.marl4j.futures;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.marl4j.Fiber;
import org.marl4j.FiberCancellation;

/**
 * The future that {@link MarlExecutorService#submit} returns: {@code FutureTask}'s contract, but its
 * {@link #get()} waits on a {@link Latch}, so on a fiber it suspends only the fiber.
 *
 * <p>States, as FutureTask's (one CAS per transition, {@code state} volatile):
 * <pre>
 *   NEW ──run()──▶ RUNNING ──body returns──▶ SUCCESS
 *    │                │     ──body throws───▶ FAILED
 *    └──cancel()──────┴─────cancel()────────▶ CANCELLED
 * </pre>
 * {@code result}/{@code failure} are written before the CAS out of RUNNING and read only after
 * seeing a final state. A body whose future was cancelled while it ran finishes, and its CAS fails:
 * the result is dropped. {@code cancel(true)} cancels the running body's fiber waits, through the
 * {@link FiberCancellation} the body runs in (see {@link MarlExecutorService}); it interrupts a
 * thread only when the body runs off a fiber, on a plain thread that called {@link #run()} itself
 * (a future {@code shutdownNow()} handed back), as {@code FutureTask} interrupts its runner.
 *
 * <p>That interrupt never lands after run() has returned, and does not outlive it: cancel() marks
 * INTERRUPTING before it reads {@code runner}, run() clears {@code runner} before it reads the mark
 * (all volatile), so either cancel() sees no runner, or run() sees the mark, waits until the
 * interrupt is delivered and then clears the status that interrupt set.
 */
final class MarlFuture<V> implements RunnableFuture<V> {
    private static final int NEW = 0;
    private static final int RUNNING = 1;
    private static final int SUCCESS = 2;
    private static final int FAILED = 3;
    private static final int CANCELLED = 4;
    private static final VarHandle STATE;
    private static final VarHandle CLAIMED;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(MarlFuture.class, "state", int.class);
            CLAIMED = MethodHandles.lookup().findVarHandle(MarlFuture.class, "claimed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile int state;
    /**
     * Set by the one run() call that may run the body, before it writes {@code running} and
     * {@code runner}: a second run() racing it (two threads given the same future) must not
     * overwrite them, or cancel(true) would cancel and interrupt the loser instead of the body.
     */
    @SuppressWarnings("unused") // accessed through CLAIMED
    private volatile boolean claimed;
    /** Nulled when done, so a finished future does not keep its body reachable. */
    private Callable<V> callable;
    private V result;
    private Throwable failure;
    /**
     * The scope the body runs in, for cancel(true): written by run() before its CAS to RUNNING, so a
     * cancel() that saw RUNNING reads it. Left set afterwards: a closed scope ignores cancel().
     */
    private FiberCancellation running;
    private final Latch done = new Latch();
    /** The plain thread running the body, for cancel(true) to interrupt; null on a fiber, whose thread is shared. */
    private volatile Thread runner;
    /** Where cancel(true)'s interrupt of {@code runner} stands: NO_INTERRUPT, INTERRUPTING or INTERRUPTED. */
    private volatile int interrupt;
    private static final int NO_INTERRUPT = 0;
    private static final int INTERRUPTING = 1;
    private static final int INTERRUPTED = 2;
    /** Told once, when the future reaches a final state; may be null. */
    private final Consumer<? super MarlFuture<V>> onDone;

    MarlFuture(Callable<V> callable, Consumer<? super MarlFuture<V>> onDone) {
        this.callable = Objects.requireNonNull(callable, "task must not be null");
        this.onDone = onDone;
    }

    /**
     * run() runs the body if nobody has run or cancelled this future yet; never throws. Off a fiber,
     * a cancel(true) meanwhile interrupts the calling thread, and the interrupt status it set is
     * cleared again before run() returns.
     */
    @Override
    public void run() {
        // Read before the CAS: once the CAS succeeds a concurrent cancel() may null the field.
        Callable<V> body = callable;
        if (body == null || state != NEW || !CLAIMED.compareAndSet(this, false, true)) {
            return;
        }
        Thread thread = Fiber.current() == null ? Thread.currentThread() : null;
        try {
            try (FiberCancellation scope = FiberCancellation.open()) {
                running = scope;
                if (thread != null) {
                    runner = thread; // before the CAS: a cancel() that sees RUNNING sees it
                }
                if (!STATE.compareAndSet(this, NEW, RUNNING)) {
                    return;
                }
                V value = body.call();
                result = value;
                finish(SUCCESS);
            } catch (Throwable t) {
                failure = t;
                finish(FAILED);
            }
        } finally {
            if (thread != null) {
                releaseRunner();
            }
        }
    }

    /**
     * releaseRunner() ends cancel(true)'s right to interrupt this thread, waits for an interrupt
     * already under way to land, and clears it: it was for the body, not the caller's next work.
     */
    private void releaseRunner() {
        runner = null;
        int i;
        while ((i = interrupt) == INTERRUPTING) {
            Thread.onSpinWait(); // cancel() is between two field accesses and one interrupt() call
        }
        if (i == INTERRUPTED) {
            Thread.interrupted();
        }
    }

    private void finish(int outcome) {
        if (STATE.compareAndSet(this, RUNNING, outcome)) {
            signalDone();
        }
    }

    /**
     * cancel(mayInterruptIfRunning) moves a NEW or RUNNING future to CANCELLED; a NEW one will never
     * run. The body of a running one goes on and its result is dropped; with mayInterruptIfRunning
     * its fiber's waits throw FiberCancelledException, the one it is suspended in and every later
     * one, so it unwinds, and a body run off a fiber by a plain thread's run() has that thread
     * interrupted, as FutureTask does. A worker thread, shared by fibers, is never interrupted.
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        while (true) {
            int s = state;
            if (s > RUNNING) {
                return false;
            }
            if (STATE.compareAndSet(this, s, CANCELLED)) {
                if (s == RUNNING && mayInterruptIfRunning) {
                    running.cancel();
                    interruptRunner();
                }
                signalDone();
                return true;
            }
        }
    }

    /** interruptRunner() interrupts the plain thread running the body, if one still is (see releaseRunner). */
    private void interruptRunner() {
        interrupt = INTERRUPTING;
        Thread thread = runner;
        if (thread == null) {
            interrupt = NO_INTERRUPT;
            return;
        }
        try {
            thread.interrupt();
        } finally {
            interrupt = INTERRUPTED;
        }
    }

    private void signalDone() {
        callable = null;
        done.open();
        if (onDone != null) {
            onDone.accept(this);
        }
    }

    @Override
    public boolean isCancelled() {
        return state == CANCELLED;
    }

    @Override
    public boolean isDone() {
        return state > RUNNING;
    }

    /** get() waits for the outcome: suspending the fiber on one, blocking (interruptibly) otherwise. */
    @Override
    public V get() throws InterruptedException, ExecutionException {
        done.await();
        return report();
    }

    @Override
    public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        Objects.requireNonNull(unit, "unit must not be null");
        if (!done.await(unit.toNanos(timeout))) {
            throw new TimeoutException("task did not complete within " + timeout + " " + unit);
        }
        return report();
    }

    private V report() throws ExecutionException {
        int s = state;
        if (s == SUCCESS) {
            return result;
        }
        if (s == CANCELLED) {
            throw new CancellationException("task was cancelled");
        }
        throw new ExecutionException(failure);
    }

    /** failureOrNull() is the body's exception if it failed (final state seen), else null. */
    Throwable failureOrNull() {
        return state == FAILED ? failure : null;
    }

    /** succeeded() is whether the body returned normally (final state seen). */
    boolean succeeded() {
        return state == SUCCESS;
    }

    /** resultOrNull() is the value of a succeeded future. */
    V resultOrNull() {
        return state == SUCCESS ? result : null;
    }

    @Override
    public String toString() {
        String status = switch (state) {
            case SUCCESS -> "[Completed normally]";
            case FAILED -> "[Completed exceptionally: " + failure + "]";
            case CANCELLED -> "[Cancelled]";
            default -> "[Not completed, task = " + callable + "]";
        };
        return super.toString() + status;
    }
}
