package org.marl4j.futures;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.BiConsumer;
import org.marl4j.Event;

/**
 * The first completion of one or more stages, and the wait for it: the engine of
 * {@link Futures#await} and {@link Futures#awaitAny}.
 *
 * <p>Registered on each stage with {@code whenComplete}; the first callback claims the outcome
 * (CAS on {@code claimed}), stores it, publishes {@code done} and signals a MANUAL {@link Event}.
 * Waiting is the Event's: on a fiber (including a bound thread's main fiber) it suspends only the
 * fiber, which the signal re-queues on its own worker from whatever thread completes the stage; on
 * a plain thread it blocks. A stage that is already complete runs the callback inside
 * {@code whenComplete}, so {@code done} is set before anyone waits and nothing suspends.
 *
 * <p>A timed wait, and each stage of an {@code awaitAny}, registers an Outcome not on the stage
 * itself but in the stage's {@link StageWaiters} (a {@code CompletionStage} cannot unregister a
 * callback); a wait that times out or loses removes it there, so nothing of it stays on the stage.
 */
final class Outcome<T> implements BiConsumer<T, Throwable> {
    private static final VarHandle CLAIMED;

    static {
        try {
            CLAIMED = MethodHandles.lookup().findVarHandle(Outcome.class, "claimed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Event event = new Event(Event.Mode.MANUAL);
    @SuppressWarnings("unused") // accessed through CLAIMED
    private volatile boolean claimed;
    /** Written once by the claiming callback before {@code done}; read after {@code done}. */
    private T value;
    private Throwable failure;
    private volatile boolean done;

    @Override
    public void accept(T v, Throwable t) {
        if (!CLAIMED.compareAndSet(this, false, true)) {
            return; // another stage of an awaitAny won
        }
        value = v;
        failure = t;
        done = true; // publishes value and failure
        event.signal();
    }

    boolean isDone() {
        return done;
    }

    /**
     * await(what) waits until an outcome exists; uninterruptible, like {@code CompletableFuture.join()}.
     * {@code what} names the caller's method for {@link NonBlockingThreads#checkMayBlock}, which
     * refuses a wait on a thread Reactor marks non-blocking.
     */
    void await(String what) {
        if (!done) {
            NonBlockingThreads.checkMayBlock(what);
            event.await();
        }
    }

    /** await(what, nanos) waits up to nanos; returns whether an outcome exists. */
    boolean await(String what, long nanos) {
        if (done) {
            return true;
        }
        if (nanos <= 0) {
            return false;
        }
        NonBlockingThreads.checkMayBlock(what);
        return event.await(java.time.Duration.ofNanos(nanos));
    }

    /** get() returns the value or throws the failure as {@link #rethrow} does. Call after await(). */
    T get() {
        if (failure != null) {
            throw rethrow(failure);
        }
        return value;
    }

    /**
     * rethrow(failure) throws what Futures' callers get for a failed stage: the failure unwrapped
     * from CompletionException/ExecutionException; runtime exceptions (CancellationException among
     * them) and errors as they are, checked ones wrapped in AwaitException. Declared to return an
     * exception so callers can write {@code throw rethrow(t)}.
     */
    static RuntimeException rethrow(Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        throw new AwaitException(cause);
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
