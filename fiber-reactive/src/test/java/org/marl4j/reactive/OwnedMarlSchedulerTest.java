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
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.marl4j.FiberCancelledException;
import org.marl4j.Scheduler;
import org.marl4j.Task;
import org.marl4j.TestSchedulers;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** The Scheduler contract for {@link MarlScheduler#create}: dispose closes the owned marl scheduler. */
class OwnedMarlSchedulerTest extends MarlSchedulerContract {
    private MarlScheduler created;
    private String prefix;

    @Override
    MarlScheduler create(int workers) {
        Scheduler.Config config = config(workers);
        prefix = config.getThreadNamePrefix();
        created = MarlScheduler.create(config);
        return created;
    }

    @Override
    void tearDown() {
        if (created != null) {
            created.dispose();
            StepVerifier.create(created.disposeGracefully()).expectComplete().verify(TestSchedulers.PATIENCE);
            TestSchedulers.assertNoThreadsLeft(prefix);
        }
    }

    @Test
    void dispose_closesTheOwnedSchedulerInTheBackground() {
        MarlScheduler s = create(2);
        Scheduler marl = s.scheduler();
        s.dispose();
        await().atMost(TestSchedulers.PATIENCE).untilAsserted(() -> TestSchedulers.assertNoThreadsLeft(prefix));
        assertThrows(RejectedExecutionException.class, () -> marl.enqueue(new Task(() -> {})));
    }

    private static final String ERRORS_HOOK = "owned-dispose-test";
    private static final Duration SHORT = Duration.ofMillis(50);

    @AfterEach
    void resetErrorsHook() {
        Schedulers.resetOnHandleError(ERRORS_HOOK);
    }

    /** reportedErrors() collects what reaches Reactor's error handling from now on. */
    private static Queue<Throwable> reportedErrors() {
        Queue<Throwable> reported = new ConcurrentLinkedQueue<>();
        Schedulers.onHandleError(ERRORS_HOOK, (thread, error) -> reported.add(error));
        return reported;
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void dispose_cancelsTheWaitOfATaskSuspendedForever_soTheThreadsEnd(int workers) {
        MarlScheduler s = create(workers);
        Queue<Throwable> reported = reportedErrors();
        CountDownLatch waiting = new CountDownLatch(1);
        AtomicBoolean upstreamCancelled = new AtomicBoolean();
        CompletableFuture<Throwable> unwound = new CompletableFuture<>();
        s.schedule(() -> {
            waiting.countDown();
            try {
                Publishers.awaitFirst(Mono.never().doOnCancel(() -> upstreamCancelled.set(true)));
            } catch (Throwable t) {
                unwound.complete(t);
                throw t;
            }
        });
        awaitLatch(waiting);
        s.dispose(); // forceful, as Schedulers.newParallel's dispose interrupts its running tasks
        assertInstanceOf(FiberCancelledException.class, TestSchedulers.get(unwound));
        await().atMost(TestSchedulers.PATIENCE).untilAsserted(() -> TestSchedulers.assertNoThreadsLeft(prefix));
        StepVerifier.create(s.disposeGracefully()).expectComplete().verify(TestSchedulers.PATIENCE);
        assertTrue(upstreamCancelled.get(), "the cancelled await cancels its subscription");
        assertEquals(List.of(), List.copyOf(reported), "a cancellation by dispose is no task failure to report");
    }

    @Test
    void disposeGracefully_timedOut_thenDispose_endsATaskSuspendedForever() {
        MarlScheduler s = create(2);
        CountDownLatch waiting = new CountDownLatch(1);
        s.schedule(() -> {
            waiting.countDown();
            Publishers.awaitFirst(Mono.never());
        });
        awaitLatch(waiting);
        Mono<Void> graceful = s.disposeGracefully();
        StepVerifier.create(graceful.timeout(SHORT)).expectError(TimeoutException.class).verify(TestSchedulers.PATIENCE);
        s.dispose();
        StepVerifier.create(graceful).expectComplete().verify(TestSchedulers.PATIENCE);
        TestSchedulers.assertNoThreadsLeft(prefix);
    }

    @Test
    void dispose_endsAGracefulCloseWaitingForAPublishProducerThatHasNoDemand() {
        MarlScheduler s = create(1);
        CompletableFuture<Throwable> subscriberError = new CompletableFuture<>();
        CountDownLatch producing = new CountDownLatch(1);
        // A producer fiber the MarlScheduler does not count: it waits for demand that never comes.
        Publishers.<Integer>publish(s.scheduler(), emitter -> {
            producing.countDown();
            emitter.emit(1);
        }).subscribe(new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(org.reactivestreams.Subscription subscription) {} // no request

            @Override
            protected void hookOnError(Throwable error) {
                subscriberError.complete(error);
            }
        });
        awaitLatch(producing);
        Mono<Void> graceful = s.disposeGracefully(); // no counted task left: it closes the marl scheduler...
        StepVerifier.create(graceful.timeout(SHORT)).expectError(TimeoutException.class).verify(TestSchedulers.PATIENCE);
        s.dispose(); // ...which waits for the producer until dispose cancels its emit
        StepVerifier.create(graceful).expectComplete().verify(TestSchedulers.PATIENCE);
        TestSchedulers.assertNoThreadsLeft(prefix);
        assertInstanceOf(FiberCancelledException.class, TestSchedulers.get(subscriberError));
    }

    @Test
    void dispose_dropsTheTasksQueuedBehindACancelledWorkerTask() {
        MarlScheduler s = create(2);
        reactor.core.scheduler.Scheduler.Worker worker = s.createWorker();
        CountDownLatch waiting = new CountDownLatch(1);
        AtomicBoolean nextRan = new AtomicBoolean();
        worker.schedule(() -> {
            waiting.countDown();
            Publishers.awaitFirst(Mono.never());
        });
        worker.schedule(() -> nextRan.set(true)); // queued behind the suspended task
        awaitLatch(waiting);
        s.dispose();
        StepVerifier.create(s.disposeGracefully()).expectComplete().verify(TestSchedulers.PATIENCE);
        assertTrue(!nextRan.get(), "a task queued on a Worker ran after its scheduler was disposed");
    }

    @Test
    void create_withoutWorkerThreads_isRejected() {
        assertThrows(IllegalArgumentException.class, () -> MarlScheduler.create(TestSchedulers.config(0)));
        assertThrows(NullPointerException.class, () -> MarlScheduler.create(null));
    }
}
