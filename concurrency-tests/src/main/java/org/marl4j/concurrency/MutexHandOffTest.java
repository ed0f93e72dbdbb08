package org.marl4j.concurrency;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.marl4j.Mutex;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZI_Result;

/**
 * Mutex's release/acquire hand-off: a waiter publishes itself in the waiter count before its last
 * look at the owner, and unlock clears the owner before it reads that count, so one of them sees
 * the other. Two fibers (bound threads' main fibers) each take the Mutex once with a bounded wait
 * and increment a counter inside it.
 */
@JCStressTest
@Description("Two fibers contend for a Mutex with tryLock(timeout); each must get it, one after the other")
@Outcome(id = "true, true, 2", expect = ACCEPTABLE, desc = "Both got the Mutex, one at a time.")
@Outcome(id = {"false, .*", ".*, false, .*"}, expect = FORBIDDEN,
        desc = "Lost wake-up: a fiber waited for the Mutex until its timeout although the other released it "
                + "(the release read no waiter, and the waiter saw the Mutex still owned).")
@Outcome(expect = FORBIDDEN, desc = "Mutual exclusion broken: both were inside at once and an increment was lost.")
@State
public class MutexHandOffTest {
    private final Mutex mutex = new Mutex();
    private int counter; // guarded by mutex

    private boolean incrementUnderMutex() {
        Fibers.bindThisThread();
        long start = System.nanoTime();
        if (!mutex.tryLock(Fibers.LOST)) {
            return false;
        }
        try {
            counter++;
        } finally {
            mutex.unlock();
        }
        return System.nanoTime() - start < Fibers.LOST.toNanos(); // see Fibers.promptly
    }

    /** First contender. */
    @Actor
    public void first(ZZI_Result r) {
        r.r1 = incrementUnderMutex();
    }

    /** Second contender. */
    @Actor
    public void second(ZZI_Result r) {
        r.r2 = incrementUnderMutex();
    }

    /** Reads the counter once both are done. */
    @Arbiter
    public void counter(ZZI_Result r) {
        mutex.lock();
        try {
            r.r3 = counter;
        } finally {
            mutex.unlock();
        }
    }
}
