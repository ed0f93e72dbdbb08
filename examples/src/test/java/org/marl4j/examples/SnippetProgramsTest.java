package org.marl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.marl4j.FiberEngine;
import org.marl4j.Scheduler;

/**
 * The README's snippet programs run and print what the README says: each test calls the program's
 * main, bounded in time, and checks its output.
 */
class SnippetProgramsTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @Test
    void quickStart_allTenTasksRun() throws Exception {
        assumeTrue(closeUnbindsTheCallingThread(),
                "this fiber-core's close() rejects a still-bound thread: the README's quick start needs the"
                        + " fiber-core change that makes close() unbind the calling thread first");
        String out = assertTimeoutPreemptively(LIMIT, () -> Output.of(() -> QuickStart.main(new String[0])));
        Set<String> lines = new TreeSet<>(Arrays.asList(out.strip().split("\\R")));
        Set<String> expected = new TreeSet<>();
        for (int i = 0; i < 10; i++) {
            expected.add("task " + i);
        }
        assertEquals(expected, lines);
    }

    @Test
    void awaitFutures_printsTheReportWithTheTimedOutAdvice_andCancelsTheStuckTask() throws Exception {
        String out = assertTimeoutPreemptively(LIMIT, () -> Output.of(() -> AwaitFutures.main(new String[0])));
        assertEquals("user42: orders and visits [6, 7], advice: none in time\ngave up after 50 ms", out.strip());
    }

    @Test
    void micrometerExample_printsTheTasksItsRegistryCounted() throws Exception {
        String out = assertTimeoutPreemptively(LIMIT, () -> Output.of(() -> MicrometerExample.main(new String[0])));
        assertEquals("marl4j.tasks.started{name=marl} = 1000", out.strip());
    }

    @Test
    void reactorWideExample_ticksOnMarlsFibersAndResetsTheFactory() throws Exception {
        String out = assertTimeoutPreemptively(LIMIT, () -> Output.of(() -> ReactorWideExample.main(new String[0])));
        assertEquals("interval ticks on marl4j fibers: [true, true, true]", out.strip());
    }

    @Test
    void awaitWithCallback_printsWhatArrivedAfterTheFiberSuspended() throws Exception {
        String out = assertTimeoutPreemptively(LIMIT, () -> Output.of(() -> AwaitWithCallback.main(new String[0])));
        assertEquals("arrived", out.strip());
    }

    @Test
    void executorHttpServer_servesTheRequestAndStops() throws Exception {
        String out = assertTimeoutPreemptively(LIMIT, () -> Output.of(() -> ExecutorHttpServer.main(new String[0])));
        assertEquals("n = 42\nhello from /marl4j", out.strip().replace("\r\n", "\n"));
    }

    @Test
    void blockingDropIn_everyRequestReadsBackItsOwnId() throws Exception {
        String out = assertTimeoutPreemptively(LIMIT, () -> Output.of(() -> BlockingDropIn.main(new String[0])));
        assertEquals("1000 of 1000 requests read back their own id (" + FiberEngine.defaultEngine() + ")", out.strip());
    }

    @Test
    void helloTask_everyTaskSaysHello() throws Exception {
        String out = assertTimeoutPreemptively(LIMIT, () -> Output.of(() -> HelloTask.main(new String[0])));
        for (int i = 0; i < 10; i++) {
            assertTrue(out.contains("Hello from task " + i + "!"), out);
        }
        assertTrue(out.strip().endsWith("All tasks said hello."), out);
    }

    @Test
    void tasksInTasks_parentWaitsForItsChildren() throws Exception {
        String out = assertTimeoutPreemptively(LIMIT, () -> Output.of(() -> TasksInTasks.main(new String[0])));
        assertTrue(out.indexOf("Hello from task D") < out.indexOf("Task A: B, C and D are done"), out);
        assertTrue(out.strip().endsWith("All tasks done."), out);
    }

    @Test
    void kotlinExample_printsWhatEachOfItsReadmeBlocksSays() throws Exception {
        String out = assertTimeoutPreemptively(LIMIT, () -> Output.of(KotlinExampleKt::main));
        assertEquals(String.join("\n",
                "Sum of squares: 385",
                "The waiting coroutine was released",
                "No reply within 50 ms",
                "Hello from a coroutine, called from a fiber",
                "Gave up waiting: Timed out waiting for 20 ms",
                "Done."), out.strip().replace("\r\n", "\n"));
    }

    /**
     * closeUnbindsTheCallingThread probes whether close() on a bound thread unbinds it (the safe
     * try-with-resources shape), leaving the thread unbound and the scheduler closed either way.
     */
    private static boolean closeUnbindsTheCallingThread() {
        Scheduler scheduler = new Scheduler(new Scheduler.Config().setWorkerThreadCount(0));
        scheduler.bind();
        try {
            scheduler.close();
            return true;
        } catch (IllegalStateException stillBound) {
            scheduler.unbind();
            scheduler.close();
            return false;
        }
    }
}
