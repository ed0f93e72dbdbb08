package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TestSchedulers.get;
import static org.marl4j.TestSchedulers.joinQuietly;
import static org.marl4j.TestSchedulers.onFiber;
import static org.marl4j.TestSchedulers.runOnFiber;
import static org.marl4j.TestSchedulers.startThread;
import static org.marl4j.TestSchedulers.withScheduler;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class FiberCallbackTest {

    @Test
    void forCurrentFiber_offFiber_isNull() {
        assertNull(Fiber.current());
        assertNull(FiberCallback.forCurrentFiber());
    }

    @ForEachWorkerCount
    void await_suspendsUntilRunFromAnotherThread(int workers) {
        withScheduler(workers, scheduler -> {
            AtomicReference<FiberCallback> callback = new AtomicReference<>();
            AtomicBoolean ran = new AtomicBoolean();
            CompletableFuture<Boolean> result = onFiber(scheduler, () -> {
                FiberCallback c = FiberCallback.forCurrentFiber();
                callback.set(c);
                c.await();
                return ran.get();
            });
            Thread runner = startThread("runner", () -> {
                await().until(() -> suspendedInCallback(scheduler));
                ran.set(true);
                callback.get().run();
            });
            assertTrue(get(result), "await returned before the callback ran");
            joinQuietly(runner);
        });
    }

    @ForEachWorkerCount
    void await_afterRun_returnsWithoutSuspending(int workers) {
        withScheduler(workers, scheduler -> assertFalse(runOnFiber(scheduler, () -> {
            AtomicBoolean otherTaskRan = new AtomicBoolean();
            // Queued on this very worker: it would run if await suspended this fiber.
            Scheduler.get().enqueue(new Task(() -> otherTaskRan.set(true), Task.Flag.SAME_THREAD));
            FiberCallback c = FiberCallback.forCurrentFiber();
            c.accept("value", null);
            c.await();
            return otherTaskRan.get();
        })));
    }

    /**
     * The fiber waits on an Event after making a callback and before awaiting it; the callback runs
     * during that Event wait. It must not end the Event wait (they must not share one wait node).
     */
    @ForEachWorkerCount
    void run_duringAnotherWaitOfTheFiber_doesNotEndThatWait(int workers) {
        withScheduler(workers, scheduler -> assertFalse(runOnFiber(scheduler, () -> {
            FiberCallback c = FiberCallback.forCurrentFiber();
            Event event = new Event();
            AtomicBoolean signalled = new AtomicBoolean();
            Thread runner = startThread("runner", () -> {
                await().atMost(TaskErrors.LONG).until(() -> event.waiterCount() == 1);
                c.run();
                // A wait ended by that run would have returned by now; then the real signal.
                await().pollDelay(Duration.ofMillis(50)).atMost(TaskErrors.LONG).until(() -> true);
                signalled.set(true);
                event.signal();
            });
            event.await();
            boolean endedBeforeTheSignal = !signalled.get();
            c.await(); // it has run: returns at once
            joinQuietly(runner);
            return endedBeforeTheSignal;
        }), "the callback's run ended the fiber's Event wait"));
    }

    /** A plain wake of the fiber (Fiber.wake(), public) must not end the wait: only the callback does. */
    @ForEachWorkerCount
    void await_otherWakesOfTheFiber_doNotEndIt(int workers) {
        withScheduler(workers, scheduler -> assertTrue(runOnFiber(scheduler, () -> {
            Fiber self = Fiber.current();
            FiberCallback c = FiberCallback.forCurrentFiber();
            AtomicBoolean callbackRan = new AtomicBoolean();
            // Both run on this worker once the fiber has suspended: a spurious wake first, which
            // the worker resumes (ready fibers go before new tasks), then the real callback.
            Scheduler.get().enqueue(new Task(() -> {
                self.wake();
                Scheduler.get().enqueue(new Task(() -> {
                    callbackRan.set(true);
                    c.run();
                }, Task.Flag.SAME_THREAD));
            }, Task.Flag.SAME_THREAD));
            c.await();
            return callbackRan.get();
        }), "await returned on a wake that was not the callback"));
    }

    /** Only the first run counts: a stale second one must not end the fiber's next wait. */
    @ForEachWorkerCount
    void run_again_doesNotEndTheNextWait(int workers) {
        withScheduler(workers, scheduler -> assertTrue(runOnFiber(scheduler, () -> {
            FiberCallback first = FiberCallback.forCurrentFiber();
            first.run();
            first.await();
            FiberCallback second = FiberCallback.forCurrentFiber(); // the fiber's own node again
            AtomicBoolean secondRan = new AtomicBoolean();
            Scheduler.get().enqueue(new Task(() -> {
                first.run(); // stale
                Scheduler.get().enqueue(new Task(() -> {
                    secondRan.set(true);
                    second.run();
                }, Task.Flag.SAME_THREAD));
            }, Task.Flag.SAME_THREAD));
            second.await();
            return secondRan.get();
        }), "a second run of a spent callback ended another wait"));
    }

    @ForEachWorkerCount
    void await_notByItsFiber_throws(int workers) {
        withScheduler(workers, scheduler -> {
            AtomicReference<FiberCallback> callback = new AtomicReference<>();
            Event made = new Event(Event.Mode.MANUAL);
            Event go = new Event(Event.Mode.MANUAL);
            // The maker stays alive (suspended on go) while another fiber tries: a finished task's
            // fiber is reused by later tasks, which would then be the maker again.
            CompletableFuture<Boolean> maker = onFiber(scheduler, () -> {
                FiberCallback c = FiberCallback.forCurrentFiber();
                callback.set(c);
                made.signal();
                go.await();
                c.run();
                c.await();
                return true;
            });
            CompletableFuture<IllegalStateException> other = onFiber(scheduler, () -> {
                made.await();
                try {
                    return assertThrows(IllegalStateException.class, callback.get()::await);
                } finally {
                    go.signal();
                }
            });
            assertNotNull(get(other), "another fiber awaited it");
            assertTrue(get(maker));
        });
    }

    /** A bounded close cancels the wait; the callback running later is harmless. */
    @ForEachWorkerCount
    void await_cancelledByBoundedClose_throwsAndALaterRunIsHarmless(int workers) {
        Scheduler.Config config = TestSchedulers.config(workers);
        AtomicReference<FiberCallback> callback = new AtomicReference<>();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        WaitGroup started = new WaitGroup(1);
        Scheduler scheduler = new Scheduler(config);
        if (workers == 0) {
            scheduler.bind(); // the task runs when close() unbinds this thread
        }
        scheduler.enqueue(new Task(() -> {
            FiberCallback c = FiberCallback.forCurrentFiber();
            callback.set(c);
            started.done();
            try {
                c.await();
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
        callback.get().run();
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    private static boolean suspendedInCallback(Scheduler scheduler) {
        return scheduler.suspendedFibers().stream().anyMatch(f -> f.state() == SuspendedFiber.State.WAITING
                && f.stackTrace().stream().anyMatch(e -> e.getClassName().equals(FiberCallback.class.getName())));
    }
}
