package org.marl4j;

import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;

/**
 * A FIFO of {@link Registration}s, linked through the registrations themselves so a cancelled one
 * unlinks itself in O(1). Not thread-safe: each primitive guards its queue with its own lock.
 *
 * <p>Callbacks run on the thread that releases them, after the primitive's lock is released (a
 * callback may signal the same primitive again); {@link #runChain} reports a callback that throws
 * to the uncaught-exception handler, so one failing callback neither stops the others nor fails
 * the signal that released it.
 */
final class CallbackQueue {
    private Registration head;
    private Registration tail;
    private int size;
    /**
     * Run, under the lock that guards this queue, each time the queue becomes non-empty or empty
     * again: how an {@link Event} made by {@code any} keeps itself reachable from its sources while
     * callbacks wait on it. Null for none.
     */
    private final Runnable emptinessChanged;

    CallbackQueue() {
        this(null);
    }

    CallbackQueue(Runnable emptinessChanged) {
        this.emptinessChanged = emptinessChanged;
    }

    private void emptinessChanged() {
        if (emptinessChanged != null) {
            emptinessChanged.run();
        }
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return head == null;
    }

    void add(Registration registration) {
        registration.queued = true;
        registration.prev = tail;
        registration.next = null;
        if (tail == null) {
            head = registration;
        } else {
            tail.next = registration;
        }
        tail = registration;
        if (size++ == 0) {
            emptinessChanged();
        }
    }

    /**
     * register(lock, released, callback) is the body of the primitives' {@code onSignal}/{@code onZero}:
     * under {@code lock} (which guards this queue) it asks {@code released} whether the callback
     * would be released now (an AUTO event's check also consumes the signal) and, if not, queues it;
     * if so, it runs the callback at once, after the lock is released, and returns a spent handle.
     */
    Registration register(Lock lock, BooleanSupplier released, Runnable callback) {
        lock.lock();
        try {
            if (!released.getAsBoolean()) {
                Registration registration = new Registration(lock, this, callback);
                add(registration);
                return registration;
            }
        } finally {
            lock.unlock();
        }
        run(callback);
        return new Registration(lock, null, callback);
    }

    /** remove(registration) unlinks it if it is still queued; returns whether it was. */
    boolean remove(Registration registration) {
        if (!registration.queued) {
            return false;
        }
        registration.queued = false;
        if (registration.prev == null) {
            head = registration.next;
        } else {
            registration.prev.next = registration.next;
        }
        if (registration.next == null) {
            tail = registration.prev;
        } else {
            registration.next.prev = registration.prev;
        }
        registration.prev = null;
        registration.next = null;
        if (--size == 0) {
            emptinessChanged();
        }
        return true;
    }

    /** poll() unlinks and returns the oldest registration, or null. */
    Registration poll() {
        Registration first = head;
        if (first != null) {
            remove(first);
        }
        return first;
    }

    /** pollAll() unlinks every registration and returns the first, the rest chained through {@code next}. */
    Registration pollAll() {
        Registration first = head;
        for (Registration r = first; r != null; r = r.next) {
            r.queued = false;
        }
        head = null;
        tail = null;
        size = 0;
        if (first != null) {
            emptinessChanged();
        }
        return first;
    }

    /** runChain(first) runs every callback of a chain from poll() or pollAll(); call without the lock. */
    static void runChain(Registration first) {
        Registration r = first;
        while (r != null) {
            Registration next = r.next;
            r.prev = null;
            r.next = null;
            run(r.callback);
            r = next;
        }
    }

    /** run(callback) runs one released callback, reporting what it throws instead of throwing it. */
    static void run(Runnable callback) {
        try {
            callback.run();
        } catch (Throwable t) {
            Scheduler scheduler = Scheduler.get();
            if (scheduler != null) {
                scheduler.reportUncaught(t);
            } else {
                Thread thread = Thread.currentThread();
                try {
                    thread.getUncaughtExceptionHandler().uncaughtException(thread, t);
                } catch (Throwable ignored) {
                    // As Scheduler.reportUncaught: a failing handler must not fail the signaller.
                }
            }
        }
    }
}
