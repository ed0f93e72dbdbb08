package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TaskErrors.LONG;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** A scheduling policy that throws, or that is shared, never leaves a worker locked, dead or losing work. */
class SchedulingPolicyFailureTest {
    static final Runnable POISON = () -> {};
    /** A task whose enqueued() makes the policy enqueue another task, against its contract. */
    static final Runnable REENTER = () -> {};

    /** FIFO, but refuses the POISON task from enqueued(), and throws once from pickNextTask() or awakened() when asked. */
    static final class Refusing extends ForwardingPolicy {
        static final AtomicBoolean THROW_ON_PICK = new AtomicBoolean();
        static final AtomicBoolean THROW_ON_AWAKENED = new AtomicBoolean();
        static final AtomicBoolean ALWAYS_THROW_ON_PICK = new AtomicBoolean();
        static final AtomicInteger PICK_THROWS = new AtomicInteger();

        @Override
        public void awakened(Fiber fiber) {
            if (THROW_ON_AWAKENED.compareAndSet(true, false)) {
                throw new IllegalStateException("policy failed once in awakened");
            }
            super.awakened(fiber);
        }

        /** The scheduler whose enqueue the policy calls, once, from its next pickNextTask() or enqueued(REENTER). */
        static final AtomicReference<Scheduler> ENQUEUE_INTO = new AtomicReference<>();

        @Override
        public void enqueued(Task task) {
            if (task.toString().contains(String.valueOf(POISON))) {
                throw new IllegalArgumentException("policy refuses the poison task");
            }
            if (task.toString().contains(String.valueOf(REENTER))) {
                enqueueAgainstTheContract();
            }
            super.enqueued(task);
        }

        private static void enqueueAgainstTheContract() {
            Scheduler scheduler = ENQUEUE_INTO.getAndSet(null);
            if (scheduler != null) {
                scheduler.enqueue(new Task(() -> {}));
            }
        }

        @Override
        public Task pickNextTask() {
            enqueueAgainstTheContract();
            if (THROW_ON_PICK.compareAndSet(true, false)) {
                throw new IllegalStateException("policy failed once in pickNextTask");
            }
            if (ALWAYS_THROW_ON_PICK.get()) {
                PICK_THROWS.incrementAndGet();
                throw new IllegalStateException("policy fails every time in pickNextTask");
            }
            return super.pickNextTask();
        }
    }

    @ForEachWorkerCount
    void enqueuedThatThrows_failsThatEnqueue_andTheWorkerKeepsRunning(int workers) {
        TaskErrors errors = new TaskErrors();
        AtomicInteger ran = new AtomicInteger();
        TestSchedulers.withBoundScheduler(errors.config(workers).setSchedulingPolicy(Refusing::new), scheduler -> {
            for (int round = 0; round < 3; round++) {
                IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                        () -> scheduler.enqueue(new Task(POISON)));
                assertTrue(refused.getMessage().contains("poison"), refused.getMessage());
                WaitGroup done = enqueueCounted(scheduler, 10, ran);
                done.await(); // hung forever when the failed enqueue left the worker's lock held
            }
        });
        assertEquals(30, ran.get());
        errors.assertNone();
    }

    @ParameterizedTest1to8
    void awakenedThatThrowsForAFiberWokenFromAnotherThread_losesNoFiber(int workers) {
        TaskErrors errors = new TaskErrors();
        try (Scheduler scheduler = new Scheduler(errors.config(workers).setSchedulingPolicy(Refusing::new))) {
            Event go = new Event(Event.Mode.MANUAL);
            WaitGroup resumed = new WaitGroup(1);
            scheduler.enqueue(new Task(() -> {
                go.await(); // untimed: no deadline would bring it back
                resumed.done();
            }));
            org.awaitility.Awaitility.await().atMost(TaskErrors.LONG).until(() -> scheduler.stats().fibersBlocked() == 1);
            Refusing.THROW_ON_AWAKENED.set(true);
            go.signal(); // from this thread: the wake goes through the worker's inbox
            assertTrue(resumed.await(TaskErrors.LONG), "the fiber whose wake the policy refused was lost");
        } finally {
            Refusing.THROW_ON_AWAKENED.set(false);
        }
        assertTrue(errors.errors().stream().anyMatch(e -> String.valueOf(e.getMessage()).contains("failed once in awakened")),
                "the policy's error was reported: " + errors.errors());
    }

    @ForEachWorkerCount
    void awakenedThatThrowsForAFiberWokenOnItsOwnThread_losesNoFiber(int workers) {
        // A wake from the fiber's own worker thread runs the policy at once, under the worker's lock;
        // when awakened() threw there, the fiber stayed suspended with its wake spent, and an untimed
        // wait never ended (close() then waited for it for ever).
        TaskErrors errors = new TaskErrors();
        Scheduler scheduler = new Scheduler(errors.config(workers).setSchedulingPolicy(Refusing::new));
        try {
            if (workers == 0) {
                scheduler.bind(); // close() unbinds
            }
            boolean resumed = TestSchedulers.runOnFiber(scheduler, () -> {
                Event go = new Event(Event.Mode.MANUAL);
                WaitGroup resumedWaiter = new WaitGroup(1);
                AtomicBoolean waiting = new AtomicBoolean();
                Scheduler.get().enqueue(new Task(() -> {
                    waiting.set(true);
                    go.await(); // untimed: no deadline would bring it back
                    resumedWaiter.done();
                }, Task.Flag.SAME_THREAD));
                while (!waiting.get()) {
                    Fiber.yield(); // same thread: once it has set the flag, it is suspended in await
                }
                Refusing.THROW_ON_AWAKENED.set(true);
                IllegalStateException refused = assertThrows(IllegalStateException.class, go::signal);
                assertTrue(refused.getMessage().contains("failed once in awakened"), refused.getMessage());
                return resumedWaiter.await(java.time.Duration.ofSeconds(10)); // within runOnFiber's patience
            });
            assertTrue(resumed, "the fiber whose wake the policy refused was lost");
        } finally {
            Refusing.THROW_ON_AWAKENED.set(false);
            scheduler.close(java.time.Duration.ofSeconds(1)); // cancels a lost fiber instead of hanging
        }
        errors.assertNone();
    }

    @ParameterizedTest1to8
    void anInternalErrorInAWorker_isReported_andItsQueuedTasksStillRun(int workers) {
        TaskErrors errors = new TaskErrors();
        AtomicInteger ran = new AtomicInteger();
        try (Scheduler scheduler = new Scheduler(errors.config(workers).setSchedulingPolicy(Refusing::new))) {
            Refusing.THROW_ON_PICK.set(true);
            WaitGroup done = enqueueCounted(scheduler, 50, ran);
            done.await();
        } finally {
            Refusing.THROW_ON_PICK.set(false);
        }
        assertEquals(50, ran.get(), "no task was lost");
        assertTrue(errors.errors().stream().anyMatch(e -> String.valueOf(e.getMessage()).contains("failed once")),
                "the internal error was reported: " + errors.errors());
    }

    /**
     * An internal error is most often an OutOfMemoryError, and reporting one allocates: here the
     * logger and the handler both fail as they would on a full heap. The worker must not die of it
     * with its queued tasks stranded.
     */
    @ParameterizedTest1to8
    void anInternalErrorWhoseReportFailsToo_stillLeavesTheWorkerRunningItsQueuedTasks(int workers) {
        AtomicInteger ran = new AtomicInteger();
        AtomicInteger reportsRefused = new AtomicInteger();
        Logger logger = Logger.getLogger(Scheduler.class.getName());
        Handler failingLog = new Handler() {
            @Override
            public void publish(LogRecord record) {
                reportsRefused.incrementAndGet();
                throw new OutOfMemoryError("simulated: no heap left to log with");
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        logger.addHandler(failingLog);
        Scheduler.Config config = new Scheduler.Config().setWorkerThreadCount(workers)
                .setSchedulingPolicy(Refusing::new)
                .setUncaughtExceptionHandler((thread, e) -> {
                    throw new OutOfMemoryError("simulated: no heap left to report with");
                });
        try (Scheduler scheduler = new Scheduler(config)) {
            Refusing.THROW_ON_PICK.set(true);
            WaitGroup done = enqueueCounted(scheduler, 50, ran);
            assertTrue(done.await(LONG), "only " + ran.get() + " of 50 tasks ran: a worker died of its failed report");
        } finally {
            Refusing.THROW_ON_PICK.set(false);
            logger.removeHandler(failingLog);
        }
        assertEquals(50, ran.get(), "no task was lost");
        assertTrue(reportsRefused.get() >= 1, "the report was attempted, and failed");
    }

    @Test
    void aPolicyThatEnqueuesFromEnqueued_failsThatEnqueue_insteadOfHangingTheCaller() {
        // With 0 workers the bound thread waited for its own worker's lock; with 1 it retried the
        // one worker's tryLock forever. (With more, the task may simply land on another worker.)
        for (int workers : new int[] {0, 1}) {
            TaskErrors errors = new TaskErrors();
            AtomicInteger ran = new AtomicInteger();
            assertTimeoutPreemptively(LONG, () -> TestSchedulers.withBoundScheduler(
                    errors.config(workers).setSchedulingPolicy(Refusing::new), scheduler -> {
                        Refusing.ENQUEUE_INTO.set(scheduler);
                        IllegalStateException refused = assertThrows(IllegalStateException.class,
                                () -> scheduler.enqueue(new Task(REENTER)));
                        assertTrue(refused.getMessage().contains("SchedulingPolicy callback")
                                && refused.getMessage().contains("enqueue follow-up work from a task"), refused.getMessage());
                        WaitGroup done = enqueueCounted(scheduler, 1, ran);
                        done.await(); // the worker's lock was released: it goes on
                    }), workers + " workers hung");
            assertEquals(1, ran.get());
            errors.assertNone();
        }
    }

    @ParameterizedTest1to8
    void aPolicyThatEnqueuesFromItsWorkersLoop_isReportedAsAPolicyError_andTheWorkerGoesOn(int workers) {
        TaskErrors errors = new TaskErrors();
        AtomicInteger ran = new AtomicInteger();
        assertTimeoutPreemptively(LONG, () -> {
            try (Scheduler scheduler = new Scheduler(errors.config(workers).setSchedulingPolicy(Refusing::new))) {
                // The next pickNextTask() of any worker enqueues from under that worker's lock: on the worker
                // thread, the task went to the worker's own queue, whose lock it held (a spin forever at 1
                // worker; with more, it landed elsewhere by luck).
                Refusing.ENQUEUE_INTO.set(scheduler);
                WaitGroup done = enqueueCounted(scheduler, 20, ran);
                done.await();
            } finally {
                Refusing.ENQUEUE_INTO.set(null);
            }
        }, workers + " workers hung");
        assertEquals(20, ran.get(), "no task was lost");
        assertTrue(errors.errors().stream().anyMatch(e -> e instanceof IllegalStateException
                && e.getMessage().contains("SchedulingPolicy callback")), "the policy's misuse was reported: " + errors.errors());
    }

    @Test
    void aPolicyThatAlwaysThrows_isReportedOnceABurst_notOnEveryTurnOfTheLoop() {
        TaskErrors errors = new TaskErrors();
        Refusing.PICK_THROWS.set(0);
        try (LogCapture log = LogCapture.of(Scheduler.class);
                Scheduler scheduler = new Scheduler(errors.config(1).setSchedulingPolicy(Refusing::new))) {
            WaitGroup done = new WaitGroup(1);
            Refusing.ALWAYS_THROW_ON_PICK.set(true);
            try {
                scheduler.enqueue(new Task(done::done));
                await().atMost(LONG).until(() -> Refusing.PICK_THROWS.get() >= 2_000);
            } finally {
                Refusing.ALWAYS_THROW_ON_PICK.set(false);
            }
            done.await(); // the worker went on: its task runs once the policy recovers
            long logged = log.lines().stream().filter(l -> l.contains("fails every time") || l.contains("error in the loop"))
                    .count();
            assertTrue(logged >= 1 && logged <= 2, "logged " + logged + " times for " + Refusing.PICK_THROWS.get()
                    + " errors: " + log.lines());
            assertTrue(errors.errors().size() >= 1 && errors.errors().size() <= 2,
                    "the handler heard " + errors.errors().size() + " of " + Refusing.PICK_THROWS.get() + " errors");
        }
    }

    @Test
    void aFactoryReturningOneSharedInstance_isRefusedAtConstruction() {
        for (int workers : new int[] {0, 1, 2, 4}) {
            SchedulingPolicy shared = new FifoPolicy();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new Scheduler(TestSchedulers.config(workers).setSchedulingPolicy(() -> shared)));
            assertTrue(e.getMessage().contains("own instance"), e.getMessage());
        }
        // A factory that makes a new policy each time is fine, including for bound threads.
        TestSchedulers.withBoundScheduler(TestSchedulers.config(2).setSchedulingPolicy(FifoPolicy::new),
                scheduler -> assertSame(scheduler, Scheduler.get()));
    }

    /** enqueueCounted(scheduler, tasks, ran) enqueues tasks that each count themselves in ran; the group they count down. */
    private static WaitGroup enqueueCounted(Scheduler scheduler, int tasks, AtomicInteger ran) {
        WaitGroup done = new WaitGroup(tasks);
        for (int i = 0; i < tasks; i++) {
            scheduler.enqueue(new Task(() -> {
                ran.incrementAndGet();
                done.done();
            }));
        }
        return done;
    }
}
