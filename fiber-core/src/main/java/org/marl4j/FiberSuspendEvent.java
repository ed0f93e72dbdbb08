package org.marl4j;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Threshold;

/**
 * A FiberSuspendEvent is the JFR event {@code org.marl4j.FiberSuspend}: a fiber suspended in a wait
 * on a marl4j primitive, committed when it resumes, with the time it was suspended as its duration
 * and the waiting code as its stack trace.
 *
 * <pre>{@code
 * java -XX:StartFlightRecording:filename=app.jfr ...                                    // waits >= 20 ms
 * java -XX:StartFlightRecording:+org.marl4j.FiberSuspend#threshold=0ms,filename=app.jfr ... // every wait
 * }</pre>
 *
 * <p>On by default with a 20 ms threshold, as the JDK's {@code jdk.ThreadPark} is in
 * {@code default.jfc}: a suspend that ends sooner costs a recording two timestamps and nothing more.
 *
 * <p><b>Cost when off:</b> as {@link TaskRunEvent}, a static pre-made instance answers
 * {@code isEnabled()}, so a suspend allocates nothing for JFR.
 */
@Name("org.marl4j.FiberSuspend")
@Label("Fiber Suspend")
@Category({"marl4j"})
@Description("A marl4j fiber suspended in a wait until it was resumed; the stack trace shows where it waited")
@Threshold("20 ms")
final class FiberSuspendEvent extends jdk.jfr.Event {
    /** Never committed: only asked isEnabled(), which reads no instance state. */
    private static final FiberSuspendEvent PROBE = new FiberSuspendEvent();

    @Label("Scheduler")
    @Description("The scheduler, as the start of its toString() names it: Scheduler@<identity hash in hex>")
    String scheduler;

    @Label("Worker Id")
    @Description("The worker thread's id (0 to worker count - 1), or -1 for a thread bound with Scheduler.bind()")
    int workerId;

    @Label("Fiber Id")
    @Description("The fiber's number within its worker; 0 is a bound thread's main fiber (the thread itself blocked)")
    int fiberId;

    @Label("Timed")
    @Description("Whether the wait had a deadline (a timeout or Fiber.sleep)")
    boolean timed;

    @Label("Waited At")
    @Description("Where the user's code waited: the stack from the first frame outside marl4j's own "
            + "implementation (the event's own stack trace starts inside marl4j)")
    String waitedAt;

    /** How many frames of the user's stack {@link #waitedAt} keeps. */
    private static final int WAITED_AT_FRAMES = 16;

    /**
     * userStack() is the calling fiber's stack from its first frame outside marl4j's internals:
     * the public primitive it called (Event.await, ...) is kept as the first line, the worker loop
     * and the wait machinery above it are dropped. Only computed for an event being committed.
     */
    private static String userStack() {
        return StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).walk(frames -> {
            StringBuilder out = new StringBuilder();
            boolean[] inUser = {false};
            frames.filter(f -> inUser[0] || (inUser[0] = isUserFacing(f)))
                    .limit(WAITED_AT_FRAMES)
                    .forEach(f -> out.append(f.toStackTraceElement()).append('\n'));
            return out.toString();
        });
    }

    /** isUserFacing(frame): the first frame kept is a public marl4j type's, or any frame outside marl4j. */
    private static boolean isUserFacing(StackWalker.StackFrame frame) {
        Class<?> type = frame.getDeclaringClass();
        if (type.getPackage() == null || !type.getPackageName().equals("org.marl4j")) {
            return true;
        }
        return java.lang.reflect.Modifier.isPublic(type.getModifiers());
    }

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
            scheduler = TaskRunEvent.schedulerName(fiber.worker.scheduler);
            workerId = fiber.worker.id;
            fiberId = fiber.id();
            timed = wasTimed;
            waitedAt = userStack();
            commit();
        }
    }
}
