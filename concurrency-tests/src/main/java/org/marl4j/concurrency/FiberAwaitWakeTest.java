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
 * The wake-epoch protocol (Worker's overview): a fiber in {@code Fiber.await(lock, predicate)}
 * races another thread that makes the predicate true under the lock and then calls
 * {@code fiber.wake()}. The waiter samples its wake epoch with the lock held and suspends only if
 * no wake came since; the waker takes the lock after that sample, so its wake either bumps the
 * epoch first or finds the fiber suspended. Here the fiber is a bound thread's main fiber.
 */
@JCStressTest
@Description("Fiber.await(lock, predicate) on a bound thread vs. a state change + fiber.wake() from another thread")
@Outcome(id = "true", expect = ACCEPTABLE, desc = "The fiber saw the change: it found the predicate true, or wake() resumed it.")
@Outcome(id = "false", expect = FORBIDDEN,
        desc = "Lost wake-up: the predicate became true under the lock and wake() was called, yet the fiber "
                + "stayed suspended until its timeout. The wake fell between the epoch sample and the suspend.")
@State
public class FiberAwaitWakeTest extends AwaitWakeRace {
    /** The waiting fiber: the bound thread's main fiber. */
    @Actor
    public void waiter(Z_Result r) {
        Fibers.bindThisThread();
        r.r1 = awaitReady();
    }

    /** The waker: changes the state under the lock, then wakes the fiber once it is known. */
    @Actor
    public void waker() {
        makeReadyAndWake();
    }
}
