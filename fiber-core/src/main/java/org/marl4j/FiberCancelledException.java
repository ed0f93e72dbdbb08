package org.marl4j;

import java.util.concurrent.CancellationException;

/**
 * FiberCancelledException is thrown from a fiber's wait on a marl4j primitive when the wait was
 * cancelled: {@link Scheduler#close(java.time.Duration)} gave up waiting for the fiber to be woken,
 * or a {@link FiberCancellation} open on the fiber was cancelled (as {@code Future.cancel(true)}
 * does for a task of marl4j's {@code MarlExecutorService}). The fiber is resumed with this
 * exception so that it unwinds and its {@code finally} blocks run. Every later wait of that fiber
 * throws it at once: after a close, every wait of a fiber of that scheduler; after a cancellation,
 * until the scope is closed.
 *
 * <pre>{@code
 * try {
 *     shutdownSignal.await();
 * } catch (FiberCancelledException e) {
 *     // cancelled, or the scheduler is closing and nobody signalled: clean up and return
 * }
 * }</pre>
 *
 * <p>It is unchecked, a {@link CancellationException} as {@code Future.get()} throws for a
 * cancelled task, so code that already handles cancellation handles it too. A task that lets it
 * escape ends quietly: it is not reported to the uncaught-exception handler.
 */
public final class FiberCancelledException extends CancellationException {
    private static final long serialVersionUID = 1L;

    /**
     * FiberCancelledException(message) creates the exception with a message saying why.
     *
     * @param message why the wait was cancelled
     */
    public FiberCancelledException(String message) {
        super(message);
    }
}
