package org.marl4j;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A TaskRunEvent is the JFR event {@code org.marl4j.TaskRun}: one task run by a worker, from start to
 * end, including any time its fiber spent suspended ({@code org.marl4j.FiberSuspend} events nest in it).
 *
 * <pre>{@code
 * java -XX:StartFlightRecording:+org.marl4j.TaskRun#enabled=true,filename=app.jfr ...
 * }</pre>
 *
 * <p>Off by default, like the JDK's {@code jdk.VirtualThreadStart}: it fires once per task, so a
 * recording with it on costs every task a timestamp pair and an event. It records no stack trace:
 * at commit the stack is only the worker loop's.
 *
 * <p><b>Cost when off.</b> Until JFR has started in the JVM, the worker does not touch this class
 * at all ({@link FlightRecording}: loading it costs the JVM's JFR set-up). After that, it asks
 * {@link #isTurnedOn()}, which reads a static field and calls {@code isEnabled()} on a pre-made
 * instance; JFR instruments that method of every event class to read one static field of the
 * class ({@code eventConfiguration}), null until a recording enables the event. So a task pays
 * three field loads (the gate's volatile one first) and no allocation, in the interpreter and C1
 * too, instead of relying on escape analysis to remove a {@code new TaskRunEvent()} per task. This
 * is the user-level form of the {@code VirtualThreadStartEvent.isTurnedOn()} guard in
 * {@code java.lang.VirtualThread.run}; JFR re-instruments already-loaded event classes when a
 * recording starts, so the pre-made instance sees it.
 */
@Name("org.marl4j.TaskRun")
@Label("Task Run")
@Category({"marl4j"})
@Description("A task run by a marl4j worker, from start to end, including time its fiber was suspended")
@Enabled(false)
@StackTrace(false)
final class TaskRunEvent extends WorkerEvent {
    /** Never committed: only asked isEnabled(), which reads no instance state. */
    private static final TaskRunEvent PROBE = new TaskRunEvent();

    @Label("Task")
    @Description("The task's toString(): Task[<its Runnable>]")
    String task;

    /** isTurnedOn() is whether a recording enabled this event; the hot path asks only this. */
    static boolean isTurnedOn() {
        return PROBE.isEnabled();
    }

    /** beginIfTurnedOn() returns a begun event if a recording enabled this event, else null, allocating nothing. */
    static TaskRunEvent beginIfTurnedOn() {
        if (!PROBE.isEnabled()) {
            return null;
        }
        TaskRunEvent event = new TaskRunEvent();
        event.begin();
        return event;
    }

    /** endAndCommit(worker, task) ends the event and, if it passes its threshold, fills and commits it. */
    void endAndCommit(Worker worker, Task run) {
        end();
        if (shouldCommit()) {
            setWorker(worker);
            task = describe(run);
            commit();
        }
    }

    /** describe(task) is task.toString(), which runs user code: a failure there must not reach the worker. */
    private static String describe(Task task) {
        try {
            return task.toString();
        } catch (RuntimeException e) {
            return "Task[toString() threw " + e.getClass().getName() + "]";
        }
    }
}
