package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TaskErrors.LONG;
import static org.marl4j.TaskErrors.join;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** close() never strands a bound thread, never hangs silently, and a bounded close cancels waits. */
class SchedulerCloseTest {

    /** How long close() and unbind() wait before they warn, in the tests of their warnings. */
    private static final Duration WARNING_AFTER = Duration.ofMillis(50);

    @ForEachWorkerCount
    void close_onABoundThread_unbindsItFirst_andTheBodysExceptionReachesTheCaller(int workers) {
        Scheduler.Config config = TestSchedulers.config(workers);
        AtomicInteger ran = new AtomicInteger();
        RuntimeException boom = new RuntimeException("boom");
        RuntimeException thrown = assertThrows(RuntimeException.class, () -> {
            try (Scheduler scheduler = new Scheduler(config)) {
                scheduler.bind();
                Marl.schedule(new Task(ran::incrementAndGet, Task.Flag.SAME_THREAD));
                throw boom;
            }
        });
        assertSame(boom, thrown);
        assertEquals(0, thrown.getSuppressed().length, "close() succeeded");
        assertEquals(1, ran.get(), "the bound thread's remaining task ran at close");
        assertNull(Scheduler.get(), "no thread is left bound");
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    @Test
    void binding_close_unbinds_andIsANoOpOnceUnbound() {
        try (Scheduler scheduler = new Scheduler(TestSchedulers.config(1))) {
            Scheduler.Binding binding = scheduler.bind();
            assertSame(scheduler, Scheduler.get());
            binding.close();
            assertNull(Scheduler.get());
            Scheduler.Binding again = scheduler.bind();
            binding.close(); // an old binding never unbinds a newer bind()
            assertSame(scheduler, Scheduler.get());
            AtomicReference<Throwable> elsewhere = new AtomicReference<>();
            join(TestSchedulers.startThread("other", () -> {
                try {
                    again.close();
                } catch (Throwable t) {
                    elsewhere.set(t);
                }
            }));
            assertTrue(elsewhere.get() instanceof IllegalStateException, String.valueOf(elsewhere.get()));
            again.close();
            assertNull(Scheduler.get());
        }
    }

    @ForEachWorkerCount
    void closeWithTimeout_cancelsSuspendedFibers_whoseFinallyBlocksRun(int workers) {
        Scheduler.Config config = TestSchedulers.config(workers);
        Event never = new Event(Event.Mode.MANUAL);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicBoolean finallyRan = new AtomicBoolean();
        WaitGroup started = new WaitGroup(1);
        Scheduler scheduler = new Scheduler(config);
        if (workers == 0) {
            scheduler.bind(); // the task runs when close() unbinds this thread
        }
        scheduler.enqueue(new Task(() -> {
            started.done();
            try {
                never.await();
            } catch (Throwable t) {
                thrown.set(t);
                throw t;
            } finally {
                finallyRan.set(true);
            }
        }));
        if (workers > 0) {
            started.await();
        }
        scheduler.close(Duration.ofMillis(50));
        assertTrue(thrown.get() instanceof FiberCancelledException, String.valueOf(thrown.get()));
        assertTrue(finallyRan.get());
        assertNull(Scheduler.get());
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
        assertThrows(IllegalArgumentException.class, () -> scheduler.close(Duration.ofMillis(-1)));
    }

    @Test
    void close_thatWaitsLong_logsTheSuspendedFibersOnce() {
        try (LogCapture log = LogCapture.of(Scheduler.class)) {
            Scheduler scheduler = warningSoon(1);
            Event release = new Event(Event.Mode.MANUAL);
            startTaskAwaiting(scheduler, release);
            Thread closer = TestSchedulers.startThread("closer", scheduler::close);
            await().atMost(LONG).until(() -> log.contains("close() of"));
            release.signal();
            join(closer);
            assertOneWarningShowingTheEventWait(log, "close() of");
        }
    }

    @ForEachWorkerCount
    void unbind_thatWaitsLong_logsTheSuspendedFibersOfItsWorkerOnce(int workers) {
        try (LogCapture log = LogCapture.of(Scheduler.class)) {
            Scheduler scheduler = warningSoon(workers);
            Event release = new Event(Event.Mode.MANUAL);
            Thread unbinder = TestSchedulers.startThread("unbinder", () -> {
                scheduler.bind();
                scheduler.enqueue(new Task(release::await, Task.Flag.SAME_THREAD)); // on this thread's worker
                scheduler.unbind();
            });
            await().atMost(LONG).until(() -> log.contains("unbind() of thread unbinder"));
            release.signal();
            join(unbinder);
            scheduler.close();
            assertOneWarningShowingTheEventWait(log, "unbind() of");
        }
    }

    @ForEachWorkerCount
    void boundedClose_withNothingToCancel_warnsOfNothing(int workers) {
        try (LogCapture log = LogCapture.of(Scheduler.class)) {
            Scheduler scheduler = new Scheduler(TestSchedulers.config(workers));
            WaitGroup ran = new WaitGroup(1);
            if (workers == 0) {
                scheduler.bind();
                Marl.schedule(ran::done);
            } else {
                scheduler.enqueue(new Task(ran::done));
            }
            ran.await();
            scheduler.close(Duration.ZERO); // times out at once, with no fiber suspended and no delayed task
            assertTrue(log.lines().isEmpty(), log.lines().toString());
        }
    }

    @Test
    void close_onABoundThreadThatWaitsLong_saysThatThreadIsUnbinding_notThatItWaitsForIt() {
        try (LogCapture log = LogCapture.of(Scheduler.class)) {
            Scheduler scheduler = warningSoon(0);
            Event release = new Event(Event.Mode.MANUAL);
            Thread closer = TestSchedulers.startThread("closer", () -> {
                scheduler.bind();
                scheduler.enqueue(new Task(release::await));
                scheduler.close();
            });
            await().atMost(LONG).until(() -> log.contains("close() of"));
            release.signal();
            join(closer);
            String warning = log.lines().stream().filter(m -> m.contains("close() of")).findFirst().orElseThrow();
            assertTrue(warning.contains("thread closer, which called close(), is unbinding"), warning);
            assertTrue(!warning.contains("close() waits for it to call unbind()"), warning);
        }
    }

    @ForEachWorkerCount
    void cancellingADelayedTask_whileCloseWaitsForIt_letsCloseFinishPromptly(int workers) {
        Scheduler.Config config = TestSchedulers.config(workers);
        Scheduler scheduler = new Scheduler(config);
        Thread closing;
        Thread canceller;
        AtomicReference<DelayedTask> delayed = new AtomicReference<>();
        if (workers == 0) {
            scheduler.bind();
            delayed.set(scheduler.enqueue(new Task(() -> {}, Task.Flag.SAME_THREAD), Duration.ofHours(1)));
            Thread me = Thread.currentThread();
            canceller = TestSchedulers.startThread("canceller", () -> {
                await().atMost(LONG).until(() -> me.getState() == Thread.State.TIMED_WAITING);
                delayed.get().cancel();
            });
            scheduler.close(); // unbinds this thread, whose worker waits for the delayed task
            closing = null;
        } else {
            delayed.set(scheduler.enqueue(new Task(() -> {}), Duration.ofHours(1)));
            closing = TestSchedulers.startThread("closer", scheduler::close);
            canceller = TestSchedulers.startThread("canceller", () -> {
                await().atMost(LONG).until(() -> closing.getState() == Thread.State.TIMED_WAITING);
                delayed.get().cancel();
            });
            join(closing); // fails after LONG if close waits for the cancelled task's hour
        }
        join(canceller);
        assertTrue(delayed.get().isCancelled());
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    @Test
    void close_insideBlockingCall_saysToReturnFromTheCallFirst() {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        // On the continuation engine the call runs on a thread of its own; on the virtual-thread
        // engine it runs on the fiber itself, whose close() is a task's close (MarlTest).
        Scheduler.Config config = TestSchedulers.config(1).setFiberEngine(FiberEngine.CONTINUATIONS);
        TestSchedulers.withBoundScheduler(config, scheduler -> TestSchedulers.runOnFiber(scheduler, () -> {
            Marl.blockingCall(() -> {
                try {
                    scheduler.close();
                } catch (Throwable t) {
                    thrown.set(t);
                }
            });
            return null;
        }));
        assertTrue(thrown.get() instanceof IllegalStateException, String.valueOf(thrown.get()));
        assertTrue(thrown.get().getMessage().contains("Marl.blockingCall"), thrown.get().getMessage());
        assertTrue(!thrown.get().getMessage().contains("unbind() first"), thrown.get().getMessage());
    }

    @ForEachWorkerCount
    void closeWithTimeout_dropsPendingDelayedTasks_andLogsWhatItCancelled(int workers) {
        Scheduler.Config config = TestSchedulers.config(workers);
        AtomicReference<DelayedTask> delayed = new AtomicReference<>();
        try (LogCapture log = LogCapture.of(Scheduler.class)) {
            Thread closer = TestSchedulers.startThread("closer", () -> {
                Scheduler scheduler = new Scheduler(config);
                if (workers == 0) {
                    scheduler.bind(); // close() on this thread then unbinds it, waiting for its delayed task
                    delayed.set(scheduler.enqueue(new Task(() -> {}, Task.Flag.SAME_THREAD), Duration.ofHours(1)));
                } else {
                    delayed.set(scheduler.enqueue(new Task(() -> {}), Duration.ofHours(1)));
                }
                scheduler.close(Duration.ofMillis(20));
            });
            join(closer); // fails after LONG if close waits for the task's hour
            assertTrue(log.contains("WARNING", "close(20 ms)", "timed out", "1 pending delayed task"), log.toString());
        }
        assertTrue(delayed.get().isCancelled(), "the pending delayed task was cancelled");
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    @ParameterizedTest1to8
    void aDelayedTask_isRejectedOnceCloseHasBegun_evenFromTheSchedulersOwnTask(int workers) throws Exception {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(workers));
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Throwable> refused = new AtomicReference<>();
        scheduler.enqueue(new Task(() -> {
            running.countDown();
            try {
                assertTrue(release.await(LONG.toMillis(), TimeUnit.MILLISECONDS));
                scheduler.enqueue(new Task(() -> {}), Duration.ofMillis(1));
            } catch (Throwable t) {
                refused.set(t);
            }
        }));
        assertTrue(running.await(LONG.toMillis(), TimeUnit.MILLISECONDS));
        Thread closer = TestSchedulers.startThread("closer", scheduler::close);
        await().atMost(LONG).until(() -> {
            try {
                scheduler.enqueue(new Task(() -> {}));
                return false;
            } catch (RejectedExecutionException closing) {
                return true; // close() has begun
            }
        });
        release.countDown();
        join(closer);
        assertTrue(refused.get() instanceof RejectedExecutionException, String.valueOf(refused.get()));
        assertTrue(refused.get().getMessage().contains("no new delayed task"), refused.get().getMessage());
    }

    @Test
    void aBoundThreadThatEndsWithoutUnbinding_isNotWaitedFor_andIsLogged() {
        Scheduler.Config config = TestSchedulers.config(1);
        try (LogCapture log = LogCapture.of(Scheduler.class)) {
            Scheduler scheduler = new Scheduler(config);
            join(TestSchedulers.startThread("forgetful-binder", scheduler::bind)); // ends still bound
            join(TestSchedulers.startThread("closer", scheduler::close)); // fails after LONG if close waits for it
            assertTrue(log.contains("WARNING", "forgetful-binder", "without calling unbind()"), log.toString());
        }
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }
    @Test
    void closeWithTimeout_stillWaitingForABoundThread_saysToUnbindIt() throws Exception {
        Scheduler.Config config = TestSchedulers.config(1);
        config.closeWarningAfter = WARNING_AFTER;
        Scheduler scheduler = new Scheduler(config);
        CountDownLatch release = new CountDownLatch(1);
        Thread binder = startBinder(scheduler, release);
        try (LogCapture log = LogCapture.of(Scheduler.class)) {
            Thread closer = TestSchedulers.startThread("closer", () -> scheduler.close(Duration.ofMillis(20)));
            // The warning after the timeout: only the binder is left, which no cancelling can end.
            await().atMost(LONG).until(() -> log.contains("binder is still bound"));
            release.countDown();
            join(binder);
            join(closer);
            String warning = log.lines().stream().filter(m -> m.contains("binder is still bound")).findFirst().orElseThrow();
            assertTrue(warning.contains("call unbind() on each thread still bound"), warning);
        } finally {
            release.countDown();
        }
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    @Test
    void close_interruptedWhileItWaitsForABoundThread_goesOnWaiting_andKeepsTheInterrupt() throws Exception {
        Scheduler.Config config = TestSchedulers.config(1);
        Scheduler scheduler = new Scheduler(config);
        CountDownLatch release = new CountDownLatch(1);
        Thread binder = startBinder(scheduler, release);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean interruptedAfterClose = new AtomicBoolean();
        Thread closer = TestSchedulers.startThread("closer", () -> {
            try {
                scheduler.close();
                interruptedAfterClose.set(Thread.currentThread().isInterrupted());
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        await().atMost(LONG).until(() -> closer.getState() == Thread.State.TIMED_WAITING);
        closer.interrupt();
        await().failFast(() -> assertTrue(closer.isAlive(), () -> "close() ended, though a thread is still bound: " + failure.get()))
                .during(Duration.ofMillis(200)).atMost(LONG).until(closer::isAlive);
        release.countDown();
        join(binder);
        join(closer);
        assertNull(failure.get(), () -> "close() failed: " + failure.get());
        assertTrue(interruptedAfterClose.get(), "close() returns with the interrupt still pending");
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    /** isClosed() is false until close() begins, true while it waits for a task and after it. */
    @ParameterizedTest1to8
    void isClosed_fromTheMomentCloseBegins(int workers) throws Exception {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(workers));
        Event release = new Event(Event.Mode.MANUAL);
        startTaskAwaiting(scheduler, release);
        assertFalse(scheduler.isClosed());
        Thread closer = TestSchedulers.startThread("closer", scheduler::close);
        await().atMost(TestSchedulers.PATIENCE).until(scheduler::isClosed);
        assertTrue(closer.isAlive(), "close() waits for the task");
        release.signal();
        closer.join(TestSchedulers.PATIENCE.toMillis());
        assertFalse(closer.isAlive());
        assertTrue(scheduler.isClosed());
    }

    /** warningSoon(workers) is a new scheduler whose close() and unbind() warn after {@link #WARNING_AFTER}. */
    private static Scheduler warningSoon(int workers) {
        Scheduler.Config config = TestSchedulers.config(workers);
        config.closeWarningAfter = WARNING_AFTER;
        return new Scheduler(config);
    }

    /** startTaskAwaiting(scheduler, release) enqueues a task that awaits release, and returns once it runs. */
    private static void startTaskAwaiting(Scheduler scheduler, Event release) {
        WaitGroup started = new WaitGroup(1);
        scheduler.enqueue(new Task(() -> {
            started.done();
            release.await();
        }));
        started.await();
    }

    /**
     * startBinder(scheduler, release) starts a thread "binder" that binds to scheduler, waits up to
     * {@link TaskErrors#LONG} for release and unbinds; it returns the thread once it is bound.
     */
    private static Thread startBinder(Scheduler scheduler, CountDownLatch release) throws InterruptedException {
        CountDownLatch bound = new CountDownLatch(1);
        Thread binder = TestSchedulers.startThread("binder", () -> {
            scheduler.bind();
            bound.countDown();
            try {
                assertTrue(release.await(LONG.toMillis(), TimeUnit.MILLISECONDS));
            } catch (InterruptedException e) {
                throw new AssertionError("nobody interrupts the binder", e);
            }
            scheduler.unbind();
        });
        assertTrue(bound.await(LONG.toMillis(), TimeUnit.MILLISECONDS), "the binder did not bind");
        return binder;
    }

    /**
     * assertOneWarningShowingTheEventWait(log, marker) fails unless exactly one logged line holds
     * marker, and it is a WARNING whose dump shows the fiber waiting in Event.await.
     */
    private static void assertOneWarningShowingTheEventWait(LogCapture log, String marker) {
        List<String> warnings = log.lines().stream().filter(m -> m.contains(marker)).toList();
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).startsWith("WARNING"), warnings.get(0));
        assertTrue(warnings.get(0).contains("Event.await"), "the dump shows where the fiber waits: " + warnings.get(0));
    }
}
