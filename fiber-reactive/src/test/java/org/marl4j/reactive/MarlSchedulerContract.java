package org.marl4j.reactive;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.marl4j.Fiber;
import org.marl4j.FiberCancelledException;
import org.marl4j.TestSchedulers;
import org.marl4j.futures.Futures;
import org.marl4j.WorkerHold;
import reactor.core.Disposable;
import reactor.core.Exceptions;
import reactor.core.Scannable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * The Reactor Scheduler contract, in the spirit of reactor-core's AbstractSchedulerTest, run by
 * {@link BorrowedMarlSchedulerTest} and {@link OwnedMarlSchedulerTest} for several worker counts
 * (a MarlScheduler needs at least one worker thread, so 0 does not apply here).
 */
abstract class MarlSchedulerContract {
    private static final String HOOK = "marl4j-contract-test";
    private static final Duration SHORT = Duration.ofMillis(50);

    /**
     * config(workers) is the marl config the subclasses build on. Reactor's error handling tells
     * the failing thread's uncaught-exception handler before the onHandleError hooks; the tests that
     * make tasks throw check the hooks, so the worker threads get a handler that keeps the build log
     * free of those expected stack traces.
     */
    static org.marl4j.Scheduler.Config config(int workers) {
        return TestSchedulers.config(workers).setWorkerThreadInitializer(
                id -> Thread.currentThread().setUncaughtExceptionHandler((thread, expected) -> {}));
    }

    /** Creates the scheduler under test; the subclass cleans up what it created in tearDown. */
    abstract MarlScheduler create(int workers);

    /** Closes whatever create() made, after the scheduler was disposed (or not). */
    @AfterEach
    abstract void tearDown();

    @AfterEach
    void resetHooks() {
        Schedulers.resetOnScheduleHook(HOOK);
        Schedulers.resetOnHandleError(HOOK);
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void schedule_runsTheTaskOnAMarlFiber(int workers) {
        MarlScheduler s = create(workers);
        CompletableFuture<Boolean> onFiber = new CompletableFuture<>();
        s.schedule(() -> onFiber.complete(Fiber.current() != null));
        assertTrue(TestSchedulers.get(onFiber));
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void schedule_disposedBeforeItStarts_neverRuns(int workers) throws Exception {
        MarlScheduler s = create(workers);
        WorkerHold release = new WorkerHold();
        CountDownLatch blocking = new CountDownLatch(workers);
        for (int i = 0; i < workers; i++) {
            s.schedule(() -> { // hold every worker thread, so the next task must wait in a queue
                blocking.countDown();
                release.hold();
            });
        }
        assertTrue(blocking.await(30, TimeUnit.SECONDS));
        AtomicBoolean ran = new AtomicBoolean();
        Disposable cancelled = s.schedule(() -> ran.set(true));
        cancelled.dispose();
        assertTrue(cancelled.isDisposed());
        CompletableFuture<Void> later = new CompletableFuture<>();
        s.schedule(() -> later.complete(null));
        release.release();
        TestSchedulers.get(later);
        assertFalse(ran.get(), "a task disposed before it started must never run");
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void scheduleDelayed_neverRunsEarly(int workers) {
        MarlScheduler s = create(workers);
        long start = System.nanoTime();
        CompletableFuture<Long> ranAfter = new CompletableFuture<>();
        s.schedule(() -> ranAfter.complete(System.nanoTime() - start), 30, TimeUnit.MILLISECONDS);
        long waited = TestSchedulers.get(ranAfter);
        assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(30), "ran after only " + waited + " ns");
    }

    @ParameterizedTest(name = "delay {0} ms")
    @ValueSource(longs = {0, -1, Long.MIN_VALUE})
    void scheduleDelayed_nonPositiveDelay_runsPromptly(long delay) {
        MarlScheduler s = create(2);
        CompletableFuture<Void> ran = new CompletableFuture<>();
        s.schedule(() -> ran.complete(null), delay, TimeUnit.MILLISECONDS);
        TestSchedulers.get(ran);
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void scheduleDelayed_disposed_neverRuns(int workers) {
        MarlScheduler s = create(workers);
        AtomicBoolean ran = new AtomicBoolean();
        Disposable d = s.schedule(() -> ran.set(true), 100, TimeUnit.MILLISECONDS);
        d.dispose();
        assertTrue(d.isDisposed());
        CompletableFuture<Void> after = new CompletableFuture<>();
        s.schedule(() -> after.complete(null), 200, TimeUnit.MILLISECONDS);
        TestSchedulers.get(after);
        assertFalse(ran.get());
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void schedulePeriodically_repeatsWithoutOverlap_andStopsWhenDisposed(int workers) {
        MarlScheduler s = create(workers);
        AtomicInteger runs = new AtomicInteger();
        AtomicInteger running = new AtomicInteger();
        AtomicBoolean overlapped = new AtomicBoolean();
        Disposable periodic = s.schedulePeriodically(() -> {
            if (running.incrementAndGet() > 1) {
                overlapped.set(true);
            }
            try {
                Fiber.sleep(Duration.ofMillis(3)); // longer than the period: the next run is late, never concurrent
                runs.incrementAndGet();
            } finally { // dispose() during the sleep cancels it
                running.decrementAndGet();
            }
        }, 0, 1, TimeUnit.MILLISECONDS);
        await().atMost(TestSchedulers.PATIENCE).until(() -> runs.get() >= 5);
        periodic.dispose();
        assertTrue(periodic.isDisposed());
        await().atMost(TestSchedulers.PATIENCE).until(() -> running.get() == 0);
        int stopped = runs.get();
        CompletableFuture<Void> later = new CompletableFuture<>();
        s.schedule(() -> later.complete(null), 20, TimeUnit.MILLISECONDS);
        TestSchedulers.get(later);
        assertEquals(stopped, runs.get(), "no run after dispose");
        assertFalse(overlapped.get(), "periodic runs overlapped");
    }

    @ParameterizedTest(name = "period {0} ms")
    @ValueSource(longs = {0, -5})
    void schedulePeriodically_nonPositivePeriod_repeatsBackToBack(long period) {
        MarlScheduler s = create(2);
        AtomicInteger runs = new AtomicInteger();
        Disposable periodic = s.schedulePeriodically(runs::incrementAndGet, 0, period, TimeUnit.MILLISECONDS);
        await().atMost(TestSchedulers.PATIENCE).until(() -> runs.get() >= 100);
        periodic.dispose();
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void schedulePeriodically_firstRunWaitsForTheInitialDelay(int workers) {
        MarlScheduler s = create(workers);
        long start = System.nanoTime();
        CompletableFuture<Long> first = new CompletableFuture<>();
        Disposable periodic = s.schedulePeriodically(() -> first.complete(System.nanoTime() - start),
                25, 5, TimeUnit.MILLISECONDS);
        long waited = TestSchedulers.get(first);
        assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(25), "first run after only " + waited + " ns");
        periodic.dispose();
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void taskThatThrows_reachesOnHandleErrorHooks_andTheSchedulerKeepsRunning(int workers) {
        MarlScheduler s = create(workers);
        Queue<Throwable> handled = new ConcurrentLinkedQueue<>();
        Schedulers.onHandleError(HOOK, (thread, error) -> handled.add(error));
        IllegalStateException boom = new IllegalStateException("boom");
        s.schedule(() -> {
            throw boom;
        });
        Scheduler.Worker worker = s.createWorker();
        IllegalStateException workerBoom = new IllegalStateException("worker boom");
        worker.schedule(() -> {
            throw workerBoom;
        });
        CompletableFuture<Void> next = new CompletableFuture<>();
        worker.schedule(() -> next.complete(null));
        TestSchedulers.get(next);
        await().dontCatchUncaughtExceptions().atMost(TestSchedulers.PATIENCE).until(() -> handled.size() >= 2);
        assertEquals(java.util.Set.of(boom, workerBoom), java.util.Set.copyOf(handled));
        worker.dispose();
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void schedulePeriodically_taskThatThrows_isReportedAndStops(int workers) {
        MarlScheduler s = create(workers);
        Queue<Throwable> handled = new ConcurrentLinkedQueue<>();
        Schedulers.onHandleError(HOOK, (thread, error) -> handled.add(error));
        AtomicInteger runs = new AtomicInteger();
        Disposable periodic = s.schedulePeriodically(() -> {
            runs.incrementAndGet();
            throw new IllegalStateException("periodic boom");
        }, 0, 1, TimeUnit.MILLISECONDS);
        // Reactor's handling also tells the thread's uncaught-exception handler, which Awaitility would catch.
        await().dontCatchUncaughtExceptions().atMost(TestSchedulers.PATIENCE).until(periodic::isDisposed);
        assertEquals(1, runs.get());
        assertEquals(1, handled.size());
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void onScheduleHooks_decorateEveryKindOfTask(int workers) {
        MarlScheduler s = create(workers);
        AtomicInteger decorated = new AtomicInteger();
        Schedulers.onScheduleHook(HOOK, task -> () -> {
            decorated.incrementAndGet();
            task.run();
        });
        CountDownLatch ran = new CountDownLatch(6);
        s.schedule(ran::countDown);
        s.schedule(ran::countDown, 1, TimeUnit.MILLISECONDS);
        Disposable periodic = s.schedulePeriodically(ran::countDown, 0, 1000, TimeUnit.SECONDS);
        Scheduler.Worker worker = s.createWorker();
        worker.schedule(ran::countDown);
        worker.schedule(ran::countDown, 1, TimeUnit.MILLISECONDS);
        Disposable workerPeriodic = worker.schedulePeriodically(ran::countDown, 0, 1000, TimeUnit.SECONDS);
        awaitLatch(ran);
        assertEquals(6, decorated.get());
        periodic.dispose();
        workerPeriodic.dispose();
        worker.dispose();
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void worker_runsTasksOneAtATimeInOrder_evenWhenOneSuspendsItsFiber(int workers) {
        MarlScheduler s = create(workers);
        Scheduler.Worker worker = s.createWorker();
        CompletableFuture<String> gate = new CompletableFuture<>();
        Queue<String> events = new ConcurrentLinkedQueue<>();
        worker.schedule(() -> {
            events.add("first waits");
            events.add("first got " + Futures.await(gate)); // suspends the fiber: the worker's next task must wait
        });
        for (int i = 0; i < 20; i++) {
            int n = i;
            worker.schedule(() -> events.add("task " + n));
        }
        CompletableFuture<Void> last = new CompletableFuture<>();
        worker.schedule(() -> last.complete(null));
        await().atMost(TestSchedulers.PATIENCE).until(() -> events.contains("first waits"));
        s.schedule(() -> gate.complete("go")); // another task runs meanwhile (even with one worker thread)
        TestSchedulers.get(last);
        List<String> order = List.copyOf(events);
        assertEquals("first waits", order.get(0));
        assertEquals("first got go", order.get(1));
        for (int i = 0; i < 20; i++) {
            assertEquals("task " + i, order.get(i + 2));
        }
        worker.dispose();
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void worker_delayedTasks_neverRunEarly_andPeriodicRunsRepeatUntilDisposed(int workers) {
        MarlScheduler s = create(workers);
        Scheduler.Worker worker = s.createWorker();
        long start = System.nanoTime();
        CompletableFuture<Long> delayed = new CompletableFuture<>();
        worker.schedule(() -> delayed.complete(System.nanoTime() - start), 30, TimeUnit.MILLISECONDS);
        CompletableFuture<Void> prompt = new CompletableFuture<>();
        worker.schedule(() -> prompt.complete(null), -1, TimeUnit.MILLISECONDS);
        TestSchedulers.get(prompt);
        long waited = TestSchedulers.get(delayed);
        assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(30), "a worker's delayed task ran after only " + waited + " ns");
        AtomicInteger runs = new AtomicInteger();
        Disposable periodic = worker.schedulePeriodically(runs::incrementAndGet, 1, 1, TimeUnit.MILLISECONDS);
        await().atMost(TestSchedulers.PATIENCE).until(() -> runs.get() >= 5);
        periodic.dispose();
        int stopped = runs.get();
        CompletableFuture<Void> later = new CompletableFuture<>();
        worker.schedule(() -> later.complete(null), 20, TimeUnit.MILLISECONDS);
        TestSchedulers.get(later);
        assertTrue(runs.get() <= stopped + 1, "a disposed periodic task kept running"); // one run may have been queued
        worker.dispose();
    }

    /**
     * A Worker's delayed tasks run in the order they fall due, as on Reactor's own workers, although
     * their timers wait on the deadline heaps of different marl worker threads, which fire
     * independently.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void worker_delayedTasks_runInTheOrderTheyFallDue(int workers) {
        MarlScheduler s = create(workers);
        Scheduler.Worker worker = s.createWorker();
        int count = 300;
        Queue<Integer> ran = new ConcurrentLinkedQueue<>();
        CompletableFuture<Void> lastRan = new CompletableFuture<>();
        for (int i = 0; i < count; i++) {
            int task = i;
            worker.schedule(() -> {
                ran.add(task);
                if (task == count - 1) {
                    lastRan.complete(null);
                }
            }, 5, TimeUnit.MILLISECONDS);
        }
        TestSchedulers.get(lastRan);
        assertEquals(java.util.stream.IntStream.range(0, count).boxed().toList(), List.copyOf(ran));
        worker.dispose();
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void worker_dispose_cancelsPendingTasks(int workers) {
        MarlScheduler s = create(workers);
        Scheduler.Worker worker = s.createWorker();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        CompletableFuture<Void> started = new CompletableFuture<>();
        worker.schedule(() -> {
            started.complete(null);
            Futures.await(gate);
        });
        AtomicInteger ran = new AtomicInteger();
        Disposable queued = worker.schedule(ran::incrementAndGet);
        Disposable delayed = worker.schedule(ran::incrementAndGet, 10, TimeUnit.MILLISECONDS);
        Disposable periodic = worker.schedulePeriodically(ran::incrementAndGet, 10, 10, TimeUnit.MILLISECONDS);
        TestSchedulers.get(started);
        worker.dispose();
        assertTrue(worker.isDisposed());
        assertTrue(queued.isDisposed() && delayed.isDisposed() && periodic.isDisposed());
        gate.complete(null);
        CompletableFuture<Void> later = new CompletableFuture<>();
        s.schedule(() -> later.complete(null), 40, TimeUnit.MILLISECONDS);
        TestSchedulers.get(later);
        assertEquals(0, ran.get(), "tasks of a disposed worker ran");
    }

    /**
     * A task that waits for a future nobody completes, as the disposal tests below run it: started
     * completes when it is about to wait, unwound with what its wait threw once it has unwound.
     */
    private static Runnable waitsForever(CompletableFuture<Void> started, CompletableFuture<Throwable> unwound) {
        return () -> {
            started.complete(null);
            try {
                Futures.await(new CompletableFuture<Void>());
                unwound.complete(null);
            } catch (Throwable t) {
                unwound.complete(t);
                throw t;
            }
        };
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void schedule_disposedWhileRunning_cancelsItsFiberWait_asReactorInterrupts(int workers) {
        MarlScheduler s = create(workers);
        Queue<Throwable> handled = new ConcurrentLinkedQueue<>();
        Schedulers.onHandleError(HOOK, (thread, error) -> handled.add(error));
        CompletableFuture<Void> started = new CompletableFuture<>();
        CompletableFuture<Throwable> unwound = new CompletableFuture<>();
        Disposable task = s.schedule(waitsForever(started, unwound));
        TestSchedulers.get(started);
        assertFalse(task.isDisposed());
        task.dispose();
        assertTrue(task.isDisposed());
        assertTrue(TestSchedulers.get(unwound) instanceof FiberCancelledException);
        assertTrue(handled.isEmpty(), "a cancelled wait is not an error: " + handled);
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void worker_disposedWhileATaskRuns_cancelsItsFiberWait(int workers) {
        MarlScheduler s = create(workers);
        Scheduler.Worker worker = s.createWorker();
        CompletableFuture<Void> started = new CompletableFuture<>();
        CompletableFuture<Throwable> unwound = new CompletableFuture<>();
        worker.schedule(waitsForever(started, unwound));
        TestSchedulers.get(started);
        worker.dispose();
        assertTrue(TestSchedulers.get(unwound) instanceof FiberCancelledException);
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void schedulePeriodically_disposedDuringARun_cancelsItsFiberWait(int workers) {
        MarlScheduler s = create(workers);
        CompletableFuture<Void> started = new CompletableFuture<>();
        CompletableFuture<Throwable> unwound = new CompletableFuture<>();
        Disposable periodic = s.schedulePeriodically(waitsForever(started, unwound), 0, 1, TimeUnit.HOURS);
        TestSchedulers.get(started);
        periodic.dispose();
        assertTrue(TestSchedulers.get(unwound) instanceof FiberCancelledException);
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void aTaskDisposedFromItsOwnFiber_keepsWaiting_asReactorDoesNotInterruptItsOwnThread(int workers) {
        MarlScheduler s = create(workers);
        java.util.concurrent.atomic.AtomicReference<Disposable> self = new java.util.concurrent.atomic.AtomicReference<>();
        CompletableFuture<Void> registered = new CompletableFuture<>();
        CompletableFuture<String> late = new CompletableFuture<>();
        CompletableFuture<String> result = new CompletableFuture<>();
        self.set(s.schedule(() -> {
            Futures.await(registered);
            self.get().dispose();
            try {
                result.complete(Futures.await(late));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        }));
        registered.complete(null);
        CompletableFuture.runAsync(() -> late.complete("waited"), CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS));
        assertEquals("waited", TestSchedulers.get(result));
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void subscribeOn_withATimeout_unwindsTheTaskStillAwaiting(int workers) {
        MarlScheduler s = create(workers);
        CompletableFuture<Throwable> unwound = new CompletableFuture<>();
        Mono<String> slow = Mono.fromCallable(() -> {
            try {
                return Futures.await(new CompletableFuture<String>());
            } catch (Throwable t) {
                unwound.complete(t);
                throw t;
            }
        });
        StepVerifier.create(slow.subscribeOn(s).timeout(SHORT))
                .expectError(TimeoutException.class)
                .verify(TestSchedulers.PATIENCE);
        assertTrue(TestSchedulers.get(unwound) instanceof FiberCancelledException);
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void worker_afterDispose_everyScheduleThrowsTheRejectedSingleton(int workers) {
        MarlScheduler s = create(workers);
        Scheduler.Worker worker = s.createWorker();
        worker.dispose();
        assertSame(Exceptions.failWithRejected(), assertThrows(RejectedExecutionException.class, () -> worker.schedule(() -> {})));
        assertSame(Exceptions.failWithRejected(), assertThrows(RejectedExecutionException.class,
                () -> worker.schedule(() -> {}, 1, TimeUnit.MILLISECONDS)));
        assertSame(Exceptions.failWithRejected(), assertThrows(RejectedExecutionException.class,
                () -> worker.schedulePeriodically(() -> {}, 1, 1, TimeUnit.MILLISECONDS)));
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void afterDispose_everyScheduleThrowsRejected_andInitThrowsIllegalState(int workers) {
        MarlScheduler s = create(workers);
        s.init();
        assertFalse(s.isDisposed());
        Scheduler.Worker worker = s.createWorker();
        s.dispose();
        assertTrue(s.isDisposed());
        assertThrows(RejectedExecutionException.class, () -> s.schedule(() -> {}));
        assertThrows(RejectedExecutionException.class, () -> s.schedule(() -> {}, 1, TimeUnit.MILLISECONDS));
        assertThrows(RejectedExecutionException.class, () -> s.schedulePeriodically(() -> {}, 1, 1, TimeUnit.MILLISECONDS));
        RejectedExecutionException refused = assertThrows(RejectedExecutionException.class, () -> worker.schedule(() -> {}));
        assertTrue(refused.getMessage().contains("is disposed") && refused.getMessage().contains("create a new MarlScheduler"),
                refused.getMessage());
        assertThrows(RejectedExecutionException.class, () -> s.createWorker().schedule(() -> {}));
        IllegalStateException init = assertThrows(IllegalStateException.class, s::init);
        assertTrue(init.getMessage().contains("create a new MarlScheduler"), init.getMessage());
        s.dispose(); // idempotent
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void publishOn_aDisposedScheduler_signalsRejectedExecutionToOnError(int workers) {
        MarlScheduler s = create(workers);
        s.dispose();
        StepVerifier.create(Flux.range(1, 3).publishOn(s))
                .expectErrorMatches(e -> e instanceof RejectedExecutionException && causesSay(e, "create a new MarlScheduler"))
                .verify(TestSchedulers.PATIENCE);
    }

    /** causesSay(e, text) is whether e or one of its causes has text in its message: what a user reads in the trace. */
    static boolean causesSay(Throwable e, String text) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (String.valueOf(t.getMessage()).contains(text)) {
                return true;
            }
        }
        return false;
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void dispose_cancelsQueuedDelayedAndPeriodicTasks_andNeverBlocks(int workers) {
        MarlScheduler s = create(workers);
        CompletableFuture<Void> gate = new CompletableFuture<>();
        CountDownLatch blocked = new CountDownLatch(workers);
        for (int i = 0; i < workers; i++) {
            s.schedule(() -> { // suspend a fiber per worker: a task still running at dispose
                blocked.countDown();
                Futures.await(gate);
            });
        }
        awaitLatch(blocked);
        AtomicInteger ran = new AtomicInteger();
        Disposable delayed = s.schedule(ran::incrementAndGet, 10, TimeUnit.MILLISECONDS);
        Disposable periodic = s.schedulePeriodically(ran::incrementAndGet, 10, 10, TimeUnit.MILLISECONDS);
        s.dispose(); // returns at once although a task is suspended
        assertTrue(delayed.isDisposed() && periodic.isDisposed());
        gate.complete(null);
        StepVerifier.create(s.disposeGracefully()).expectComplete().verify(TestSchedulers.PATIENCE);
        assertEquals(0, ran.get());
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void dispose_fromOneOfItsOwnTasks_returns(int workers) {
        MarlScheduler s = create(workers);
        CompletableFuture<Boolean> disposed = new CompletableFuture<>();
        s.schedule(() -> {
            s.dispose();
            disposed.complete(s.isDisposed());
        });
        assertTrue(TestSchedulers.get(disposed));
        StepVerifier.create(s.disposeGracefully()).expectComplete().verify(TestSchedulers.PATIENCE);
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void disposeGracefully_completesOnceQueuedAndDelayedWorkFinished_andCanTimeOutAndBeRetried(int workers) {
        MarlScheduler s = create(workers);
        CompletableFuture<Void> gate = new CompletableFuture<>();
        AtomicBoolean finished = new AtomicBoolean();
        s.schedule(() -> {
            Futures.await(gate);
            finished.set(true);
        });
        AtomicBoolean delayedRan = new AtomicBoolean();
        s.schedule(() -> delayedRan.set(true), 20, TimeUnit.MILLISECONDS);
        var graceful = s.disposeGracefully();
        assertFalse(s.isDisposed(), "disposeGracefully is lazy: nothing happens before subscription");
        StepVerifier.create(graceful.timeout(SHORT))
                .expectError(TimeoutException.class)
                .verify(TestSchedulers.PATIENCE);
        assertTrue(s.isDisposed());
        assertThrows(RejectedExecutionException.class, () -> s.schedule(() -> {}));
        gate.complete(null);
        StepVerifier.create(graceful).expectComplete().verify(TestSchedulers.PATIENCE);
        assertTrue(finished.get(), "the suspended task finished before termination");
        assertTrue(delayedRan.get(), "a delayed task still runs under a graceful shutdown");
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void now_isTheWallClock(int workers) {
        MarlScheduler s = create(workers);
        long before = System.currentTimeMillis();
        long now = s.now(TimeUnit.MILLISECONDS);
        assertTrue(now >= before && now <= System.currentTimeMillis());
        assertNotNull(s.toString());
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void scan_reportsNameCapacityAndDisposal_asReactorSchedulersDo(int workers) {
        MarlScheduler s = create(workers);
        Scannable scannable = Scannable.from(s);
        assertTrue(scannable.isScanAvailable(), "a MarlScheduler is Scannable");
        assertEquals(s.toString(), scannable.name());
        assertEquals(workers, scannable.scan(Scannable.Attr.CAPACITY));
        assertEquals(false, scannable.scan(Scannable.Attr.TERMINATED));
        assertEquals(false, scannable.scan(Scannable.Attr.CANCELLED));
        s.dispose();
        assertEquals(true, scannable.scan(Scannable.Attr.TERMINATED));
        assertEquals(true, scannable.scan(Scannable.Attr.CANCELLED));
        assertNull(scannable.scan(Scannable.Attr.PARENT));
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void workerScan_reportsParentQueuedTasksAndDisposal_asReactorWorkersDo(int workers) {
        MarlScheduler s = create(workers);
        Scheduler.Worker worker = s.createWorker();
        Scannable scannable = Scannable.from(worker);
        assertTrue(scannable.isScanAvailable(), "a MarlScheduler's Worker is Scannable");
        assertSame(s, scannable.scan(Scannable.Attr.PARENT));
        org.marl4j.Event release = new org.marl4j.Event(org.marl4j.Event.Mode.MANUAL);
        CountDownLatch started = new CountDownLatch(1);
        worker.schedule(() -> { // holds the worker's drain: the tasks after it stay queued
            started.countDown();
            release.await();
        });
        awaitLatch(started);
        for (int i = 0; i < 3; i++) {
            worker.schedule(() -> {});
        }
        assertEquals(3, scannable.scan(Scannable.Attr.BUFFERED));
        assertEquals(false, scannable.scan(Scannable.Attr.TERMINATED));
        release.signal();
        await().atMost(TestSchedulers.PATIENCE).until(() -> Integer.valueOf(0).equals(scannable.scan(Scannable.Attr.BUFFERED)));
        worker.dispose();
        assertEquals(true, scannable.scan(Scannable.Attr.TERMINATED));
        assertEquals(true, scannable.scan(Scannable.Attr.CANCELLED));
    }

    static void awaitLatch(CountDownLatch latch) {
        try {
            if (!latch.await(TestSchedulers.PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("latch not released within " + TestSchedulers.PATIENCE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void extremeDelays_runNoTimeLeftAtOnce_andNeverOverflow(int workers) {
        MarlScheduler s = create(workers);
        Scheduler.Worker worker = s.createWorker();
        try {
            for (long delay : new long[] {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0}) {
                for (TimeUnit unit : new TimeUnit[] {TimeUnit.NANOSECONDS, TimeUnit.MILLISECONDS, TimeUnit.DAYS}) {
                    CountDownLatch ran = new CountDownLatch(4);
                    s.schedule(ran::countDown, delay, unit);
                    worker.schedule(ran::countDown, delay, unit);
                    Disposable periodic = s.schedulePeriodically(ran::countDown, delay, Long.MAX_VALUE, unit);
                    Disposable workerPeriodic = worker.schedulePeriodically(ran::countDown, delay, Long.MAX_VALUE, unit);
                    awaitLatch(ran); // every task runs at once
                    periodic.dispose();
                    workerPeriodic.dispose();
                }
            }
            AtomicBoolean ranLater = new AtomicBoolean();
            for (TimeUnit unit : new TimeUnit[] {TimeUnit.NANOSECONDS, TimeUnit.DAYS}) {
                List<Disposable> far = List.of(
                        s.schedule(() -> ranLater.set(true), Long.MAX_VALUE, unit),
                        worker.schedule(() -> ranLater.set(true), Long.MAX_VALUE, unit),
                        s.schedulePeriodically(() -> ranLater.set(true), Long.MAX_VALUE, 1, unit),
                        worker.schedulePeriodically(() -> ranLater.set(true), Long.MAX_VALUE, 1, unit));
                far.forEach(Disposable::dispose);
                far.forEach(d -> assertTrue(d.isDisposed()));
            }
            // Due once after a positive delay, then in Long.MAX_VALUE: it runs once, however its first
            // run's timing rounds.
            AtomicInteger onceRuns = new AtomicInteger();
            Disposable once = s.schedulePeriodically(onceRuns::incrementAndGet, 1, Long.MAX_VALUE, TimeUnit.MILLISECONDS);
            Disposable onceOnWorker = worker.schedulePeriodically(onceRuns::incrementAndGet, 1, Long.MAX_VALUE, TimeUnit.NANOSECONDS);
            await().atMost(TestSchedulers.PATIENCE).until(() -> onceRuns.get() >= 2);
            CompletableFuture<Boolean> after = new CompletableFuture<>();
            s.schedule(() -> after.complete(true), 50, TimeUnit.MILLISECONDS);
            assertTrue(TestSchedulers.get(after));
            assertEquals(2, onceRuns.get(), "a periodic task with a Long.MAX_VALUE period ran more than once");
            once.dispose();
            onceOnWorker.dispose();
            assertTrue(TestSchedulers.get(after));
            assertFalse(ranLater.get(), "a task due in Long.MAX_VALUE ran");
        } finally {
            worker.dispose();
        }
    }
}
