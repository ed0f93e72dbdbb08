package org.marl4j.futures;

import org.marl4j.Fiber;

/**
 * NonBlockingThreads recognises the threads Reactor marks as never to be blocked (its
 * {@code parallel()} and {@code single()} schedulers' threads implement the marker interface
 * {@code reactor.core.scheduler.NonBlocking}), without a dependency on Reactor: by the marker's name,
 * looked up once per thread class.
 *
 * <p>Why: a {@code Futures.await} off a fiber blocks its thread, and on such a thread that stalls
 * every pipeline sharing it. Reactor's own {@code block()} refuses there, and so do marl4j's
 * {@code Publishers.await*}; the futures' awaits answer the same way where they would wait
 * ({@link Outcome} and {@link AllOutcome}, the waits under {@code Futures}).
 */
final class NonBlockingThreads {
    private static final String MARKER = "reactor.core.scheduler.NonBlocking";

    private static final ClassValue<Boolean> MARKED = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            return hasMarker(type);
        }
    };

    private NonBlockingThreads() {}

    /**
     * checkMayBlock(what) is called just before {@code what} (the caller's name, as the user wrote it)
     * waits: on a fiber the wait suspends only the fiber, so any thread is fine; off a fiber, on a
     * thread Reactor marks non-blocking, it refuses.
     *
     * @throws IllegalStateException on a Reactor non-blocking thread that is not running a fiber
     */
    static void checkMayBlock(String what) {
        Thread thread = Thread.currentThread();
        if (MARKED.get(thread.getClass()) && Fiber.current() == null) {
            throw new IllegalStateException(what + " would block thread " + thread.getName()
                    + ", which Reactor marks non-blocking, as Mono.block() refuses to; await on a marl4j fiber "
                    + "instead (publishOn or subscribeOn a MarlScheduler, or Futures.supplyAsync), "
                    + "where the wait suspends only the fiber");
        }
    }

    /** hasMarker(type) is whether type, a superclass or any interface they extend is the marker. */
    private static boolean hasMarker(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(MARKER)) {
                return true;
            }
            for (Class<?> i : c.getInterfaces()) {
                if (hasMarker(i)) {
                    return true;
                }
            }
        }
        return false;
    }
}
