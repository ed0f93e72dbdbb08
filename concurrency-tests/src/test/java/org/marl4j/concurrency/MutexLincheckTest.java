package org.marl4j.concurrency;

import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Test;
import org.marl4j.Mutex;

/**
 * Lincheck model check of {@link Mutex}, called from plain threads: a counter incremented under
 * the Mutex must behave as a sequential counter (mutual exclusion), and a thread parked in
 * {@code lock()} must be woken by the release (the model checker reports a lost wake-up as a
 * deadlock: every thread blocked).
 *
 * <p>Why plain threads: Lincheck controls the threads it runs operations on, and a marl4j fiber
 * runs on a worker thread Lincheck does not know, through a {@code jdk.internal.vm.Continuation}
 * it cannot instrument. So the model checker explores the off-fiber path, where a waiter parks its
 * thread; the fiber path of the same protocols is covered by the jcstress tests in src/main.
 */
public class MutexLincheckTest {
    private final Mutex mutex = new Mutex();
    private int counter; // guarded by mutex

    /** lock(), increment, unlock(): may park the thread while the other holds the Mutex. */
    @Operation
    public int incrementUnderLock() {
        mutex.lock();
        try {
            return ++counter;
        } finally {
            mutex.unlock();
        }
    }

    /** Reentrant: lock twice, increment, unlock twice. */
    @Operation
    public int incrementReentrantly() {
        mutex.lock();
        try {
            mutex.lock();
            try {
                return ++counter;
            } finally {
                mutex.unlock();
            }
        } finally {
            mutex.unlock();
        }
    }

    /**
     * tryLock() and, if it got the Mutex, unlock(). Returns nothing: a tryLock that fails while the
     * other thread holds the Mutex has no sequential equivalent (run alone it always succeeds), so
     * its result would not be linearizable; it is here for its interleavings with the waiters.
     */
    @Operation
    public void tryLockAndUnlock() {
        if (mutex.tryLock()) {
            mutex.unlock();
        }
    }

    @Test
    void modelCheck() {
        Budget.modelChecking().check(getClass());
    }
}
