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
 * The lock-free park against a wake: a worker's fiber in an untimed {@code Event.await()} queues
 * its node, releases the event's lock and yields without the worker lock; the trampoline then
 * takes the lock and suspends it unless the node was notified meanwhile. A plain thread's
 * {@code signal()}, sent once the fiber is about to wait, notifies the node and wakes the fiber at
 * any point of that: before it queued, while it yields, before or after the trampoline's decision. r1: the wait ended in time; r2: it
 * ended by a cancellation.
 */
@JCStressTest
@Description("Event(AUTO).await() parked without the worker lock on a worker's fiber vs. signal() from another thread")
@Outcome(id = "true, false", expect = ACCEPTABLE,
        desc = "The waiter returned: it found the signal at once, or the signal resumed it.")
@Outcome(id = "false, false", expect = FORBIDDEN,
        desc = "Lost wake-up: signal() notified the parked fiber's node and woke it, yet the fiber was never resumed "
                + "(the trampoline suspended it without seeing the notification, and the wake found it not yet "
                + "suspended); it ended only when the test woke it after its timeout.")
@Outcome(expect = FORBIDDEN, desc = "The wait threw FiberCancelledException, though nothing cancelled it.")
@State
public class LockFreeParkWakeTest {
    private final Event event = new Event(Event.Mode.AUTO);
    private final ParkedFiber parked = new ParkedFiber();

    /** Parks a fiber of the one-worker scheduler in the event's untimed wait, and reports how it ended. */
    @Actor
    public void waiter(ZZ_Result r) {
        parked.start(Fibers.oneWorker(), event::await);
        r.r1 = parked.endedPromptly();
        r.r2 = parked.endedByCancellation();
    }

    /** The signaller, a plain thread: signals as the fiber is about to wait, so most signals meet its park. */
    @Actor
    public void signaller() {
        parked.awaitStarted();
        event.signal();
    }
}
