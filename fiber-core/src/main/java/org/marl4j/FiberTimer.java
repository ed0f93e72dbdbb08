package org.marl4j;

/**
 * A FiberTimer is a fiber's entry in its worker's {@link Deadlines} heap while it waits with a
 * timeout (state WAITING). A fiber makes one at its first timed wait and reuses it
 * ({@link Fiber#timer()}), so the fibers that never wait with a timeout, usually most of them, do
 * not carry a deadline and a heap index. Fields are guarded by the worker's lock.
 */
final class FiberTimer extends Timed {
    final Fiber fiber;

    FiberTimer(Fiber fiber) {
        this.fiber = fiber;
    }
}
