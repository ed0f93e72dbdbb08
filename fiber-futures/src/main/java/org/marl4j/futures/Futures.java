package org.marl4j.futures;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.marl4j.Fiber;
import org.marl4j.FiberCallback;
import org.marl4j.Scheduler;
import org.marl4j.Task;

/**
 * Futures bridges {@link CompletionStage}s and marl4j fibers: await a stage without blocking the
 * worker thread, and start a fiber task that completes a {@link CompletableFuture}.
 *
 * <pre>{@code
 * scheduler.enqueue(new Task(() -> {
 *     CompletableFuture<String> page = httpClient.sendAsync(request, ofString()).thenApply(HttpResponse::body);
 *     String body = Futures.await(page);          // suspends this fiber only
 *     render(body);
 * }));
 * CompletableFuture<Integer> answer = Futures.supplyAsync(scheduler, () -> compute());
 * }</pre>
 *
 * <p>Waiting: called on a fiber ({@link Fiber#current()} is non-null: inside a task, or on a thread
 * bound with {@link Scheduler#bind()}), the await methods suspend only that fiber; its worker thread
 * goes on running other tasks and fibers, and the fiber is re-queued on its own worker when the
 * stage completes, from whatever thread completes it. Called on any other thread, they block it,
 * except a thread Reactor marks non-blocking (its {@code parallel()} and {@code single()}
 * schedulers' threads), where, like Reactor's {@code block()}, they throw
 * {@link IllegalStateException} instead of waiting. A stage that is already complete is answered
 * at once, without suspending. Waits are not
 * interruptible (as {@link CompletableFuture#join()}); on a plain or bound thread the interrupt
 * status stays pending for the code after the wait (on a worker thread, see {@link org.marl4j.Fiber}).
 *
 * <p>Failures: the caller gets the exception the stage failed with, unwrapped from
 * {@link CompletionException} and {@link ExecutionException}. Runtime exceptions (including
 * {@link CancellationException} when the stage was cancelled) and errors are rethrown as the very
 * same objects, so their stack traces are those of where they were created; a checked exception is
 * wrapped in {@link AwaitException}, the one unchecked type this class adds.
 */
public final class Futures {
    private static final String STAGE_NULL =
            "stage must not be null: pass a CompletionStage (CompletableFuture.completedFuture(null) for a null value)";

    private Futures() {}

    /**
     * await(stage) returns the stage's value once it completes, suspending the current fiber (or
     * blocking a plain thread) until then.
     *
     * <p>A wait whose fiber's waits are cancelled (a {@link org.marl4j.FiberCancellation}, a
     * bounded close of the scheduler, {@code cancel(true)} or {@code shutdownNow()} of a
     * {@link MarlExecutorService} task) throws {@link org.marl4j.FiberCancelledException} and leaves
     * at most a constant trace on the stage, however many such waits there are: after the first,
     * later waits on that stage share one callback and take their part of it back if they too end
     * early. So a long-lived stage (a shutdown signal) may be awaited by waits that are cancelled
     * again and again.
     *
     * @param <T> the stage's result type
     * @param stage the stage to wait for
     * @return the stage's result
     * @throws CancellationException if the stage was cancelled
     * @throws AwaitException if the stage failed with a checked exception (the cause)
     * @throws RuntimeException or {@link Error}: the stage's own failure, unwrapped
     * @throws IllegalStateException if it would wait off a fiber on a thread Reactor marks non-blocking
     * @throws NullPointerException if stage is null
     */
    public static <T> T await(CompletionStage<T> stage) {
        Objects.requireNonNull(stage, STAGE_NULL);
        if (isPlainFuture(stage)) {
            CompletableFuture<T> future = (CompletableFuture<T>) stage;
            if (future.isDone()) {
                return resultOf(future);
            }
            // FiberStageWait.awaitCompletion(future), written out here: a frame less between the
            // user's call and the suspend is a frame less in every suspended fiber's stack. On a
            // fiber its continuation is the future's callback (FiberCallback.awaitCompletion), and
            // the wait allocates nothing but the future's completion node, unless a wait on this
            // future ended early before: then it waits through the future's shared callback.
            StageWaiters<T> shared = StageWaiters.existing(future);
            boolean onFiber;
            if (shared == null) {
                try {
                    onFiber = FiberCallback.awaitCompletion(future);
                } catch (RuntimeException | Error endedEarly) {
                    FiberStageWait.endedEarly(future, endedEarly);
                    throw endedEarly;
                }
            } else {
                onFiber = FiberStageWait.awaitShared(shared);
            }
            if (onFiber) {
                return resultOf(future);
            }
        }
        Fiber fiber = Fiber.current();
        if (fiber != null) {
            return FiberStageWait.await(stage, fiber); // from here, not a helper: a frame less in its stack
        }
        return awaitOnThread(stage);
    }

    /** awaitOnThread(stage) is {@link #await(CompletionStage)} off a fiber: it blocks the thread. */
    private static <T> T awaitOnThread(CompletionStage<T> stage) {
        Outcome<T> outcome = new Outcome<>();
        stage.whenComplete(outcome);
        outcome.await("Futures.await");
        return outcome.get();
    }

    /**
     * resultOf(future) is the outcome of a done future as await() reports it. A failure is fetched
     * with whenComplete (it runs at once on a done future), not join() or get(): those wrap it, and
     * since JDK 23 even replace a CancellationException with a new one, where await rethrows the
     * future's own exception objects.
     */
    private static <T> T resultOf(CompletableFuture<T> future) {
        if (future.state() == Future.State.SUCCESS) {
            return future.resultNow();
        }
        Throwable[] failure = new Throwable[1];
        future.whenComplete((value, t) -> failure[0] = t);
        throw Outcome.rethrow(failure[0]);
    }

    /**
     * await(stage, timeout) is {@link #await(CompletionStage)} that gives up after {@code timeout}
     * (zero or negative: only checks whether the stage is already complete).
     *
     * <p>Why a checked {@link TimeoutException}: it is what {@link java.util.concurrent.Future#get(long,
     * java.util.concurrent.TimeUnit)} throws, so a {@code java.util.concurrent} user handles it the way
     * they already do, and the compiler reminds them that a timed wait can time out. It also keeps the
     * two cases apart: this method's own timeout is a thrown {@code TimeoutException}, while a stage
     * that itself failed with one (say, after {@link CompletableFuture#orTimeout}) surfaces as an
     * {@link AwaitException} whose cause is that {@code TimeoutException}.
     *
     * <p>A timed-out await returns (throws) and leaves nothing waiting: if the stage completes later,
     * that completion does nothing to the fiber or thread that awaited it. Nor does it leave anything
     * on the stage: however many timed awaits on one stage time out, it carries a single callback
     * from marl4j, so a long-lived stage (a shutdown signal, a cache entry) may be awaited with a
     * timeout in a loop.
     *
     * @param <T> the stage's result type
     * @param stage the stage to wait for
     * @param timeout how long to wait at most
     * @return the stage's result
     * @throws TimeoutException if the stage did not complete within {@code timeout}
     * @throws IllegalStateException if it would wait off a fiber on a thread Reactor marks non-blocking
     * @throws NullPointerException if stage or timeout is null
     */
    public static <T> T await(CompletionStage<T> stage, Duration timeout) throws TimeoutException {
        Objects.requireNonNull(stage, STAGE_NULL);
        long nanos = toNanos(timeout);
        Outcome<T> outcome = new Outcome<>();
        StageWaiters<T> waiters = null;
        if (isDone(stage)) {
            stage.whenComplete(outcome); // runs at once: nothing stays on the stage
        } else {
            // Through the stage's shared waiter set, so a wait that times out leaves nothing behind.
            waiters = StageWaiters.of(stage);
            waiters.add(outcome);
        }
        boolean completed = false;
        try {
            completed = outcome.await("Futures.await", nanos);
        } finally {
            if (!completed && waiters != null) {
                waiters.remove(outcome);
            }
        }
        if (!completed) {
            throw new TimeoutException("stage did not complete within " + timeout);
        }
        return outcome.get();
    }

    /**
     * awaitAll(stages) returns the values of every stage, in argument order, once all have
     * completed. If any stage fails, it throws that failure (translated as by {@link
     * #await(CompletionStage)}) as soon as the first failure happens, without waiting for the others
     * and without cancelling them. No stages: an empty list at once.
     *
     * @param <T> the stages' common result type
     * @param stages the stages to wait for
     * @return their results, in the order of {@code stages}
     * @throws IllegalStateException if it would wait off a fiber on a thread Reactor marks non-blocking
     * @throws NullPointerException if the array or one of its stages is null
     */
    @SafeVarargs
    @SuppressWarnings("varargs") // the array is only read (wrapped in a list), never written or kept
    public static <T> List<T> awaitAll(CompletionStage<? extends T>... stages) {
        return awaitAll(Arrays.asList(checkElements(stages)));
    }

    /**
     * awaitAll(stages) is {@link #awaitAll(CompletionStage[])} over a collection.
     *
     * @param <T> the stages' common result type
     * @param stages the stages to wait for
     * @return their results, in the order of {@code stages}
     */
    public static <T> List<T> awaitAll(Collection<? extends CompletionStage<? extends T>> stages) {
        List<CompletionStage<? extends T>> list = copy(stages);
        AllOutcome<T> all = new AllOutcome<>(list.size());
        // Through each stage's shared waiter set, left again on return: after the first failure,
        // the stages still pending keep nothing of this call.
        List<StageWaiters<?>> joined = new ArrayList<>(list.size());
        List<AllOutcome.Slot> slots = new ArrayList<>(list.size());
        try {
            for (int i = 0; i < list.size() && !all.isDone(); i++) {
                AllOutcome.Slot slot = all.slot(i);
                slots.add(slot);
                join(list.get(i), slot, joined);
            }
            all.await("Futures.awaitAll");
        } finally {
            for (int i = 0; i < joined.size(); i++) {
                joined.get(i).remove(slots.get(i));
            }
        }
        return all.get();
    }

    /**
     * awaitAny(stages) returns the outcome of whichever stage completes first, as
     * {@link CompletableFuture#anyOf} does: its value, or its failure thrown as by
     * {@link #await(CompletionStage)}. The other stages are left alone, and keep nothing of this
     * call: a stage that loses such races again and again does not accumulate callbacks.
     *
     * @param <T> the stages' common result type
     * @param stages the stages to wait for; at least one
     * @return the result of the first stage to complete normally
     * @throws IllegalArgumentException if there are no stages (there would be nothing to wait for)
     * @throws IllegalStateException if it would wait off a fiber on a thread Reactor marks non-blocking
     * @throws NullPointerException if the array or one of its stages is null
     */
    @SafeVarargs
    @SuppressWarnings("varargs") // the array is only read (wrapped in a list), never written or kept
    public static <T> T awaitAny(CompletionStage<? extends T>... stages) {
        return awaitAny(Arrays.asList(checkElements(stages)));
    }

    /**
     * awaitAny(stages) is {@link #awaitAny(CompletionStage[])} over a collection.
     *
     * @param <T> the stages' common result type
     * @param stages the stages to wait for; at least one
     * @return the result of the first stage to complete normally
     */
    public static <T> T awaitAny(Collection<? extends CompletionStage<? extends T>> stages) {
        List<CompletionStage<? extends T>> list = copy(stages);
        if (list.isEmpty()) {
            throw new IllegalArgumentException("awaitAny needs at least one stage: with none it would wait forever");
        }
        Outcome<T> outcome = new Outcome<>();
        // Through each stage's shared waiter set, left again on return: a losing stage keeps nothing.
        List<StageWaiters<?>> joined = new ArrayList<>(list.size());
        try {
            for (CompletionStage<? extends T> stage : list) {
                if (outcome.isDone()) {
                    break; // an already-complete stage won: no need to register on the rest
                }
                join(stage, outcome, joined);
            }
            outcome.await("Futures.awaitAny");
        } finally {
            for (StageWaiters<?> waiters : joined) {
                waiters.remove(outcome);
            }
        }
        return outcome.get();
    }

    /**
     * Makes waiter wait for stage: directly if it is already done, else through its waiter set,
     * which is added to joined (only then), for the caller to remove waiter from on return.
     */
    private static <S> void join(CompletionStage<S> stage, BiConsumer<? super S, ? super Throwable> waiter,
            List<StageWaiters<?>> joined) {
        if (isDone(stage)) {
            stage.whenComplete(waiter); // runs at once: nothing stays on the stage
            return;
        }
        StageWaiters<S> waiters = StageWaiters.of(stage);
        joined.add(waiters);
        waiters.add(waiter);
    }

    /**
     * isDone(stage) is true for a plain CompletableFuture already complete: its whenComplete runs
     * the callback at once and keeps nothing. Any other stage answers false and is waited for
     * through its {@link StageWaiters}, which works for every CompletionStage, done or not.
     */
    private static boolean isDone(CompletionStage<?> stage) {
        return isPlainFuture(stage) && ((CompletableFuture<?>) stage).isDone();
    }

    /**
     * isPlainFuture(stage) is whether stage is a CompletableFuture whose Future methods behave as
     * the JDK's: exactly that class, or this package's {@link FiberFriendlyFuture} (what supplyAsync
     * returns). Why the exact classes and not {@code instanceof}: a subclass may refuse the Future
     * methods, as the JDK's own {@link CompletableFuture#minimalCompletionStage()} does (its isDone()
     * throws UnsupportedOperationException); only CompletionStage's methods are safe on a user's stage.
     */
    private static boolean isPlainFuture(CompletionStage<?> stage) {
        Class<?> type = stage.getClass();
        return type == CompletableFuture.class || type == FiberFriendlyFuture.class;
    }

    /** Rejects a null array or element, naming the element's index. */
    private static <S> S[] checkElements(S[] stages) {
        Objects.requireNonNull(stages, "stages must not be null");
        for (int i = 0; i < stages.length; i++) {
            if (stages[i] == null) {
                throw new NullPointerException("stages[" + i + "] is null: pass a CompletionStage "
                        + "(CompletableFuture.completedFuture(null) for a null value)");
            }
        }
        return stages;
    }

    /**
     * supplyAsync(scheduler, supplier) enqueues a task on {@code scheduler} that runs
     * {@code supplier} on a fiber and completes the returned future with its value or exception
     * (the exception itself, not wrapped: {@code get()} wraps it once in ExecutionException). If the
     * future is completed or cancelled before the task starts, the supplier never runs; if it is
     * cancelled while the supplier runs, the supplier finishes and its result is dropped.
     *
     * <p>The future's {@code join()} and {@code get()} (and those of the stages made from it, such
     * as {@code thenApply}), called on a fiber, wait as {@link #await(CompletionStage)} does,
     * suspending only the fiber, then answer as the JDK's do: a task may join the task it started
     * even on the scheduler's only worker, and a bound thread of a scheduler without worker threads
     * runs the task meanwhile. Off a fiber they block as usual.
     *
     * @param <T> the result type
     * @param scheduler the scheduler that runs {@code supplier} on a fiber
     * @param supplier the code to run
     * @return a future completed with what {@code supplier} returns or throws
     * @throws RejectedExecutionException if the scheduler is closed
     * @throws IllegalStateException if the scheduler has no worker threads and the calling thread is
     *     not bound to it (the task would have nowhere to run)
     * @throws NullPointerException if an argument is null
     */
    public static <T> CompletableFuture<T> supplyAsync(Scheduler scheduler, Supplier<? extends T> supplier) {
        Objects.requireNonNull(scheduler, "scheduler must not be null");
        Objects.requireNonNull(supplier, "supplier must not be null");
        CompletableFuture<T> future = new FiberFriendlyFuture<>();
        scheduler.enqueue(new Task(new AsyncBody<>(future, supplier)));
        return future;
    }

    /**
     * runAsync(scheduler, body) is {@link #supplyAsync} for a {@link Runnable}: the future completes
     * with null when {@code body} returns.
     *
     * @param scheduler the scheduler that runs {@code body} on a fiber
     * @param body the code to run
     * @return a future completed when {@code body} returns or throws
     */
    public static CompletableFuture<Void> runAsync(Scheduler scheduler, Runnable body) {
        Objects.requireNonNull(body, "body must not be null");
        return supplyAsync(scheduler, () -> {
            body.run();
            return null;
        });
    }

    private static <S> List<S> copy(Collection<? extends S> stages) {
        Objects.requireNonNull(stages, "stages must not be null");
        List<S> list = new ArrayList<>(stages);
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i) == null) {
                throw new NullPointerException("stages contains null at index " + i + ": pass a CompletionStage "
                        + "(CompletableFuture.completedFuture(null) for a null value)");
            }
        }
        return list;
    }

    private static long toNanos(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout must not be null: use await(stage) to wait without one");
        try {
            return timeout.toNanos();
        } catch (ArithmeticException overflow) {
            return timeout.isNegative() ? 0 : Long.MAX_VALUE;
        }
    }

    /** The task body of supplyAsync: skips the supplier if the future is already done. */
    private record AsyncBody<T>(CompletableFuture<T> future, Supplier<? extends T> supplier) implements Runnable {
        @Override
        public void run() {
            if (future.isDone()) {
                return; // cancelled (or completed by someone else) before it started
            }
            try {
                future.complete(supplier.get());
            } catch (Throwable t) {
                future.completeExceptionally(t);
            }
        }
    }
}
