package org.marl4j;

import java.util.function.Consumer;

/**
 * The fibers of one worker that are inside a wait (between suspending and resuming): an intrusive
 * doubly linked list through {@link Fiber#prevSuspended}/{@link Fiber#nextSuspended}, so listing
 * and unlisting cost O(1) and allocate nothing. It serves {@link Scheduler#suspendedFibers()},
 * the blocked-fiber count of {@link Scheduler#stats()}, and cancellation by
 * {@link Scheduler#close(java.time.Duration)}.
 *
 * <p>The list is circular around a sentinel, a Fiber that never runs, so adding and removing
 * take no branch: {@link #remove} runs on every resume, right after the yield, in code C2 inlines
 * into the frames of every suspended fiber, and a branch seen one way while C2 compiled it (always
 * the head, say) would otherwise become an uncommon trap that deoptimizes that code when the other
 * way comes, and fibers suspending meanwhile freeze larger, interpreted frames.
 *
 * <p>Not thread-safe: every method is called with the owning worker's lock held.
 */
final class SuspendedList {
    private final Fiber sentinel;
    private int size;

    SuspendedList(Worker worker) {
        sentinel = Fiber.sentinel(worker);
        sentinel.prevSuspended = sentinel;
        sentinel.nextSuspended = sentinel;
    }

    /** add(fiber) lists a fiber that is about to suspend. */
    @SuppressWarnings("GuardedBy") // every fiber here is its worker's: the caller holds that worker's lock, which the analysis cannot name through each fiber
    void add(Fiber fiber) {
        Fiber first = sentinel.nextSuspended;
        fiber.prevSuspended = sentinel;
        fiber.nextSuspended = first;
        first.prevSuspended = fiber;
        sentinel.nextSuspended = fiber;
        size++;
    }

    /** remove(fiber) unlists a fiber that has resumed. */
    @SuppressWarnings("GuardedBy") // every fiber here is its worker's: the caller holds that worker's lock, which the analysis cannot name through each fiber
    void remove(Fiber fiber) {
        Fiber prev = fiber.prevSuspended;
        Fiber next = fiber.nextSuspended;
        prev.nextSuspended = next;
        next.prevSuspended = prev;
        fiber.prevSuspended = null;
        fiber.nextSuspended = null;
        size--;
    }

    /** size() is the number of listed fibers: marl's {@code numBlockedFibers}. Read racily by stats(). */
    int size() {
        return size;
    }

    /** forEach(action) visits every listed fiber; the action must not add or remove fibers. */
    @SuppressWarnings("GuardedBy") // every fiber here is its worker's: the caller holds that worker's lock, which the analysis cannot name through each fiber
    void forEach(Consumer<Fiber> action) {
        for (Fiber f = sentinel.nextSuspended; f != sentinel; f = f.nextSuspended) {
            action.accept(f);
        }
    }
}
