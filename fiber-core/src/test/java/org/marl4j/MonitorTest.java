package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.marl4j.TaskErrors.LONG;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * No task is stranded behind a worker whose thread a task blocks while another worker is idle,
 * whatever the spin duration; and a task holding its thread is reported (stats and JFR). The tasks
 * here hold their thread with plain blocking calls, so the schedulers use the continuation engine,
 * on which such a call holds the worker; on the virtual-thread engine only a pinned fiber does
 * (VirtualThreadPinnedTest).
 */
class MonitorTest {
    @TempDir
    Path dir;

    /**
     * A task blocks its worker thread on a plain latch until many quick tasks, enqueued from it,
     * have all run. Some land on its own (blocked) worker: only an idle worker taking them ends
     * the wait. Before the monitor, with no spinning they were stranded for good.
     */
    @ParameterizedTest(name = "{0} worker threads, spin {1} ms")
    @org.junit.jupiter.params.provider.CsvSource({"2, 0", "2, 1", "4, 0", "4, 1", "8, 0", "64, 0"})
    void tasksQueuedBehindABlockedWorker_areRunByIdleWorkers(int workers, int spinMillis) {
        TaskErrors errors = new TaskErrors();
        Scheduler.Config config = errors.config(workers).setFiberEngine(FiberEngine.CONTINUATIONS).setSpinDuration(Duration.ofMillis(spinMillis));
        int quick = 8 * workers;
        CountDownLatch ran = new CountDownLatch(quick);
        AtomicInteger released = new AtomicInteger();
        try (Scheduler scheduler = new Scheduler(config)) {
            CountDownLatch blockerDone = new CountDownLatch(1);
            scheduler.enqueue(new Task(() -> {
                for (int i = 0; i < quick; i++) {
                    scheduler.enqueue(new Task(ran::countDown));
                }
                try {
                    if (ran.await(LONG.toMillis(), TimeUnit.MILLISECONDS)) { // blocks the worker thread
                        released.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                blockerDone.countDown();
            }));
            await().atMost(LONG.plusSeconds(5)).until(() -> blockerDone.getCount() == 0);
        }
        assertEquals(1, released.get(), "tasks stayed stranded behind the blocked worker");
        errors.assertNone();
    }

    /**
     * A worker woken from its sleep by an enqueue has not started the task yet when the monitor,
     * woken by the same wake-up, takes its first sample: that worker is not stalled, and no idle
     * worker is sent to steal from it (it was, on nearly every such wake).
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {2, 4})
    void aWorkerJustWokenByAnEnqueue_isNotTakenForStalled(int workers) {
        TaskErrors errors = new TaskErrors();
        Scheduler.Config config = errors.config(workers).setFiberEngine(FiberEngine.CONTINUATIONS).setSpinDuration(Duration.ZERO);
        int rounds = 200;
        try (Scheduler scheduler = new Scheduler(config)) {
            Worker target = scheduler.worker(0);
            await().atMost(LONG).until(() -> allAsleep(scheduler, workers));
            long othersSleeps = sleepsOfAllBut(scheduler, workers, target);
            for (int round = 0; round < rounds; round++) {
                CountDownLatch ran = new CountDownLatch(1);
                target.work.enqueue(new Task(ran::countDown), target);
                await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(LONG)
                        .until(() -> ran.getCount() == 0 && allAsleep(scheduler, workers));
            }
            long wakes = sleepsOfAllBut(scheduler, workers, target) - othersSleeps;
            assertTrue(wakes < rounds / 10, "other workers were woken " + wakes + " times for " + rounds
                    + " tasks that worker 0 ran at once");
        }
        errors.assertNone();
    }

    private static boolean allAsleep(Scheduler scheduler, int workers) {
        for (int i = 0; i < workers; i++) {
            if (scheduler.worker(i).work.activity() != Work.IDLE) {
                return false;
            }
        }
        return true;
    }

    private static long sleepsOfAllBut(Scheduler scheduler, int workers, Worker excluded) {
        long sleeps = 0;
        for (int i = 0; i < workers; i++) {
            Worker w = scheduler.worker(i);
            sleeps += w == excluded ? 0 : w.stats.idleSleeps;
        }
        return sleeps;
    }

    @Test
    void aBlockingTaskThresholdTooLongForNanoseconds_isAccepted() {
        Scheduler.Config config = TestSchedulers.config(1).setFiberEngine(FiberEngine.CONTINUATIONS).setBlockingTaskThreshold(Duration.ofSeconds(Long.MAX_VALUE));
        try (Scheduler scheduler = new Scheduler(config)) { // it threw ArithmeticException here
            WaitGroup ran = new WaitGroup(1);
            scheduler.enqueue(new Task(ran::done));
            ran.await();
            assertEquals(Duration.ofSeconds(Long.MAX_VALUE), config.getBlockingTaskThreshold());
        }
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void aTaskHoldingItsThread_isCounted_andRecordedInJfrWithItsStack(int workers) throws Exception {
        Scheduler.Config config = TestSchedulers.config(workers).setFiberEngine(FiberEngine.CONTINUATIONS).setBlockingTaskThreshold(Duration.ofMillis(20));
        Path file = dir.resolve("blocking-" + workers + ".jfr");
        // Load the suspend path's classes (the FiberSuspend event's among them) before recording: their
        // first use holds the thread inside Fiber.sleep, which a loaded machine stretches past 20 ms.
        TestSchedulers.withScheduler(1, warm -> {
            WaitGroup slept = new WaitGroup(1);
            warm.enqueue(new Task(() -> {
                Fiber.sleep(Duration.ofMillis(1));
                slept.done();
            }));
            slept.await();
        });
        // Likewise marl4j's event classes: the first task run under a recording initialises
        // TaskRunEvent, whose registration with JFR can hold the worker past 20 ms, and the monitor
        // would report that hold, with that stack, as this task's.
        for (Class<?> event : List.of(TaskRunEvent.class, TaskBlockingEvent.class, FiberSuspendEvent.class, WorkerEvent.class)) {
            initialise(event);
        }
        try (Recording recording = new Recording()) {
            recording.enable("org.marl4j.TaskBlocking");
            recording.start();
            try (Scheduler scheduler = new Scheduler(config)) {
                CountDownLatch release = new CountDownLatch(1);
                scheduler.enqueue(new Task(() -> blockOn(release)));
                await().atMost(LONG).until(() -> scheduler.stats().tasksBlocking() >= 1);
                release.countDown();
                // A task that suspends (a fiber sleep) is not holding its thread.
                WaitGroup sleeping = new WaitGroup(1);
                scheduler.enqueue(new Task(() -> {
                    Fiber.sleep(Duration.ofMillis(100));
                    sleeping.done();
                }));
                sleeping.await();
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("org.marl4j.TaskBlocking")).toList();
        // At least the latch wait; a cold JVM's first continuation may also hold the thread past 20 ms.
        RecordedEvent event = events.stream().filter(e -> e.getString("workerStack").contains("blockOn"))
                .findFirst().orElseThrow(() -> new AssertionError("no event for the blocking task: " + events));
        assertTrue(event.getString("workerStack").contains("blockOn"), event.getString("workerStack"));
        // A suspended fiber does not hold its thread: never reported in its sleep. (No count is
        // asserted: on a loaded machine a descheduled worker may look held for 20 ms too.) JFR's own
        // work for the FiberSuspend event (its class's registration on first use, the stack walk of
        // the commit) runs on the fiber before it yields or after it resumes, so it may: skip it.
        assertTrue(events.stream().map(e -> e.getString("workerStack"))
                .noneMatch(stack -> stack.contains("Fiber.sleep") && !stack.contains("FiberSuspendEvent")), events.toString());
        assertTrue(event.getDuration("heldFor").compareTo(Duration.ofMillis(20)) >= 0, event.toString());
        assertTrue(event.getString("workerThread").startsWith(config.getThreadNamePrefix()), event.toString());
    }

    /** holdThreadUntil(latch) blocks the thread until latch opens, or for twice the test's patience. */
    private static void holdThreadUntil(CountDownLatch latch) {
        try {
            latch.await(2 * LONG.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static void blockOn(CountDownLatch latch) {
        try {
            assumeTrue(latch.await(LONG.toMillis(), TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aTaskHoldingTheOnlyWorker_whileWorkWaitsBehindIt_isLoggedWithItsStack() {
        onOneWorkerWarnedOfSoon((scheduler, log, release) -> {
            scheduler.enqueue(new Task(() -> blockOn(release))); // holds the only worker's thread
            scheduler.enqueue(new Task(() -> {}));                 // and this waits behind it
            await().atMost(LONG).until(() -> log.contains("WARNING", "has run one task", "blockOn"));
        });
    }

    @Test
    void aWorkerBlockedEnteringAMonitor_isLoggedWithTheLikelyCause_aFiberThatWaitedInsideIt() throws Exception {
        // In a child JVM: the worker thread stays blocked for good.
        ChildJvm.Result result = ChildJvm.run(ChildJvm.addExports(), MonitorBlockedProbe.class);
        String output = result.output();
        assertTrue(output.contains("warned"), output);
        assertTrue(output.contains("The thread is BLOCKED entering a monitor: if a fiber waited")
                && output.contains("-Dorg.marl4j.checkLocks=true"), output);
        assertFalse(output.contains("entered"), output);
    }

    @Test
    void aTaskHoldingTheOnlyWorker_whileAFiberWokenFromAnotherThreadWaitsBehindIt_isLogged() {
        onOneWorkerWarnedOfSoon((scheduler, log, release) -> {
            Event go = new Event(Event.Mode.MANUAL);
            scheduler.enqueue(new Task(go::await));
            await().atMost(LONG).until(() -> scheduler.stats().fibersBlocked() == 1);
            scheduler.enqueue(new Task(() -> holdThreadUntil(release))); // holds the only worker's thread
            await().atMost(LONG).until(() -> scheduler.worker(0).work.activity() == Work.ACTIVE
                    && scheduler.worker(0).work.queued() == 0);
            go.signal(); // from this thread: the woken fiber waits in the worker's inbox
            await().atMost(LONG).until(() -> log.contains("WARNING", "has run one task", "holdThreadUntil"));
        });
    }

    /** A test of the stranded-work warning, given the scheduler, the log and the latch its blocking task waits for. */
    @FunctionalInterface
    private interface StrandedWarningBody {
        void run(Scheduler scheduler, LogCapture log, CountDownLatch release);
    }

    /**
     * onOneWorkerWarnedOfSoon(body) runs body with a one-worker scheduler whose monitor warns of
     * stranded work after 50 ms and the scheduler's log captured; then it opens release, so that
     * the blocking task ends.
     */
    private static void onOneWorkerWarnedOfSoon(StrandedWarningBody body) {
        Scheduler.Config config = TestSchedulers.config(1).setFiberEngine(FiberEngine.CONTINUATIONS);
        config.strandedWarningAfter = Duration.ofMillis(50);
        CountDownLatch release = new CountDownLatch(1);
        try (LogCapture log = LogCapture.of(Scheduler.class); Scheduler scheduler = new Scheduler(config)) {
            try {
                body.run(scheduler, log, release);
            } finally {
                release.countDown();
            }
        }
    }

    /** A FIFO policy that refuses tasks handed to it on the monitor thread. */
    static final class RefusesOnTheMonitor extends ForwardingPolicy {
        @Override
        public void enqueued(Task task) {
            if (Thread.currentThread().getName().endsWith("monitor")) {
                throw new IllegalStateException("policy refuses on the monitor");
            }
            super.enqueued(task);
        }
    }

    @Test
    void aPolicyThatThrowsForTheMonitor_isReported_andTheMonitorGoesOn() throws Exception {
        TaskErrors errors = new TaskErrors();
        Scheduler.Config config = errors.config(2).setFiberEngine(FiberEngine.CONTINUATIONS).setSchedulingPolicy(RefusesOnTheMonitor::new);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger delayedRan = new AtomicInteger();
        try (Scheduler scheduler = new Scheduler(config)) {
            scheduler.enqueue(new Task(() -> {
                scheduler.enqueue(new Task(delayedRan::incrementAndGet), Duration.ofMillis(5)); // on this worker
                holdThreadUntil(release);
            }));
            await().atMost(LONG).until(() -> !errors.errors().isEmpty());
            assertTrue(errors.errors().get(0).getMessage().contains("policy refuses on the monitor"), errors.errors().toString());
            String monitorName = config.getThreadNamePrefix() + "monitor";
            assertTrue(Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(monitorName)),
                    "the monitor thread died");
            release.countDown();
            await().atMost(LONG).until(() -> delayedRan.get() == 1); // its owner files it once free
        }
    }

    @Test
    void aWorkerThatHasJustStarted_isNotTakenForAStalledOne_byTheMonitorsFirstSample() {
        try (Scheduler scheduler = new Scheduler(TestSchedulers.config(0).setFiberEngine(FiberEngine.CONTINUATIONS));
                LogCapture log = LogCapture.of(Scheduler.class)) {
            // Active, no task begun yet, a task queued: a worker whose thread has just started.
            Worker starting = new Worker(scheduler, 0, Worker.Mode.MULTI_THREADED, false);
            starting.work.setActivity(Work.ACTIVE);
            starting.work.enqueue(new Task(() -> { }), starting);
            Monitor monitor = new Monitor(scheduler, new Worker[] {starting}, 1, Duration.ofSeconds(5).toNanos(), "test-monitor");
            long start = System.nanoTime();
            monitor.check(start);
            assertEquals(0, starting.stats.tasksBlocking, "the first sample is a baseline, not a stall since time 0");
            assertTrue(log.lines().isEmpty(), log::toString);
            monitor.check(start + Monitor.CHECK_NANOS); // no progress since the baseline: now a stall
            assertEquals(1, starting.stats.tasksBlocking);
        }
    }

    private static void initialise(Class<?> type) {
        try {
            Class.forName(type.getName(), true, type.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
    }
}
