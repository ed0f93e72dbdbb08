package org.marl4j.futures;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One call of {@link MarlExecutorService#invokeAny}: submits every task, waits on a {@link Latch}
 * (so a fiber caller suspends, unlike {@code AbstractExecutorService.invokeAny}, whose
 * {@code ExecutorCompletionService} parks the thread) until the first success or the last failure,
 * then cancels the rest.
 */
final class InvokeAny<T> {
    private final Latch decided = new Latch();
    private final AtomicReference<MarlFuture<T>> winner = new AtomicReference<>();
    private final AtomicInteger failuresLeft;
    /** The last failure seen; reported if every task fails. */
    private final AtomicReference<Throwable> lastFailure = new AtomicReference<>();
    private final List<MarlFuture<T>> futures;

    private InvokeAny(int count) {
        failuresLeft = new AtomicInteger(count);
        futures = new ArrayList<>(count);
    }

    static <T> T invoke(MarlExecutorService executor, Collection<? extends Callable<T>> tasks, boolean timed, long nanos)
            throws InterruptedException, ExecutionException, TimeoutException {
        Objects.requireNonNull(tasks, "tasks must not be null");
        List<Callable<T>> list = new ArrayList<>(tasks);
        if (list.isEmpty()) {
            throw new IllegalArgumentException("invokeAny needs at least one task");
        }
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i) == null) {
                throw new NullPointerException("tasks contains null at index " + i);
            }
        }
        InvokeAny<T> call = new InvokeAny<>(list.size());
        try {
            for (Callable<T> task : list) {
                MarlFuture<T> future = new MarlFuture<>(task, call::onDone);
                call.futures.add(future);
                executor.execute(future);
            }
            if (timed) {
                if (!call.decided.await(nanos)) {
                    throw new TimeoutException("no task completed successfully within " + nanos + " ns");
                }
            } else {
                call.decided.await();
            }
            MarlFuture<T> won = call.winner.get();
            if (won != null) {
                return won.resultOrNull();
            }
            throw new ExecutionException("every task failed; the cause is the last failure", call.lastFailure.get());
        } finally {
            // Also reached when execute() rejects a task: the ones already submitted are cancelled.
            for (MarlFuture<T> future : call.futures) {
                future.cancel(true);
            }
        }
    }

    private void onDone(MarlFuture<T> future) {
        if (future.succeeded()) {
            if (winner.compareAndSet(null, future)) {
                decided.open();
            }
            return;
        }
        Throwable failure = future.failureOrNull();
        if (failure != null) {
            lastFailure.set(failure);
        } else {
            lastFailure.compareAndSet(null, new CancellationException("task was cancelled"));
        }
        if (failuresLeft.decrementAndGet() == 0) {
            decided.open();
        }
    }
}
