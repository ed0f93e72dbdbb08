package org.marl4j;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * WakeInbox holds the fibers other threads woke on one worker, until the owner takes them under
 * its lock: so a wake from another thread takes no worker lock, and does not contend with the
 * owner, which holds it across fiber switches. A lock-free stack of fibers linked through
 * {@link Fiber#inboxNext} (many pushers, one taker); a fiber is in it at most once, which its
 * {@link Fiber#inInbox} flag decides.
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

    /**
     * push(fiber) adds the fiber unless it is in already; returns whether it added it. Any thread.
     * A fiber already in needs no second entry: the owner clears the flag before it wakes the
     * fiber, so the wake it performs comes after every push that found the flag set.
     */
    boolean push(Fiber fiber) {
        if (!claim(fiber)) {
            return false;
        }
        pushClaimed(fiber, fiber);
        return true;
    }

    /**
     * claim(fiber) flags the fiber as in an inbox, for a caller that will push it with
     * {@link #pushClaimed}; false if it is in already (or claimed by another caller). Any thread.
     */
    static boolean claim(Fiber fiber) {
        return !fiber.inInbox && IN_INBOX.compareAndSet(fiber, false, true);
    }

    /**
     * pushClaimed(newest, oldest) adds, with one compare-and-set, a chain of claimed fibers linked
     * newest-first through inboxNext from newest to oldest: as if each had been pushed in turn,
     * oldest first. Any thread.
     */
    void pushClaimed(Fiber newest, Fiber oldest) {
        Fiber first;
        do {
            first = (Fiber) HEAD.getVolatile(this);
            oldest.inboxNext = first;
        } while (!HEAD.compareAndSet(this, first, newest));
    }

    /** isEmpty() is a volatile read: any thread. */
    boolean isEmpty() {
        return HEAD.getVolatile(this) == null;
    }

    /**
     * takeAll() empties the inbox and returns its fibers linked through inboxNext in the order
     * they were pushed, or null. The owner only; each fiber stays flagged until {@link #taken}.
     */
    Fiber takeAll() {
        Fiber fiber = (Fiber) HEAD.getAndSet(this, null);
        Fiber reversed = null;
        while (fiber != null) {
            Fiber next = fiber.inboxNext;
            fiber.inboxNext = reversed;
            reversed = fiber;
            fiber = next;
        }
        return reversed;
    }

    /** taken(fiber) unlinks a fiber returned by takeAll() and lets it be pushed again. Returns the next one. */
    static Fiber taken(Fiber fiber) {
        Fiber next = fiber.inboxNext;
        fiber.inboxNext = null;
        fiber.inInbox = false; // volatile: before the owner's wake of it, which covers later pushers that saw it set
        return next;
    }
}
