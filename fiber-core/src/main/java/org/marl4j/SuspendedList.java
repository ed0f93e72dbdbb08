package org.marl4j;

import java.util.function.Consumer;

/**
 * The fibers of one worker that are inside a wait (between suspending and resuming): an intrusive
 * doubly linked list through {@link Fiber#prevSuspended}/{@link Fiber#nextSuspended}, so listing
 * and unlisting cost O(1) and allocate nothing. It serves {@link Scheduler#suspendedFibers()},
 * the blocked-fiber count of {@link Scheduler#stats()}, and cancellation by
 * {@link Scheduler#close(java.time.Duration)}.
 *
 * <p>Not thread-safe: every method is called with the owning worker's lock held.
 */
final class SuspendedList {
    private Fiber head;
    private int size;

    /** add(fiber) lists a fiber that is about to suspend. */
    void add(Fiber fiber) {
        fiber.prevSuspended = null;
        fiber.nextSuspended = head;
        if (head != null) {
            head.prevSuspended = fiber;
        }
        head = fiber;
        size++;
    }

    /** remove(fiber) unlists a fiber that has resumed. */
    void remove(Fiber fiber) {
        Fiber prev = fiber.prevSuspended;
        Fiber next = fiber.nextSuspended;
        if (prev == null) {
            head = next;
        } else {
            prev.nextSuspended = next;
        }
        if (next != null) {
            next.prevSuspended = prev;
        }
        fiber.prevSuspended = null;
        fiber.nextSuspended = null;
        size--;
    }

    /** size() is the number of listed fibers: marl's {@code numBlockedFibers}. Read racily by stats(). */
    int size() {
        return size;
    }

    /** forEach(action) visits every listed fiber; the action must not add or remove fibers. */
    void forEach(Consumer<Fiber> action) {
        for (Fiber f = head; f != null; f = f.nextSuspended) {
            action.accept(f);
        }
    }
}
