package org.marl4j.concurrency;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.marl4j.Event;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * The waiter-notified protocol (WaitQueue.Waiter): an AUTO Event's await on a fiber races its signal from
 * another thread. The signaller marks the queued waiter notified before waking its fiber, and the
 * fiber checks that mark under its worker's lock before it suspends, so a signal between the
 * waiter's enqueue and its suspend is never lost. r1: what await returned; r2: whether the signal
 * was left unconsumed afterwards.
 */
@JCStressTest
@Description("Event(AUTO).await on a bound thread's fiber vs. signal() from another thread")
@Outcome(id = "true, false", expect = ACCEPTABLE, desc = "The waiter got the signal and consumed it.")
@Outcome(id = {"false, true", "false, false"}, expect = FORBIDDEN,
        desc = "Lost wake-up: the signal was raised but the waiter slept until its timeout (false, false: "
                + "it found the signal only then).")
@Outcome(id = "true, true", expect = FORBIDDEN,
        desc = "Double delivery: the waiter consumed the AUTO signal, yet it is still raised.")
@State
public class EventSignalAwaitTest {
    private final Event event = new Event(Event.Mode.AUTO);
    private volatile boolean awaited;

    /** The waiting fiber. */
    @Actor
    public void waiter(ZZ_Result r) {
        Fibers.bindThisThread();
        r.r1 = Fibers.promptly(() -> event.await(Fibers.LOST));
        awaited = true;
    }

    /** The signaller, a plain thread; it reads the leftover signal once the waiter is through. */
    @Actor
    public void signaller(ZZ_Result r) {
        event.signal();
        while (!awaited) {
            Thread.onSpinWait();
        }
        r.r2 = event.isSignalled();
    }
}
