package org.marl4j;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * WakeInbox is a worker's lock-free, multi-producer inbox of fibers woken by other threads.
 *
 * <p>Why: a worker holds its lock across every fiber switch (see {@link Worker}), so a thread that
 * wakes one of its fibers — a completer of 100,000 futures, the other worker in a ping-pong — used
 * to find the lock taken, park on it, and cost the worker an unpark when it released it: a lock
 * convoy on every cross-thread wake (FanOutBenchmark profiles: {@code AbstractQueuedSynchronizer
 * .signalNext} from {@code WorkerLock.unlock} among the top frames). Now such a waker only pushes
 * the fiber here with one CAS, and the worker drains the whole inbox in one batch, under its lock,
 * wherever it looks for work, applying each wake exactly as {@link Worker#wake} would have.
 *
 * <p>Why deferring a wake loses none: a wake only has to be applied before the woken fiber could
 * sleep through it. The fiber decides to suspend under its worker's lock, on its worker's thread,
 * and that thread drains the inbox before it next looks for work or sleeps; so a deferred wake
 * either is applied before the fiber's check (which then sees the epoch bumped or its waiter
 * notified) or finds the fiber suspended, exactly the two cases of an immediate wake. A sleeping
 * worker is woken by the pusher ({@link Work#signalIfAsleep}).
 *
 * <p>Structure: a Treiber stack linked through {@link Fiber#inboxNext}; {@link Fiber#inInbox} keeps
 * a fiber in it at most once (a second wake while one is pending is already covered by it).
 * {@link #takeAll()} detaches the stack and reverses it, so wakes apply in arrival order.
 */
final class WakeInbox {
    private static final VarHandle HEAD;
    private static final VarHandle IN_INBOX;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HEAD = lookup.findVarHandle(WakeInbox.class, "head", Fiber.class);
            IN_INBOX = lookup.findVarHandle(Fiber.class, "inInbox", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // accessed through HEAD
    private volatile Fiber head;

    /** push(fiber) adds a woken fiber; returns false if it was already pending. Any thread, no lock. */
    boolean push(Fiber fiber) {
        if (!IN_INBOX.compareAndSet(fiber, false, true)) {
            return false;
        }
        Fiber h;
        do {
            h = (Fiber) HEAD.getVolatile(this);
            fiber.inboxNext = h;
        } while (!HEAD.compareAndSet(this, h, fiber));
        return true;
    }

    /** isEmpty() is whether no wake is pending; any thread. */
    boolean isEmpty() {
        return HEAD.getVolatile(this) == null;
    }

    /**
     * takeAll() detaches every pending fiber and returns the oldest, the rest chained through
     * {@code inboxNext} in arrival order. Each fiber leaves the inbox ({@code inInbox} cleared) as
     * the caller unlinks it with {@link #next}, so a wake that arrives meanwhile queues it again.
     */
    Fiber takeAll() {
        Fiber h = (Fiber) HEAD.getAndSet(this, null);
        Fiber reversed = null;
        while (h != null) {
            Fiber next = h.inboxNext;
            h.inboxNext = reversed;
            reversed = h;
            h = next;
        }
        return reversed;
    }

    /** next(fiber) unlinks fiber from a chain returned by takeAll() and returns the next one. */
    static Fiber next(Fiber fiber) {
        Fiber next = fiber.inboxNext;
        fiber.inboxNext = null;
        IN_INBOX.setVolatile(fiber, false);
        return next;
    }
}
