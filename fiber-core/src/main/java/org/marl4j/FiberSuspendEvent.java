package org.marl4j;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Threshold;

/**
 * A FiberSuspendEvent is the JFR event {@code org.marl4j.FiberSuspend}: a fiber suspended in a wait
 * on a marl4j primitive, committed when it resumes, with the time it was suspended as its duration
 * and the waiting code as its stack trace (the user's frames follow marl4j's own wait frames).
 *
 * <pre>{@code
 * java -XX:StartFlightRecording:+org.marl4j.FiberSuspend#enabled=true,filename=app.jfr ...    // waits >= 20 ms
 * java -XX:StartFlightRecording:+org.marl4j.FiberSuspend#enabled=true,+org.marl4j.FiberSuspend#threshold=0ms,filename=app.jfr ...
 * }</pre>
 *
 * <p>Off by default, as {@link TaskRunEvent} is, and as the JDK records no event for a parked
 * virtual thread: a recorded wait costs its stack trace, a few microseconds, and a service whose
 * fibers routinely wait longer than the threshold (for a backend, for a crowd to gather) would pay
 * that on every wait under any recording. On by default, it would make 100,000 fibers each awaiting
 * a future for longer than 20 ms (FanOutBenchmark) take 14 microseconds a fiber under a default
 * recording, against 0.35 without one, and 0.77 for virtual threads under the same recording.
 *
 * <p><b>Cost when off:</b> as {@link TaskRunEvent}, a static pre-made instance answers
 * {@code isEnabled()}, so a suspend allocates nothing for JFR.
 */
@Name("org.marl4j.FiberSuspend")
@Label("Fiber Suspend")
@Category({"marl4j"})
@Description("A marl4j fiber suspended in a wait until it was resumed; the stack trace shows where it waited")
@Threshold("20 ms")
@Enabled(false)
final class FiberSuspendEvent extends WorkerEvent {
    /** Never committed: only asked isEnabled(), which reads no instance state. */
    private static final FiberSuspendEvent PROBE = new FiberSuspendEvent();

    @Label("Fiber Id")
    @Description("The fiber's number within its worker; 0 is a bound thread's main fiber (the thread itself blocked)")
    int fiberId;

    @Label("Timed")
    @Description("Whether the wait had a deadline (a timeout or Fiber.sleep)")
    boolean timed;

    /** isTurnedOn() is whether a recording enabled this event; the hot path asks only this. */
    static boolean isTurnedOn() {
        return PROBE.isEnabled();
    }

    /** beginIfTurnedOn() returns a begun event if a recording enabled this event, else null, allocating nothing. */
    static FiberSuspendEvent beginIfTurnedOn() {
        if (!PROBE.isEnabled()) {
            return null;
        }
        FiberSuspendEvent event = new FiberSuspendEvent();
        event.begin();
        return event;
    }

    /** endAndCommit(fiber, wasTimed) ends the event on resume and, if it passes its threshold, fills and commits it. */
    void endAndCommit(Fiber fiber, boolean wasTimed) {
        end();
        if (shouldCommit()) {
            setWorker(fiber.worker);
            fiberId = fiber.id();
            timed = wasTimed;
            commit();
        }
    }
}
