package org.marl4j.benchmarks;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;

/** VarFlags is an array of one-shot flags, each waited for by parking: the JDK baseline's "event". */
final class VarFlags {
    private final AtomicIntegerArray flags;

    VarFlags(int size) {
        flags = new AtomicIntegerArray(size);
    }

    /** set(i, waiter) raises flag i and unparks the thread that waits on it. */
    void set(int i, Thread waiter) {
        flags.set(i, 1);
        LockSupport.unpark(waiter);
    }

    /** awaitSet(i) parks the calling thread until flag i is raised. */
    void awaitSet(int i) {
        while (flags.get(i) == 0) {
            LockSupport.park(this);
        }
    }
}
