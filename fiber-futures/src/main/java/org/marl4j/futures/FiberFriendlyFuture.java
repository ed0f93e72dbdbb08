package org.marl4j.futures;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.marl4j.Fiber;

/**
 * FiberFriendlyFuture is the {@link CompletableFuture} that {@link Futures#supplyAsync} and
 * {@link Futures#runAsync} return: called on a fiber, its {@link #join()} and {@link #get()} wait as
 * {@link Futures#await} does, suspending only the fiber, and then answer exactly as the JDK's would
 * (the same exceptions, wrapped the same way). Stages made from it ({@code thenApply} and the like)
 * are of this class too.
 *
 * <p>Why: the future of a task on the same scheduler is the one most often joined from a fiber, and
 * a plain {@code join()} there holds the worker thread, which may be the only one that could run
 * the task: a bound thread of a scheduler without worker threads, or a scheduler whose workers are
 * all busy joining, then waits for good. Off a fiber nothing changes.
 */
final class FiberFriendlyFuture<T> extends CompletableFuture<T> {

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new FiberFriendlyFuture<>();
    }

    @Override
    public T join() {
        awaitOnFiber();
        return super.join();
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        awaitOnFiber();
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        Objects.requireNonNull(unit, "get(timeout, unit) needs a TimeUnit: pass one, such as TimeUnit.MILLISECONDS");
        if (!isDone() && Fiber.current() != null) {
            // The timed wait of Futures.await on this future itself: a wait that times out takes its
            // waiter back, where a derived stage (handle(...)) would stay on this future for good, one
            // per timed-out get. Its own timeout leaves as the TimeoutException get promises; a
            // failure of this future is read below, wrapped as the JDK's get wraps it; anything else
            // (the wait cancelled, say) came from the wait, not the outcome, and leaves as it is.
            // unit.toNanos saturates where Duration.of(timeout, unit) would overflow (say Long.MAX_VALUE days).
            try {
                Futures.await(this, Duration.ofNanos(unit.toNanos(timeout)));
            } catch (RuntimeException | Error failed) {
                if (!isDone()) {
                    throw failed;
                }
            }
        }
        return super.get(timeout, unit);
    }

    /**
     * awaitOnFiber() suspends the calling fiber until this future is done; off a fiber it returns at
     * once. The wait of Futures.await's plain-future path, without reading the outcome: the caller
     * reads it as the JDK's join() or get() report it.
     */
    private void awaitOnFiber() {
        if (!isDone()) {
            FiberStageWait.awaitCompletion(this); // off a fiber: false at once, and the caller blocks as the JDK's
        }
    }
}
