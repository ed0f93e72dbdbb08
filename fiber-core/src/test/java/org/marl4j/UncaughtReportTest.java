package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * A task that throws, with no handler configured, set on the thread or set JVM-wide: its trace is
 * printed under a heading that says the thread goes on, not the JDK's "Exception in thread", which
 * reads as if it had died. In a child JVM, whose System.err and default handler are its own.
 */
class UncaughtReportTest {

    private static String runProbe(String... args) throws Exception {
        ChildJvm.Result result = ChildJvm.run(ChildJvm.addExports(), UncaughtReportProbe.class, args);
        assertEquals(0, result.exitCode(), result.output());
        return result.output();
    }

    @Test
    void withNoHandler_theTraceSaysTheThreadGoesOn_onABoundThreadAndOnAWorker() throws Exception {
        String output = runProbe();
        // The thread a task ran on: the worker's (or bound) thread, or one of its fibers' virtual threads.
        assertTrue(Pattern.compile("Exception in a marl4j task on thread \"main(/fiber)?\" \\(the thread goes on\\): "
                + "java.lang.IllegalStateException: boom on main").matcher(output).find(), output);
        assertTrue(Pattern.compile("Exception in a marl4j task on thread \"probe-worker-0(/fiber)?\" \\(the thread goes on\\): "
                + "java.lang.IllegalStateException: boom on a worker").matcher(output).find(), output);
        assertTrue(output.contains("\tat org.marl4j.UncaughtReportProbe"), "prints the trace: " + output);
        assertFalse(output.contains("Exception in thread"), output);
        assertTrue(output.contains("main went on"), output);
    }

    @Test
    void aHandlerThatThrows_losesNeitherException_andTheWorkerGoesOn() throws Exception {
        String output = runProbe("throwing-handler");
        assertTrue(Pattern.compile("Exception in a marl4j task on thread \"probe-worker-0(/fiber)?\" \\(which its uncaught-exception "
                + "handler failed to report\\): java.lang.IllegalStateException: boom on a worker").matcher(output).find(), output);
        assertTrue(output.contains("Exception thrown from the uncaught-exception handler (the thread goes on): "
                + "java.lang.IllegalStateException: handler bug"), output);
        assertTrue(output.contains("main went on"), output);
    }

    @Test
    void aJvmWideDefaultHandler_hearsOfIt_asBefore() throws Exception {
        String output = runProbe("default-handler");
        assertTrue(output.contains("default handler: boom on main on main"), output);
        assertTrue(output.contains("default handler: boom on a worker on probe-worker-0"), output);
        assertFalse(output.contains("Exception in"), output);
        assertTrue(output.contains("main went on"), output);
    }
}
