package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JFR events org.marl4j.TaskRun and org.marl4j.FiberSuspend appear in a recording made here. */
class JfrEventsTest {
    private static final int TASKS = 20;

    @TempDir
    Path dir;

    @Test
    void withNoRecording_tasksAndSuspendsLoadNeitherTheEventClassesNorJfr() throws Exception {
        // In a child JVM: this one has had recordings. Loading an event class sets up JFR, which
        // delayed a new scheduler's first task by 130-340 ms.
        ChildJvm.Result result = ChildJvm.run(ChildJvm.addExports("-Xlog:class+load=info"), JfrOffProbe.class);
        String output = result.output();
        assertEquals(0, result.exitCode(), output);
        assertTrue(output.contains("probe done") && output.contains("org.marl4j.Worker "), output);
        List<String> jfr = output.lines().filter(line -> line.contains("jdk.jfr.") || line.contains("org.marl4j.TaskRunEvent")
                || line.contains("org.marl4j.FiberSuspendEvent") || line.contains("org.marl4j.WorkerEvent")).toList();
        assertTrue(jfr.stream().allMatch(line -> line.contains("jdk.jfr.FlightRecorder ")), String.join("\n", jfr));
    }

    @ForEachWorkerCount
    void taskRunAndFiberSuspend_areRecordedWithTheirWorkerAndScheduler(int workers) {
        // First without a recording: the event classes load, and the worker's guards run, while JFR is off.
        TestSchedulers.withBoundScheduler(workers, scheduler -> blockAndRelease());
        Recording recording = new Recording();
        recording.enable("org.marl4j.TaskRun").withoutThreshold();
        recording.enable("org.marl4j.FiberSuspend").withoutThreshold();
        List<RecordedEvent> events = record(recording, dir.resolve("events.jfr"), workers);

        List<RecordedEvent> runs = ofType(events, "org.marl4j.TaskRun");
        List<RecordedEvent> suspends = ofType(events, "org.marl4j.FiberSuspend");
        assertEquals(TASKS, runs.size(), "one TaskRun event per task");
        assertTrue(runs.stream().anyMatch(e -> e.getString("task").contains(JfrEventsTest.class.getName())), runs.toString());
        // Every task blocks once, and the bound thread blocks too: at least one suspend per task.
        assertTrue(suspends.size() >= TASKS, "FiberSuspend events: " + suspends.size());
        assertTrue(suspends.stream().anyMatch(e -> e.getBoolean("timed")), "a timed wait was recorded");
        assertTrue(suspends.stream().anyMatch(e -> !e.getBoolean("timed")), "an untimed wait was recorded");
        String engine = FiberEngine.defaultEngine().name(); // record() makes its scheduler with the default
        for (RecordedEvent e : events) {
            int worker = e.getInt("workerId");
            assertTrue(workers == 0 ? worker == -1 : worker >= -1 && worker < workers, e.toString());
            assertEquals(engine, e.getString("fiberEngine"), e.toString());
            assertFalse(e.getDuration().isNegative(), e.toString());
            assertTrue(e.getThread() != null && e.getThread().getJavaName() != null, e.toString());
        }
        // A suspend's stack trace is where the fiber waited: the primitive, then the user's own frame.
        assertTrue(suspends.stream().allMatch(e -> e.getStackTrace() != null && e.getStackTrace().getFrames().stream()
                .anyMatch(f -> isType(f, Event.class) || isType(f, WaitGroup.class))), "stack of a wait");
        assertTrue(suspends.stream().anyMatch(e -> e.getStackTrace().getFrames().stream()
                .anyMatch(f -> f.getMethod().getType().getName().startsWith(JfrEventsTest.class.getName()))),
                "the user's frame follows");
    }

    /**
     * Neither per-task nor per-wait events are in a default recording: a service whose fibers often
     * wait longer than 20 ms would pay a stack trace on each wait under any continuous recording.
     */
    @Test
    void taskRunAndFiberSuspend_areOffInTheDefaultConfiguration() {
        List<RecordedEvent> events = record(defaultRecording(), dir.resolve("default.jfr"), 2);
        assertEquals(List.of(), ofType(events, "org.marl4j.TaskRun"));
        assertEquals(List.of(), ofType(events, "org.marl4j.FiberSuspend"));
    }

    /** blockAndRelease() runs TASKS tasks that each suspend (half with a timeout) until the bound thread releases them. */
    private static void blockAndRelease() {
        Event release = new Event(Event.Mode.MANUAL);
        WaitGroup started = new WaitGroup(TASKS);
        WaitGroup finished = new WaitGroup(TASKS);
        for (int i = 0; i < TASKS; i++) {
            boolean timed = i % 2 == 0;
            Marl.schedule(() -> {
                started.done();
                if (timed) {
                    release.await(Duration.ofMinutes(5));
                } else {
                    release.await();
                }
                finished.done();
            });
        }
        started.await();
        // Release only once every task has suspended, so each records a FiberSuspend event.
        Scheduler scheduler = Scheduler.get();
        await().atMost(Duration.ofSeconds(30)).until(() -> scheduler.suspendedFibers().size() == TASKS);
        release.signal();
        finished.await();
    }

    /**
     * record(recording, file, workers) runs blockAndRelease() on a new scheduler under the recording
     * and returns that scheduler's marl4j events. The recording outlives the scheduler: a TaskRun
     * event is committed after the task's last line, so only close() (which joins the workers)
     * guarantees that every one is in.
     */
    private static List<RecordedEvent> record(Recording recording, Path file, int workers) {
        AtomicReference<String> name = new AtomicReference<>();
        try (recording) {
            recording.start();
            TestSchedulers.withBoundScheduler(workers, scheduler -> {
                name.set(WorkerEvent.schedulerName(scheduler));
                blockAndRelease();
            });
            recording.stop();
            recording.dump(file);
            return RecordingFile.readAllEvents(file).stream()
                    .filter(e -> e.getEventType().getName().startsWith("org.marl4j."))
                    .filter(e -> name.get().equals(e.getString("scheduler")))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** defaultRecording() is a recording with the JDK's default.jfc settings, as -XX:StartFlightRecording uses. */
    private static Recording defaultRecording() {
        try {
            return new Recording(Configuration.getConfiguration("default"));
        } catch (IOException | ParseException e) {
            throw new AssertionError(e);
        }
    }

    private static boolean isType(RecordedFrame frame, Class<?> type) {
        return frame.getMethod().getType().getName().equals(type.getName());
    }

    private static List<RecordedEvent> ofType(List<RecordedEvent> events, String type) {
        return events.stream().filter(e -> e.getEventType().getName().equals(type)).toList();
    }
}
