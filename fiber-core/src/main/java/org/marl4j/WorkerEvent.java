package org.marl4j;

import jdk.jfr.Description;
import jdk.jfr.Label;

/**
 * A WorkerEvent is what every marl4j JFR event records of where it happened: the scheduler and the
 * worker. An abstract event class, so JFR registers only its subclasses ({@link TaskRunEvent},
 * {@link FiberSuspendEvent}, {@link TaskBlockingEvent}), each of which has these fields.
 *
 * <p>Loading it sets up JFR as loading any event class does, so, like its subclasses, it is touched
 * only once {@link FlightRecording#started()}.
 */
abstract class WorkerEvent extends jdk.jfr.Event {
    @Label("Scheduler")
    @Description("The scheduler, as the start of its toString() names it: Scheduler@<identity hash in hex>")
    String scheduler;

    @Label("Worker Id")
    @Description("The worker's id: 0 to worker count - 1 for a worker thread, -1 for a thread bound with Scheduler.bind()")
    int workerId;

    @Label("Fiber Engine")
    @Description("How the scheduler's fibers suspend: VIRTUAL_THREADS or CONTINUATIONS")
    String fiberEngine;

    /** setWorker(worker) fills in the scheduler, worker and engine fields; called only when the event is committed. */
    final void setWorker(Worker worker) {
        scheduler = schedulerName(worker.scheduler);
        workerId = worker.id;
        fiberEngine = worker.scheduler.fiberEngine().name();
    }

    /** schedulerName(s) is "Scheduler@" and its identity hash in hex, the stable start of s.toString() (which adds ", closed" later). */
    static String schedulerName(Scheduler s) {
        return "Scheduler@" + Integer.toHexString(System.identityHashCode(s));
    }
}
