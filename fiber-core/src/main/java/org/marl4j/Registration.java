package org.marl4j;

import java.util.concurrent.locks.Lock;

/**
 * Registration is the handle of a one-shot callback registered with {@link Event#onSignal},
 * {@link WaitGroup#onZero} or {@link Ticket#onCall}: it lets the callback be withdrawn until it
 * runs (for {@code onCall}, until the task that runs it has started).
 *
 * <pre>{@code
 * Registration r = event.onSignal(() -> continuation.resume());
 * ...
 * if (r.cancel()) {
 *     // the callback will never run, and (AUTO event) no signal was consumed for it
 * }
 * }</pre>
 *
 * <p>A cancelled registration is unlinked from its primitive at once, so cancelling any number of
 * them leaves nothing behind on a long-lived event or wait group.
 */
public final class Registration {
    /** The lock of the primitive this registration belongs to; guards the links below. */
    private final Lock lock;
    /** The queue this registration waits in; null when it was never queued (it ran at once). */
    private final CallbackQueue queue;
    final Runnable callback;

    // CallbackQueue links, guarded by lock.
    Registration prev;
    Registration next;
    boolean queued;

    Registration(Lock lock, CallbackQueue queue, Runnable callback) {
        this.lock = lock;
        this.queue = queue;
        this.callback = callback;
    }

    /**
     * cancel() withdraws the callback if it has not been handed its signal yet. Returns true if this
     * call withdrew it: the callback will never run and consumed nothing. Returns false if it has
     * already run, is running or is about to run (the primitive released it before this call), or
     * was already cancelled.
     *
     * @return whether this call withdrew the callback
     */
    public boolean cancel() {
        if (queue == null) {
            return false;
        }
        lock.lock();
        try {
            return queue.remove(this);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "Registration[" + callback + "]";
    }
}
