package org.marl4j;

import org.marl4j.WaitQueue.Waiter;
import org.marl4j.Work.WakeInbox;

/**
 * WakeBatch wakes the fibers of one notification that releases many waiters (a MANUAL
 * {@link Event}'s signal, a {@link WaitGroup} reaching zero, a broadcast) with one push onto each
 * worker's {@link WakeInbox} per run of up to {@link #MAX_RUN} fibers, rather than one push per
 * fiber. Every push from another thread is a compare-and-set on the inbox head, which the owner
 * empties with a swap while it works through the crowd; one per fiber made that cache line bounce
 * between the two cores on every wake (ReleaseBenchmark at two workers).
 *
 * <p>A fiber joins a run only when woken from a thread other than its worker's: on the owner's
 * own thread a wake acts at once, as {@link Work#wake} does. Its {@link Waiter#notified} flag is
 * set when it joins, as {@link Waiter#notifyWaiter} does before a push, and it is claimed in the
 * inbox then (its {@code inInbox} flag), so a concurrent waker of the same fiber leaves the push to
 * this batch. Runs are flushed when full and by {@link #flush()}, which the notifier calls before
 * it returns: a wake is delayed by at most one run's worth of list appends. Used by one thread.
 */
final class WakeBatch {
    /** The most fibers a run holds before it is pushed: the first of a crowd should not wait for the last. */
    static final int MAX_RUN = 64;
    /** Runs kept open at once, one per worker; a batch spanning more workers flushes one to make room. */
    private static final int SLOTS = 4;

    private final Work[] work = new Work[SLOTS];
    /** Each slot's run, linked newest-first through {@link Fiber#inboxNext}, as the inbox stack is. */
    private final Fiber[] newest = new Fiber[SLOTS];
    private final Fiber[] oldest = new Fiber[SLOTS];
    private final int[] count = new int[SLOTS];
    private int evict;

    /**
     * add(waiter, fiber) notifies waiter, whose fiber is {@code fiber}, and queues the fiber's wake in
     * a run. Returns false, having done nothing, when the calling thread is the fiber's worker's
     * owner: the caller then notifies it the usual way.
     */
    boolean add(Waiter waiter, Fiber fiber) {
        Work target = fiber.worker.work;
        if (fiber.worker.onOwnerThread()) {
            return false;
        }
        waiter.notified = true; // before the push, as in notifyWaiter()
        if (!WakeInbox.claim(fiber)) {
            return true; // already in the inbox: the owner has yet to act on it, and will after this notification
        }
        int slot = slotFor(target);
        fiber.inboxNext = newest[slot];
        newest[slot] = fiber;
        if (oldest[slot] == null) {
            oldest[slot] = fiber;
        }
        if (++count[slot] == MAX_RUN) {
            push(slot);
        }
        return true;
    }

    /** flush() pushes every open run. The notifier calls it once it has added every waiter. */
    void flush() {
        for (int slot = 0; slot < SLOTS; slot++) {
            if (count[slot] > 0) {
                push(slot);
            }
        }
    }

    private int slotFor(Work target) {
        int free = -1;
        for (int slot = 0; slot < SLOTS; slot++) {
            if (work[slot] == target) {
                return slot;
            }
            if (free < 0 && count[slot] == 0) {
                free = slot;
            }
        }
        if (free < 0) {
            free = evict;
            evict = (evict + 1) % SLOTS;
            push(free);
        }
        work[free] = target;
        return free;
    }

    private void push(int slot) {
        Work target = work[slot];
        target.wakeClaimed(newest[slot], oldest[slot]);
        newest[slot] = null;
        oldest[slot] = null;
        count[slot] = 0;
    }
}
