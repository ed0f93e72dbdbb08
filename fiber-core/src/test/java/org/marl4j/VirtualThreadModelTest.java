package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TestSchedulers.PATIENCE;
import static org.marl4j.VirtualThreadFixtures.awaitAll;
import static org.marl4j.VirtualThreadFixtures.awaitSignal;
import static org.marl4j.VirtualThreadFixtures.carrierName;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * marl's model on {@link FiberEngine#VIRTUAL_THREADS}: a fiber is a virtual thread, but it is still
 * carried only by its own worker thread, tasks still run inline on the current fiber, idle fibers
 * are still reused; and what the JDK now gives: a bounded close and a {@link FiberCancellation}
 * interrupt a fiber blocked in the JDK, and both marl4j's dump and the JVM's own thread dump show
 * it. Contrasts on {@link FiberEngine#CONTINUATIONS} where the engines differ.
 */
class VirtualThreadModelTest {
    private static final FiberEngine VT = FiberEngine.VIRTUAL_THREADS;

    /**
     * Every task checks, after each of its waits (a marl4j sleep, an Event another task signals, a
     * JDK sleep), that its virtual thread is carried by the same thread as before, and that this
     * is one of the scheduler's worker threads (the bound test thread with 0 workers).
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1, 2, 4})
    void virtualThreads_aFiberAlwaysResumesOnItsOwnWorkersThread(int workers) {
        TaskErrors errors = new TaskErrors();
        Set<String> workerThreads = ConcurrentHashMap.newKeySet();
        Scheduler.Config config = VirtualThreadFixtures.config(errors, VT, workers)
                .setWorkerThreadInitializer(id -> workerThreads.add(Thread.currentThread().getName()));
        Queue<String> wrong = new ConcurrentLinkedQueue<>();
        try (Scheduler scheduler = new Scheduler(config)) {
            if (workers == 0) {
                scheduler.bind();
                workerThreads.add(Thread.currentThread().getName());
            }
            int tasks = 32;
            WaitGroup done = new WaitGroup(tasks);
            for (int i = 0; i < tasks; i++) {
                scheduler.enqueue(new Task(() -> {
                    try {
                        if (!Thread.currentThread().isVirtual()) {
                            wrong.add("not a virtual thread: " + Thread.currentThread());
                        }
                        String carrier = carrierName();
                        if (!workerThreads.contains(carrier)) {
                            wrong.add(carrier + " is none of the worker threads " + workerThreads);
                        }
                        for (int round = 0; round < 6; round++) {
                            switch (round % 3) {
                                case 0 -> Fiber.sleep(Duration.ofMillis(1));
                                case 1 -> {
                                    Event signalled = new Event(Event.Mode.MANUAL);
                                    scheduler.enqueue(new Task(signalled::signal));
                                    signalled.await();
                                }
                                default -> Thread.sleep(1);
                            }
                            if (!carrier.equals(carrierName())) {
                                wrong.add("started on " + carrier + ", resumed on " + carrierName());
                            }
                        }
                    } catch (InterruptedException e) {
                        wrong.add("interrupted: " + e);
                    } finally {
                        done.done();
                    }
                }));
            }
            awaitAll(done);
        }
        errors.assertNone();
        assertEquals(List.of(), List.copyOf(wrong));
    }

    /** 10,000 tasks that never block run inline on the workers' current fibers: hardly any fiber is made. */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1, 2, 4})
    void virtualThreads_tasksThatNeverBlock_runInlineWithoutNewFibers(int workers) {
        TaskErrors errors = new TaskErrors();
        Scheduler scheduler = new Scheduler(VirtualThreadFixtures.config(errors, VT, workers));
        try (scheduler) {
            if (workers == 0) {
                scheduler.bind();
            }
            int tasks = 10_000;
            WaitGroup done = new WaitGroup(tasks);
            for (int i = 0; i < tasks; i++) {
                scheduler.enqueue(new Task(done::done));
            }
            awaitAll(done);
        }
        errors.assertNone();
        long created = scheduler.stats().fibersCreated(); // exact after close
        // One fiber per worker runs the loop; a worker that ran out of work and slept may start one more.
        assertTrue(created <= 2L * Math.max(1, workers) + 2, "fibers created for 10,000 non-blocking tasks: " + created);
    }

    /**
     * Five rounds of 20 tasks that each block (in the JDK: a latch the test opens) need 20 fibers
     * in the first round and reuse them, idle, in the next four.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1})
    void virtualThreads_idleFibersAreReused(int workers) {
        int perRound = 20;
        int rounds = 5;
        AtomicReference<Scheduler> used = new AtomicReference<>();
        VirtualThreadFixtures.withScheduler(VT, workers, scheduler -> {
            used.set(scheduler);
            for (int round = 0; round < rounds; round++) {
                CountDownLatch gate = new CountDownLatch(1);
                WaitGroup blocked = new WaitGroup(perRound);
                WaitGroup done = new WaitGroup(perRound);
                for (int i = 0; i < perRound; i++) {
                    scheduler.enqueue(new Task(() -> {
                        try {
                            blocked.done();
                            assertTrue(gate.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS));
                        } catch (InterruptedException e) {
                            throw new AssertionError(e);
                        } finally {
                            done.done();
                        }
                    }));
                }
                awaitAll(blocked);
                gate.countDown();
                awaitAll(done);
            }
        });
        long created = used.get().stats().fibersCreated();
        assertTrue(created >= perRound, "each of " + perRound + " tasks blocked at once needs a fiber: " + created);
        assertTrue(created < 2L * perRound, rounds + " rounds of " + perRound + " blocking tasks created " + created
                + " fibers: idle ones were not reused");
    }

    /** SAME_THREAD tasks run on the worker thread of the task that queued them. */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1, 2, 4})
    void virtualThreads_sameThreadTasksRunOnTheQueuingTasksWorkerThread(int workers) {
        Queue<String> wrong = new ConcurrentLinkedQueue<>();
        VirtualThreadFixtures.withScheduler(VT, workers, scheduler -> {
            int parents = 8;
            int children = 50;
            WaitGroup done = new WaitGroup(parents * (children + 1));
            for (int p = 0; p < parents; p++) {
                scheduler.enqueue(new Task(() -> {
                    String carrier = carrierName();
                    for (int c = 0; c < children; c++) {
                        scheduler.enqueue(new Task(() -> {
                            if (!carrier.equals(carrierName()) || !Thread.currentThread().isVirtual()) {
                                wrong.add("queued on " + carrier + ", ran on " + Thread.currentThread());
                            }
                            done.done();
                        }, Task.Flag.SAME_THREAD));
                    }
                    done.done();
                }));
            }
            awaitAll(done);
        });
        assertEquals(List.of(), List.copyOf(wrong));
    }

    // ---------------------------------------------------------------- interrupting a fiber blocked in the JDK

    /**
     * A bounded close interrupts a fiber blocked in a JDK call, as {@code shutdownNow()} interrupts
     * a pool's threads, so a task sleeping for an hour ends at once with InterruptedException.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1, 2, 4})
    @Timeout(120)
    void virtualThreads_aBoundedCloseInterruptsAFiberBlockedInThreadSleep(int workers) {
        assertEquals("interrupted", sleepThenCloseWithin(VT, workers, Duration.ofHours(1)));
    }

    /** The contrast: the sleep holds the worker thread; close can only wait for it to end. */
    @Test
    @Timeout(120)
    void continuations_aBoundedCloseWaitsForAFiberBlockedInThreadSleep() {
        assertEquals("slept", sleepThenCloseWithin(FiberEngine.CONTINUATIONS, 1, Duration.ofMillis(1500)));
    }

    /**
     * Once a bounded close has given up, every later wait of its fibers throws, and on this engine a
     * blocking JDK call is such a wait: a fiber whose marl4j wait the close cancelled, and that then
     * blocks in the JDK as it unwinds (a clean-up in a catch or finally block), is interrupted too,
     * rather than holding close for as long as its call lasts.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1, 2, 4})
    @Timeout(120)
    void virtualThreads_aBoundedCloseInterruptsAJdkCallThatACancelledFiberMakesAsItUnwinds(int workers) {
        TaskErrors errors = new TaskErrors();
        AtomicReference<String> outcome = new AtomicReference<>("never ran");
        Scheduler scheduler = new Scheduler(VirtualThreadFixtures.config(errors, VT, workers));
        if (workers == 0) {
            scheduler.bind();
        }
        Event waiting = new Event(Event.Mode.MANUAL);
        Event never = new Event(Event.Mode.MANUAL);
        scheduler.enqueue(new Task(() -> {
            waiting.signal();
            try {
                never.await();
                outcome.set("signalled");
            } catch (FiberCancelledException cancelled) {
                outcome.set(sleepAnHour());
            }
        }));
        awaitSignal(waiting);
        scheduler.close(Duration.ofMillis(100)); // unbinds a bound test thread first
        errors.assertNone();
        assertEquals("interrupted", outcome.get());
    }

    /**
     * The same for a fiber that was running, not waiting, when the close gave up, and blocks in the
     * JDK afterwards: {@code shutdownNow()} interrupts a pool's running threads too. (Not on a bound
     * thread: its close cannot give up while one of its tasks holds it.)
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    @Timeout(120)
    void virtualThreads_aBoundedCloseInterruptsAJdkCallThatAFiberRunningWhenItGaveUpMakesLater(int workers) {
        TaskErrors errors = new TaskErrors();
        AtomicReference<String> outcome = new AtomicReference<>("never ran");
        Scheduler scheduler = new Scheduler(VirtualThreadFixtures.config(errors, VT, workers));
        Event running = new Event(Event.Mode.MANUAL);
        scheduler.enqueue(new Task(() -> {
            running.signal();
            Work work = Worker.current().work;
            long giveUp = System.nanoTime() + PATIENCE.toNanos();
            while (!closeGaveUp(work) && System.nanoTime() - giveUp < 0) {
                Thread.onSpinWait(); // running, never suspended, until the close gives up
            }
            outcome.set(sleepAnHour());
        }));
        awaitSignal(running);
        scheduler.close(Duration.ofMillis(100));
        errors.assertNone();
        assertEquals("interrupted", outcome.get());
    }

    private static String sleepAnHour() {
        try {
            Thread.sleep(Duration.ofHours(1));
            return "slept";
        } catch (InterruptedException e) {
            return "interrupted";
        }
    }

    /** closeGaveUp(work) is whether a bounded close has cancelled the waits of that worker's fibers. */
    private static boolean closeGaveUp(Work work) {
        work.lock.lock();
        try {
            return work.waitsCancelled;
        } finally {
            work.lock.unlock();
        }
    }

    private static String sleepThenCloseWithin(FiberEngine engine, int workers, Duration sleep) {
        TaskErrors errors = new TaskErrors();
        AtomicReference<String> outcome = new AtomicReference<>("never ran");
        Scheduler scheduler = new Scheduler(VirtualThreadFixtures.config(errors, engine, workers));
        if (workers == 0) {
            scheduler.bind();
        }
        Event sleeping = new Event(Event.Mode.MANUAL);
        scheduler.enqueue(new Task(() -> {
            sleeping.signal();
            try {
                Thread.sleep(sleep);
                outcome.set("slept");
            } catch (InterruptedException e) {
                outcome.set("interrupted");
            }
        }));
        awaitSignal(sleeping);
        scheduler.close(Duration.ofMillis(100)); // unbinds a bound test thread first
        errors.assertNone();
        return outcome.get();
    }

    /**
     * {@link FiberCancellation#cancel()} from another thread interrupts the fiber's blocking JDK
     * call, as {@code Future.cancel(true)} interrupts a pool's thread.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1, 2, 4})
    void virtualThreads_cancellingAFiberInterruptsItsBlockingJdkCall(int workers) {
        assertEquals("interrupted", cancelWhileBlockedInLatch(VT, workers, PATIENCE));
    }

    /** The contrast: cancel() cancels marl4j waits only; the JDK wait runs to its timeout. */
    @Test
    void continuations_cancellingAFiberLeavesItsBlockingJdkCallAlone() {
        assertEquals("timed out", cancelWhileBlockedInLatch(FiberEngine.CONTINUATIONS, 1, Duration.ofMillis(500)));
    }

    private static String cancelWhileBlockedInLatch(FiberEngine engine, int workers, Duration limit) {
        AtomicReference<String> outcome = new AtomicReference<>("never ran");
        VirtualThreadFixtures.withScheduler(engine, workers, scheduler -> {
            AtomicReference<FiberCancellation> handle = new AtomicReference<>();
            CountDownLatch neverOpened = new CountDownLatch(1);
            Event blocking = new Event(Event.Mode.MANUAL);
            WaitGroup done = new WaitGroup(1);
            scheduler.enqueue(new Task(() -> {
                try (FiberCancellation cancellation = FiberCancellation.open()) {
                    handle.set(cancellation);
                    blocking.signal();
                    outcome.set(neverOpened.await(limit.toMillis(), TimeUnit.MILLISECONDS) ? "opened" : "timed out");
                } catch (InterruptedException e) {
                    outcome.set("interrupted");
                } finally {
                    done.done();
                }
            }));
            awaitSignal(blocking);
            TaskErrors.join(TestSchedulers.startThread("canceller", () -> handle.get().cancel()));
            awaitAll(done);
        });
        return outcome.get();
    }

    // ---------------------------------------------------------------- dumps

    /** sleepAnHour() is the frame the dumps must show. */
    private static void sleepAnHour(AtomicReference<String> outcome) {
        try {
            Thread.sleep(Duration.ofHours(1));
            outcome.set("slept");
        } catch (InterruptedException e) {
            outcome.set("interrupted"); // by the bounded close that ends the test
        }
    }

    /**
     * A fiber blocked in {@code Thread.sleep} is in {@link Scheduler#suspendedFibers()}, with the
     * sleep's frames, and in the JVM's own thread dump as the virtual thread it is.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1, 2})
    @Timeout(120)
    void virtualThreads_aFiberBlockedInThreadSleep_isInTheSuspendedFiberDumpAndTheJvmThreadDump(int workers,
            @TempDir Path dir) throws Exception {
        TaskErrors errors = new TaskErrors();
        AtomicReference<String> outcome = new AtomicReference<>("never ran");
        AtomicReference<Thread> sleeper = new AtomicReference<>();
        Scheduler scheduler = new Scheduler(VirtualThreadFixtures.config(errors, VT, workers));
        try {
            if (workers == 0) {
                scheduler.bind();
            }
            Event sleeping = new Event(Event.Mode.MANUAL);
            scheduler.enqueue(new Task(() -> {
                sleeper.set(Thread.currentThread());
                sleeping.signal();
                sleepAnHour(outcome);
            }));
            awaitSignal(sleeping);
            await().atMost(PATIENCE).until(() -> scheduler.suspendedFibers().stream().anyMatch(f -> hasFrame(f.stackTrace(),
                    Thread.class.getName(), "sleep") && hasFrame(f.stackTrace(), VirtualThreadModelTest.class.getName(), "sleepAnHour")));

            Path dump = dir.resolve("threads.json");
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                    .dumpThreads(dump.toAbsolutePath().toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON);
            String json = Files.readString(dump);
            Thread thread = sleeper.get();
            assertTrue(thread.isVirtual());
            assertTrue(json.contains("\"tid\": \"" + thread.threadId() + "\"") && json.contains("\"virtual\": true"),
                    () -> "the JVM's thread dump lists the sleeping fiber's virtual thread #" + thread.threadId());
            assertTrue(json.contains("sleepAnHour"), "the JVM's thread dump shows where the fiber sleeps");
        } finally {
            scheduler.close(Duration.ofMillis(100)); // interrupts the sleep
        }
        errors.assertNone();
        assertEquals("interrupted", outcome.get());
    }

    /** The contrast: a fiber sleeping in the JDK holds its worker thread and is no suspended fiber. */
    @Test
    @Timeout(120)
    void continuations_aFiberBlockedInThreadSleep_isNotASuspendedFiber() {
        TaskErrors errors = new TaskErrors();
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Thread> worker = new AtomicReference<>();
        try (Scheduler scheduler = new Scheduler(VirtualThreadFixtures.config(errors, FiberEngine.CONTINUATIONS, 1))) {
            scheduler.enqueue(new Task(() -> {
                worker.set(Thread.currentThread());
                try {
                    assertTrue(release.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS));
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }));
            await().atMost(PATIENCE).until(() -> worker.get() != null && worker.get().getState() == Thread.State.TIMED_WAITING);
            assertEquals(List.of(), scheduler.suspendedFibers());
            assertTrue(!worker.get().isVirtual());
            release.countDown();
        }
        errors.assertNone();
    }

    private static boolean hasFrame(List<StackTraceElement> frames, String className, String method) {
        return frames.stream().anyMatch(f -> f.getClassName().equals(className) && f.getMethodName().equals(method));
    }

    // ---------------------------------------------------------------- threads a fiber starts

    /**
     * A virtual thread that a task starts with {@code Thread.ofVirtual()} runs. The JDK gives a
     * virtual thread made without a scheduler its parent's scheduler when the parent is virtual:
     * here, the fiber's worker. (The JDK's own I/O poller threads are started that way, by the first
     * virtual thread that waits for a socket.)
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1, 2})
    void virtualThreads_aVirtualThreadATaskStarts_runs(int workers) {
        AtomicReference<Boolean> ran = new AtomicReference<>();
        VirtualThreadFixtures.withScheduler(VT, workers, scheduler -> ran.set(TestSchedulers.runOnFiber(scheduler, () -> {
            CountDownLatch child = new CountDownLatch(1);
            Thread.ofVirtual().name("child of a fiber").start(child::countDown);
            return child.await(10, TimeUnit.SECONDS);
        })));
        assertTrue(ran.get(), "the virtual thread a task started did not run within 10 s");
    }
}
