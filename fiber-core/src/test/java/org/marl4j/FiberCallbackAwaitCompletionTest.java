package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TestSchedulers.get;
import static org.marl4j.TestSchedulers.joinQuietly;
import static org.marl4j.TestSchedulers.onFiber;
import static org.marl4j.TestSchedulers.runOnFiber;
import static org.marl4j.TestSchedulers.startThread;
import static org.marl4j.TestSchedulers.withBoundScheduler;
import static org.marl4j.TestSchedulers.withScheduler;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** FiberCallback.awaitCompletion: a fiber waits for a CompletableFuture with its continuation as the callback. */
class FiberCallbackAwaitCompletionTest {

    @Test
    void awaitCompletion_offFiber_returnsFalseAtOnce() {
        CompletableFuture<String> never = new CompletableFuture<>();
        assertFalse(FiberCallback.awaitCompletion(never));
        assertEquals(0, never.getNumberOfDependents(), "off a fiber it registers nothing");
    }

    @Test
    void awaitCompletion_null_throws() {
        assertThrows(NullPointerException.class, () -> FiberCallback.awaitCompletion(null));
    }

    @ForEachWorkerCount
    void awaitCompletion_suspendsUntilCompletedFromAnotherThread(int workers) {
        withScheduler(workers, scheduler -> {
            CompletableFuture<String> future = new CompletableFuture<>();
            AtomicBoolean completing = new AtomicBoolean();
            CompletableFuture<Boolean> result = onFiber(scheduler, () -> {
                assertTrue(FiberCallback.awaitCompletion(future));
                return completing.get() && future.isDone();
            });
            Thread completer = startThread("completer", () -> {
                await().atMost(TaskErrors.LONG).until(() -> suspendedIn(scheduler, "awaitDone"));
                completing.set(true);
                future.complete("done");
            });
            assertTrue(get(result), "awaitCompletion returned before the future completed");
            joinQuietly(completer);
        });
    }

    @ForEachWorkerCount
    void awaitCompletion_alreadyDone_returnsWithoutSuspending(int workers) {
        withScheduler(workers, scheduler -> assertFalse(runOnFiber(scheduler, () -> {
            AtomicBoolean otherTaskRan = new AtomicBoolean();
            // Queued on this very worker: it would run if the call suspended this fiber.
            Scheduler.get().enqueue(new Task(() -> otherTaskRan.set(true), Task.Flag.SAME_THREAD));
            assertTrue(FiberCallback.awaitCompletion(CompletableFuture.completedFuture(1)));
            return otherTaskRan.get();
        })));
    }

    /** A plain wake of the fiber (Fiber.wake(), public) must not end the wait: only the completion does. */
    @ForEachWorkerCount
    void awaitCompletion_otherWakesOfTheFiber_doNotEndIt(int workers) {
        withScheduler(workers, scheduler -> assertTrue(runOnFiber(scheduler, () -> {
            Fiber self = Fiber.current();
            CompletableFuture<String> future = new CompletableFuture<>();
            // Both run on this worker once the fiber has suspended: a spurious wake first, which
            // the worker resumes (ready fibers go before new tasks), then the completion.
            Scheduler.get().enqueue(new Task(() -> {
                self.wake();
                Scheduler.get().enqueue(new Task(() -> future.complete("done"), Task.Flag.SAME_THREAD));
            }, Task.Flag.SAME_THREAD));
            FiberCallback.awaitCompletion(future);
            return future.isDone();
        }), "awaitCompletion returned on a wake that was not the completion"));
    }

    /**
     * A cancelled wait leaves the fiber's continuation on the future; completing the future later
     * wakes the fiber while it waits on an Event, which must not end that wait.
     */
    @ForEachWorkerCount
    void awaitCompletion_cancelled_aLaterCompletionDoesNotEndAnotherWait(int workers) {
        withScheduler(workers, scheduler -> assertFalse(runOnFiber(scheduler, () -> {
            CompletableFuture<String> stale = new CompletableFuture<>();
            try (FiberCancellation cancellation = FiberCancellation.open()) {
                Scheduler.get().enqueue(new Task(cancellation::cancel, Task.Flag.SAME_THREAD));
                assertThrows(FiberCancelledException.class, () -> FiberCallback.awaitCompletion(stale));
            }
            Event event = new Event();
            AtomicBoolean signalled = new AtomicBoolean();
            Thread completer = startThread("completer", () -> {
                await().atMost(TaskErrors.LONG).until(() -> event.waiterCount() == 1);
                stale.complete("late");
                // A wait ended by that completion would have returned by now; then the real signal.
                await().pollDelay(Duration.ofMillis(50)).atMost(TaskErrors.LONG).until(() -> true);
                signalled.set(true);
                event.signal();
            });
            event.await();
            boolean endedBeforeTheSignal = !signalled.get();
            joinQuietly(completer);
            return endedBeforeTheSignal;
        }), "the stale future's completion ended the fiber's Event wait"));
    }

    /** A bound thread's main fiber has no continuation to serve as the callback: it waits all the same. */
    @ForEachWorkerCount
    void awaitCompletion_onABoundThread_waitsForTheCompletion(int workers) {
        withBoundScheduler(workers, scheduler -> {
            CompletableFuture<String> future = new CompletableFuture<>();
            scheduler.enqueue(new Task(() -> future.complete("done")));
            assertTrue(FiberCallback.awaitCompletion(future));
            assertTrue(future.isDone());
        });
    }

    /** A bounded close cancels the wait; the completion that comes later is harmless. */
    @ForEachWorkerCount
    void awaitCompletion_cancelledByBoundedClose_throws(int workers) {
        Scheduler.Config config = TestSchedulers.config(workers);
        CompletableFuture<String> future = new CompletableFuture<>();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        WaitGroup started = new WaitGroup(1);
        Scheduler scheduler = new Scheduler(config);
        if (workers == 0) {
            scheduler.bind(); // the task runs when close() unbinds this thread
        }
        scheduler.enqueue(new Task(() -> {
            started.done();
            try {
                FiberCallback.awaitCompletion(future);
            } catch (Throwable t) {
                thrown.set(t);
                throw t;
            }
        }));
        if (workers > 0) {
            started.await();
        }
        scheduler.close(Duration.ofMillis(50));
        assertInstanceOf(FiberCancelledException.class, thrown.get());
        future.complete("late");
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    private static boolean suspendedIn(Scheduler scheduler, String method) {
        return scheduler.suspendedFibers().stream().anyMatch(f -> f.stackTrace().stream()
                .anyMatch(e -> e.getClassName().equals(FiberWaits.class.getName()) && e.getMethodName().equals(method)));
    }
}
