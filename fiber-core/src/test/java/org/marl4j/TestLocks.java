package org.marl4j;

import java.util.concurrent.locks.Lock;

/** Lock helpers the tests share. */
public final class TestLocks {
    private TestLocks() {}

    /** underLock(lock, body) runs body holding lock: a change to what a waiter's predicate reads, or a wait. */
    public static void underLock(Lock lock, Runnable body) {
        lock.lock();
        try {
            body.run();
        } finally {
            lock.unlock();
        }
    }
}
