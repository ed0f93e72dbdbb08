package org.marl4j;

/**
 * A FiberTimer is a fiber's side object: its entry in its worker's {@link Deadlines} heap while it
 * waits with a timeout (state WAITING), and its priority. A fiber makes one at its first timed wait
 * or non-zero priority and reuses it ({@link Fiber#timer()}), so the fibers that never wait with a
 * timeout nor run a prioritised task, usually most of them, carry neither. Fields are guarded by
 * the worker's lock.
 */
final class FiberTimer extends Timed {
    final Fiber fiber;
    /**
     * The fiber's priority ({@link Fiber#priority()}), here since most fibers keep the default 0:
     * this object's padding had room for it. Written under the worker's lock, read from any thread.
     */
    volatile int priority;

    FiberTimer(Fiber fiber) {
        this.fiber = fiber;
    }
}
