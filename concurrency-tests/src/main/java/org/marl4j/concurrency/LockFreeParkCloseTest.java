package org.marl4j.concurrency;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.marl4j.Event;
import org.marl4j.Scheduler;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * The lock-free park against a bounded close: a fiber of a fresh one-worker scheduler parks without
 * the worker lock in an untimed {@code Event.await()} that nothing signals, while another thread
 * closes the scheduler with a timeout of zero. The close's cancellation, under the worker lock, marks
 * the worker's waits cancelled and resumes only the fibers already listed as suspended: it does not
 * wake the fiber, so a fiber that the trampoline suspends after it is never resumed unless the
 * trampoline's own check, under the same lock, sees the mark. No other wake masks a miss here.
 *
 * <p>Why the waiting actor binds its thread to the scheduler: a close cancels the waits when it next
 * looks at its clock, which it does at once while it waits for bound threads to unbind, but only
 * after a millisecond of joining a worker thread, long after the fiber has parked. r1: the wait
 * ended in time; r2: it ended by a cancellation. A scheduler per state costs a thread start, so this
 * test runs fewer states than the others.
 */
@JCStressTest
@Description("Event.await() parked without the worker lock on a worker's fiber vs. Scheduler.close(Duration.ZERO) from another thread")
@Outcome(id = "true, true", expect = ACCEPTABLE,
        desc = "The wait threw FiberCancelledException: refused at once, or the close's cancellation resumed the fiber.")
@Outcome(id = "false, true", expect = FORBIDDEN,
        desc = "Lost wake-up: the bounded close cancelled the worker's waits, yet the parked fiber stayed suspended "
                + "(the trampoline suspended and listed it after the cancellation had resumed the listed fibers, "
                + "without seeing the mark); it threw only when the test woke it after its timeout, and the close "
                + "would otherwise have waited for ever.")
@Outcome(expect = FORBIDDEN, desc = "The wait returned normally, though the event was never signalled.")
@State
public class LockFreeParkCloseTest {
    /** The close's WARNING of what it cancelled, once per state, would flood the run's output. */
    private static final Logger QUIET = Logger.getLogger(Scheduler.class.getName());

    static {
        QUIET.setLevel(Level.OFF);
    }

    private final Event event = new Event(Event.Mode.AUTO); // never signalled: only the close ends the wait
    private final ParkedFiber parked = new ParkedFiber();
    private volatile Scheduler scheduler;

    /** Parks a fiber of a fresh scheduler in the event's wait, with this thread bound, and reports how it ended. */
    @Actor
    public void waiter(ZZ_Result r) {
        Scheduler fresh = new Scheduler(new Scheduler.Config()
                .setWorkerThreadCount(1).setThreadNamePrefix("jcstress-close-").setDaemon(true));
        scheduler = fresh;
        try (Scheduler.Binding binding = fresh.bind()) {
            parked.start(fresh, event::await);
            r.r1 = parked.endedPromptly();
            r.r2 = parked.endedByCancellation();
        }
    }

    /** Closes the scheduler with a timeout of zero once the fiber is about to wait. */
    @Actor
    public void closer() {
        parked.awaitStarted(); // published after the scheduler
        scheduler.close(Duration.ZERO);
    }
}
