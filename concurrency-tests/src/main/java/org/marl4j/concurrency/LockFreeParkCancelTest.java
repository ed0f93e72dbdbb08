package org.marl4j.concurrency;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.marl4j.Event;
import org.marl4j.FiberCancellation;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * The lock-free park against a cancellation: a worker's fiber, inside an open
 * {@link FiberCancellation}, parks without the worker lock in an untimed {@code Event.await()} that
 * nothing signals, while another thread cancels the scope. cancel() counts the cancellation under
 * the worker lock, then wakes the fiber; the fiber sees it before it waits, or the trampoline sees
 * it under the lock before suspending the fiber, or the wake resumes the suspended fiber, whose wait
 * then throws. r1: the wait ended in time; r2: it ended by a cancellation.
 */
@JCStressTest
@Description("Event.await() parked without the worker lock on a worker's fiber vs. FiberCancellation.cancel() from another thread")
@Outcome(id = "true, true", expect = ACCEPTABLE,
        desc = "The wait threw FiberCancelledException: refused at once, or the cancellation resumed the fiber.")
@Outcome(id = "false, true", expect = FORBIDDEN,
        desc = "Lost wake-up: cancel() counted the cancellation and woke the parked fiber, yet the fiber stayed "
                + "suspended (the trampoline suspended it without seeing the cancellation, and the wake found it not "
                + "yet suspended); it threw only when the test woke it after its timeout.")
@Outcome(expect = FORBIDDEN, desc = "The wait returned normally, though the event was never signalled.")
@State
public class LockFreeParkCancelTest {
    private final Event event = new Event(Event.Mode.AUTO); // never signalled: only the cancellation ends the wait
    private final ParkedFiber parked = new ParkedFiber();
    private volatile FiberCancellation scope;

    /** Parks a fiber of the one-worker scheduler in the event's wait inside a cancellation scope. */
    @Actor
    public void waiter(ZZ_Result r) {
        parked.start(Fibers.oneWorker(), () -> {
            try (FiberCancellation opened = FiberCancellation.open()) {
                scope = opened;
                event.await();
            }
        });
        r.r1 = parked.endedPromptly();
        r.r2 = parked.endedByCancellation();
    }

    /** Cancels the scope as soon as the fiber has opened it, from a plain thread. */
    @Actor
    public void canceller() {
        parked.awaitStarted();
        FiberCancellation opened;
        while ((opened = scope) == null) { // opened right after the fiber is published
            Thread.onSpinWait();
        }
        opened.cancel();
    }
}
