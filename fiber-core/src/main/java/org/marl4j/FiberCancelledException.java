package org.marl4j;

import java.util.concurrent.CancellationException;

/**
 * FiberCancelledException is thrown from a fiber's wait on a marl4j primitive when
 * {@link Scheduler#close(java.time.Duration)} gave up waiting for the fiber to be woken: the
 * fiber is resumed with this exception so that it unwinds, its {@code finally} blocks run, and the
 * scheduler's close completes. Every later wait of a fiber of that scheduler throws it at once.
 *
 * <pre>{@code
 * try {
 *     shutdownSignal.await();
 * } catch (FiberCancelledException e) {
 *     // the scheduler is closing and nobody signalled: clean up and return
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
