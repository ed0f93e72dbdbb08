package org.marl4j;

import jdk.jfr.FlightRecorder;

/**
 * The gate in front of marl4j's JFR events ({@link TaskRunEvent}, {@link FiberSuspendEvent}): they
 * are asked whether a recording wants them only once JFR has started in this JVM.
 *
 * <p>Why: loading a class that extends {@code jdk.jfr.Event} makes the JVM set up JFR's event
 * instrumentation (a few hundred classes, the class-file API among them), recording or not. The
 * first task of a new scheduler asked {@code TaskRunEvent}, so it paid that: 130-340 ms before it
 * started, on 2 cores, where a {@code ThreadPoolExecutor} takes 2 ms. {@link FlightRecorder}
 * itself is a plain class, and JFR is initialized before any recording starts, so nothing a
 * recording would see is missed: the event classes load, instrumented, at the first task after.
 */
final class FlightRecording {
    private FlightRecording() {}

    /** started() is whether JFR has been initialized in this JVM (a volatile read). */
    static boolean started() {
        return FlightRecorder.isInitialized();
    }
}
