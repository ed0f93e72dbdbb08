package org.marl4j.futures;

/**
 * AwaitException is the one unchecked exception that carries a <em>checked</em> exception out of
 * {@link Futures#await}: when an awaited stage failed with, say, an {@link java.io.IOException},
 * the caller gets an AwaitException whose {@link #getCause() cause} is that IOException.
 *
 * <pre>{@code
 * try {
 *     String body = Futures.await(fetch(url));
 * } catch (AwaitException e) {
 *     if (e.getCause() instanceof IOException io) { retry(io); } else { throw e; }
 * }
 * }</pre>
 *
 * <p>Runtime exceptions and errors are never wrapped: they reach the caller as the very objects the
 * stage failed with (after unwrapping {@link java.util.concurrent.CompletionException} and
 * {@link java.util.concurrent.ExecutionException}). The AwaitException's own stack trace is the
 * await site; the cause keeps the stack trace of where the failure happened.
 */
public final class AwaitException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * AwaitException(cause) wraps the checked exception an awaited stage failed with.
     *
     * @param cause the checked exception the awaited stage completed with
     */
    public AwaitException(Throwable cause) {
        super("awaited stage failed with " + cause, cause);
    }
}
