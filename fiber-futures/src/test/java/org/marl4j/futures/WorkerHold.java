package org.marl4j.futures;

import java.util.concurrent.atomic.AtomicBoolean;
import org.marl4j.TestSchedulers;

/**
 * WorkerHold holds a worker thread from one of its tasks until released, so that the tasks queued
 * behind it stay queued: the same on both fiber engines. The task spins rather than waits, since a
 * blocking JDK wait (a latch, a lock) holds the worker thread on CONTINUATIONS only: on
 * VIRTUAL_THREADS it parks just the task's fiber, and the worker starts the queued tasks meanwhile.
 * The spin never yields either, as {@code Thread.yield()} would yield the fiber's virtual thread.
 */
final class WorkerHold {
    private final AtomicBoolean released = new AtomicBoolean();

    /**
     * hold() spins on the calling task's worker thread until {@link #release()}, or until
     * {@link TestSchedulers#PATIENCE} has passed, so a test that fails before releasing cannot spin
     * for ever.
     */
    void hold() {
        long deadline = System.nanoTime() + TestSchedulers.PATIENCE.toNanos();
        while (!released.get() && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
    }

    /** release() ends every hold(), now or later. */
    void release() {
        released.set(true);
    }
}
