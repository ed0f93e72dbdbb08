package org.marl4j.concurrency;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.marl4j.ConditionVariable;
import org.marl4j.Mutex;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.Z_Result;

/**
 * The waiter-notified protocol through a {@link ConditionVariable} and a {@link Mutex}: a fiber on
 * a worker thread waits for a flag, a plain thread sets it under the Mutex and signals. The Mutex's
 * own hand-off (its waiter count read after the owner is cleared) is on the path too, since the
 * signaller may have to wait for the Mutex the waiter is about to release.
 */
@JCStressTest
@Description("ConditionVariable.await(mutex, pred) on a worker's fiber vs. set-under-mutex + signal() from a thread")
@Outcome(id = "true", expect = ACCEPTABLE, desc = "The waiter saw the flag: at once, or woken by the signal.")
@Outcome(id = "false", expect = FORBIDDEN,
        desc = "Lost wake-up: the flag was set under the mutex and signal() called, yet the waiter slept until "
                + "its timeout (the signal found no waiter queued, or the notified waiter suspended anyway).")
@State
public class ConditionVariableSignalAwaitTest {
    private final Mutex mutex = new Mutex();
    private final ConditionVariable cv = new ConditionVariable();
    private boolean ready; // guarded by mutex

    /** The waiting fiber, on the one-worker scheduler. */
    @Actor
    public void waiter(Z_Result r) {
        r.r1 = Fibers.onWorker(() -> {
            mutex.lock();
            try {
                return Fibers.promptly(() -> cv.await(mutex, Fibers.LOST, () -> ready));
            } finally {
                mutex.unlock();
            }
        });
    }

    /** The signaller, a plain thread. */
    @Actor
    public void signaller() {
        mutex.lock();
        try {
            ready = true;
        } finally {
            mutex.unlock();
        }
        cv.signal();
    }
}
