package org.marl4j;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * A TaskBlockingEvent is the JFR event {@code org.marl4j.TaskBlocking}: a task held its worker
 * thread without suspending its fiber for longer than the scheduler's blocking threshold
 * ({@link Scheduler.Config#setBlockingTaskThreshold}), typically because it blocked the thread
 * (a JDBC call, {@code synchronized}, {@code Thread.sleep}, a plain latch) where a marl4j
 * primitive or {@link Marl#blockingCall} would have suspended only the fiber: the cheap cousin of
 * Reactor's BlockHound. Recorded by the scheduler's monitor thread while the task still holds the
 * thread, with the worker thread's stack at that moment in {@code workerStack}.
 *
 * <pre>{@code
 * java -XX:StartFlightRecording:filename=app.jfr ...   // on by default
 * }</pre>
 *
 * <p>On by default: it fires at most once per stalled task and costs nothing on the workers' paths.
 */
@Name("org.marl4j.TaskBlocking")
@Label("Task Blocking Worker Thread")
@Category({"marl4j"})
@Description("A marl4j task held its worker thread without suspending for longer than the scheduler's blocking threshold")
@StackTrace(false)
final class TaskBlockingEvent extends WorkerEvent {
    @Label("Worker Thread")
    @Description("The name of the worker thread the task holds")
    String workerThread;

    @Label("Held For")
    @Description("How long the task had held the thread without suspending when this was recorded")
    @Timespan(Timespan.NANOSECONDS)
    long heldFor;

    @Label("Worker Stack")
    @Description("The worker thread's stack when this was recorded, innermost frame first: where the task blocks")
    String workerStack;
}
