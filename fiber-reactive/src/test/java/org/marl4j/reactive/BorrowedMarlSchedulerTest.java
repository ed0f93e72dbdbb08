package org.marl4j.reactive;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.marl4j.Fiber;
import org.marl4j.FiberCancelledException;
import org.marl4j.Scheduler;
import org.marl4j.Task;
import org.marl4j.TaskErrors;
import org.marl4j.TestSchedulers;
import org.marl4j.WorkerHold;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** The Scheduler contract for {@link MarlScheduler#from}: dispose leaves the marl scheduler open. */
class BorrowedMarlSchedulerTest extends MarlSchedulerContract {
    private Scheduler marl;
    private String prefix;

    @Override
    MarlScheduler create(int workers) {
        Scheduler.Config config = config(workers);
        prefix = config.getThreadNamePrefix();
        marl = new Scheduler(config);
        return MarlScheduler.from(marl);
    }

    @Override
    void tearDown() {
        if (marl != null) {
            marl.close();
            TestSchedulers.assertNoThreadsLeft(prefix);
        }
    }

    @Test
    void dispose_leavesTheBorrowedSchedulerOpen() {
        MarlScheduler s = create(2);
        StepVerifier.create(s.disposeGracefully()).expectComplete().verify(TestSchedulers.PATIENCE);
        CompletableFuture<Void> ran = new CompletableFuture<>();
        marl.enqueue(new Task(() -> ran.complete(null)));
        TestSchedulers.get(ran);
    }

    @Test
    void from_aSchedulerWithoutWorkerThreads_isRejected() {
        marl = new Scheduler(TestSchedulers.config(0));
        prefix = "none";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MarlScheduler.from(marl));
        assertTrue(e.getMessage().contains("setWorkerThreadCount"), e.getMessage());
        assertThrows(NullPointerException.class, () -> MarlScheduler.from(null));
    }

    @Test
    void schedule_afterTheBorrowedSchedulerClosed_isRejected() {
        MarlScheduler s = create(1);
        marl.close();
        assertThrows(RejectedExecutionException.class, () -> s.schedule(() -> {}));
        StepVerifier.create(Mono.just(1).publishOn(s))
                .expectError(RejectedExecutionException.class)
                .verify(TestSchedulers.PATIENCE);
    }

    @Test
    void publishOn_afterTheBorrowedSchedulerClosed_failsSayingItIsClosed_notJustSchedulerUnavailable() {
        MarlScheduler s = create(1);
        marl.close();
        // Reactor's own rejection, whose singleton says only "Scheduler unavailable", carries marl4j's reason.
        StepVerifier.create(Flux.range(1, 3).publishOn(s))
                .expectErrorMatches(e -> e instanceof RejectedExecutionException
                        && causesSay(e, "is closed"))
                .verify(TestSchedulers.PATIENCE);
        StepVerifier.create(Mono.just(1).subscribeOn(s))
                .expectErrorMatches(e -> e instanceof RejectedExecutionException
                        && causesSay(e, "is closed"))
                .verify(TestSchedulers.PATIENCE);
    }

    @Test
    void theOwnersBoundedClose_cancelsASuspendedTasksWait_withoutReportingItAsAnError() {
        MarlScheduler s = create(2);
        Queue<Throwable> reported = new ConcurrentLinkedQueue<>();
        Schedulers.onHandleError("borrowed-close-test", (thread, error) -> reported.add(error));
        try {
            CompletableFuture<Throwable> unwound = new CompletableFuture<>();
            s.schedule(() -> {
                try {
                    Publishers.awaitFirst(Mono.never());
                } catch (Throwable t) {
                    unwound.complete(t);
                    throw t;
                }
            });
            marl.close(Duration.ofMillis(100)); // gives up on the wait: cancels it
            assertInstanceOf(FiberCancelledException.class, TestSchedulers.get(unwound));
            // close() returned after the task ended, and the report (if any) came before it ended
            assertEquals(List.of(), List.copyOf(reported),
                    "the cancellation of a wait by the scheduler's close is no task failure to report");
        } finally {
            Schedulers.resetOnHandleError("borrowed-close-test");
        }
    }

    @Test
    void closingTheBorrowedScheduler_stopsAFluxInterval_insteadOfWaitingForItForever() {
        MarlScheduler s = create(2);
        AtomicInteger ticks = new AtomicInteger();
        Disposable interval = Flux.interval(Duration.ofMillis(5), s)
                .subscribe(tick -> ticks.incrementAndGet());
        await().atMost(TestSchedulers.PATIENCE).until(() -> ticks.get() >= 3);
        // As a ScheduledThreadPoolExecutor's shutdown() cancels its periodic tasks: the next tick is
        // refused, so close() does not wait for a timer that re-arms itself for ever. As with a
        // disposed Reactor scheduler, the interval then stops without a signal.
        TaskErrors.join(TestSchedulers.startThread("closer", marl::close));
        int afterClose = ticks.get();
        assertEquals(afterClose, ticks.get(), "no tick after close");
        interval.dispose();
    }

    /**
     * A Worker's periodic run is queued on the worker, whose drain is a task of the scheduler. If
     * dispose() lands after the run's timer queued that drain and before the drain starts, the drain
     * must still drop what it holds: the periodic task is counted until it ends, and a borrowed
     * scheduler terminates only when the count reaches zero. One marl worker thread makes the order
     * exact: the periodic body queues B, B queues C behind the next run's timer, that timer queues
     * the drain behind C, and C holds the thread while the test disposes.
     */
    @Test
    void dispose_beforeAWorkersDrainStarted_stillEndsTheQueuedPeriodicRun_soTerminationCompletes() {
        MarlScheduler s = create(1);
        reactor.core.scheduler.Scheduler.Worker worker = s.createWorker();
        CountDownLatch holding = new CountDownLatch(1);
        WorkerHold release = new WorkerHold();
        AtomicInteger runs = new AtomicInteger();
        Disposable periodic = worker.schedulePeriodically(() -> {
            if (runs.incrementAndGet() == 1) {
                marl.enqueue(new Task(() -> marl.enqueue(new Task(() -> {
                    holding.countDown();
                    release.hold(); // holds the only worker thread: the drain waits behind it
                }))));
            }
        }, 0, 1, TimeUnit.NANOSECONDS);
        awaitLatch(holding);
        s.dispose();
        release.release();
        StepVerifier.create(s.disposeGracefully()).expectComplete().verify(TestSchedulers.PATIENCE);
        assertEquals(1, runs.get(), "the periodic task ran after dispose()");
        assertTrue(periodic.isDisposed());
    }

    /**
     * A periodic task re-armed at once (a non-positive period, or a run later than its period: a
     * fixed-rate catch-up) must end when the borrowed marl scheduler closes, as one re-armed on the
     * deadline heap does: close() lets a scheduler's own tasks enqueue while it drains, so a task
     * that re-queues itself there keeps it open for ever.
     */
    @ParameterizedTest(name = "{0} worker threads, period {1} ms, on a Worker: {2}")
    @CsvSource({"1, 0, false", "2, 0, true", "4, 0, false", "1, 1, true", "2, 1, false",
            "4, 1, true"})
    void closingTheBorrowedScheduler_endsAPeriodicTaskThatReArmsAtOnce(int workers, long periodMillis, boolean onWorker) {
        MarlScheduler s = create(workers);
        reactor.core.scheduler.Scheduler.Worker worker = s.createWorker();
        AtomicInteger runs = new AtomicInteger();
        Runnable body = () -> {
            runs.incrementAndGet();
            if (periodMillis > 0) {
                Fiber.sleep(Duration.ofMillis(3 * periodMillis)); // every run is late
            }
        };
        Disposable periodic = onWorker
                ? worker.schedulePeriodically(body, 0, periodMillis, TimeUnit.MILLISECONDS)
                : s.schedulePeriodically(body, 0, periodMillis, TimeUnit.MILLISECONDS);
        await().atMost(TestSchedulers.PATIENCE).until(() -> runs.get() >= 3);
        Thread closer = TestSchedulers.startThread("closer", marl::close);
        try {
            await("close() of the borrowed scheduler")
                    .atMost(TestSchedulers.PATIENCE).until(() -> !closer.isAlive());
        } finally {
            periodic.dispose(); // lets a close that hung end, so that the next tests run
            worker.dispose();
            TaskErrors.join(closer);
        }
        assertTrue(periodic.isDisposed());
    }

    /**
     * A periodic task scheduled while a graceful dispose lands, between being counted and being
     * listed for cancellation, must still be cancelled: otherwise it runs for ever and termination
     * never comes. A race over many rounds (each a new MarlScheduler over the same marl scheduler),
     * bounded in rounds and time; it does not catch the window every run.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void aPeriodicTaskScheduledAsAGracefulDisposeLands_isCancelled_soTerminationCompletes(int workers) {
        create(workers);
        long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        for (int round = 0; round < 5_000 && System.nanoTime() - until < 0; round++) {
            MarlScheduler s = MarlScheduler.from(marl);
            AtomicBoolean go = new AtomicBoolean();
            Thread scheduling = Thread.ofPlatform().start(() -> {
                while (!go.get()) {
                    Thread.onSpinWait(); // both sides start together: the window is a few instructions wide
                }
                try {
                    s.schedulePeriodically(() -> {}, 0, 1, TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException disposedFirst) {
                    // the dispose won the race outright: nothing to cancel
                }
            });
            go.set(true);
            StepVerifier.create(s.disposeGracefully()).expectComplete().verify(Duration.ofSeconds(10));
            TaskErrors.join(scheduling);
        }
    }

    /**
     * A Worker whose drain saw the scheduler disposed stops draining for good; a periodic run whose
     * timer fired just before dispose() can still be queued on it afterwards, and must be dropped
     * there, not left in a queue nobody drains: the periodic task is counted until it ends, and a
     * borrowed scheduler terminates only when the count reaches zero. Periodic tasks with a
     * non-positive period keep their timers firing, so dispose() often lands in that window; a race
     * over many rounds, bounded in rounds and time.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void dispose_whileAWorkersPeriodicTimersFire_stillEndsEveryPeriodicTask_soTerminationCompletes(int workers) {
        create(workers);
        long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        for (int round = 0; round < 20_000 && System.nanoTime() - until < 0; round++) {
            MarlScheduler s = MarlScheduler.from(marl);
            reactor.core.scheduler.Scheduler.Worker worker = s.createWorker();
            AtomicInteger runs = new AtomicInteger();
            for (int k = 0; k < 3; k++) {
                worker.schedulePeriodically(runs::incrementAndGet, 0, 0, TimeUnit.NANOSECONDS);
            }
            long patience = System.nanoTime() + TestSchedulers.PATIENCE.toNanos();
            while (runs.get() < 5) { // a spin, not Awaitility's polls: rounds must be quick for the race to show
                assertTrue(System.nanoTime() - patience < 0, "the periodic tasks never ran");
                Thread.onSpinWait();
            }
            s.dispose();
            StepVerifier.create(s.disposeGracefully()).expectComplete().verify(TestSchedulers.PATIENCE);
        }
    }
}
