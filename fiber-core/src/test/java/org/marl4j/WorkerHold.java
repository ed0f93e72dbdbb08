package org.marl4j;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * WorkerHold holds a worker thread from one of its tasks until released, so that the tasks queued
 * behind it stay queued: the same on both fiber engines. The task spins rather than waits, since a
 * blocking JDK wait (a latch, a lock) holds the worker thread on CONTINUATIONS only: on
 * VIRTUAL_THREADS it parks just the task's fiber, and the worker starts the queued tasks meanwhile.
 * The spin never yields either, as {@code Thread.yield()} would yield the fiber's virtual thread.
 */
public final class WorkerHold {
    private final AtomicBoolean released = new AtomicBoolean();

    /** WorkerHold() makes a hold not yet released. */
    public WorkerHold() {}

    /**
     * hold() spins on the calling task's worker thread until {@link #release()}, or until
     * {@link TestSchedulers#PATIENCE} has passed, so a test that fails before releasing cannot spin
     * for ever.
     */
    public void hold() {
        long deadline = System.nanoTime() + TestSchedulers.PATIENCE.toNanos();
        while (!released.get() && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
    }

    /** release() ends every hold(), now or later. */
    public void release() {
        released.set(true);
    }
}
