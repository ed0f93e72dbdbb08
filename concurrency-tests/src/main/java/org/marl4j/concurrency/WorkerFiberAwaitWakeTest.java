package org.marl4j.concurrency;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.Z_Result;

/**
 * {@link FiberAwaitWakeTest} with the waiter on a worker thread's fiber: the wake then also races
 * the worker going to sleep for want of work, so it must both re-queue the fiber and wake the
 * worker thread.
 */
@JCStressTest
@Description("Fiber.await(lock, predicate) on a worker's fiber vs. a state change + fiber.wake() from another thread")
@Outcome(id = "true", expect = ACCEPTABLE, desc = "The fiber saw the change: it found the predicate true, or wake() resumed it.")
@Outcome(id = "false", expect = FORBIDDEN,
        desc = "Lost wake-up: wake() was called after the change, yet the fiber stayed suspended until its "
                + "timeout. Either the epoch check missed the wake, or the sleeping worker was not woken for it.")
@State
public class WorkerFiberAwaitWakeTest extends AwaitWakeRace {
    /** Runs the waiting fiber as a task on the one-worker scheduler and reports what it saw. */
    @Actor
    public void waiter(Z_Result r) {
        r.r1 = Fibers.onWorker(this::awaitReady);
    }

    /** The waker: changes the state under the lock, then wakes the fiber once it is known. */
    @Actor
    public void waker() {
        makeReadyAndWake();
    }
}
