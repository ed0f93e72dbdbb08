package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;

class FiberCancellationTest {

    @org.junit.jupiter.params.ParameterizedTest(name = "{0} cancelled scopes")
    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 127, 128, 200, 255, 256, 1000})
    void manyNestedCancelledScopes_cancelEveryWaitInside_andNoneOnceAllAreClosed(int scopes) {
        for (int workers : new int[] {0, 1, 2, 8}) {
            TestSchedulers.withBoundScheduler(workers, scheduler -> {
                List<Object> seen = TestSchedulers.runOnFiber(scheduler, () -> {
                    List<Object> results = new ArrayList<>();
                    Event never = new Event(Event.Mode.MANUAL);
                    List<FiberCancellation> open = new ArrayList<>();
                    for (int i = 0; i < scopes; i++) {
                        open.add(FiberCancellation.open());
                    }
                    open.forEach(FiberCancellation::cancel);
                    for (int i = scopes - 1; i >= 0; i--) {
                        try {
                            never.await(TaskErrors.LONG); // refused at once: it would suspend
                            results.add("a wait inside " + (i + 1) + " cancelled scopes returned");
                        } catch (FiberCancelledException expected) {
                            // still cancelled by the scopes left open
                        }
                        open.get(i).close();
                    }
                    results.add(never.await(Duration.ofMillis(20))); // every scope closed: an honest timeout
                    return results;
                });
                assertEquals(List.of(false), seen, workers + " workers");
            });
        }
    }

    @ForEachWorkerCount
    void cancel_endsTheWaitTheFiberIsSuspendedIn_withFiberCancelledException(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            AtomicReference<FiberCancellation> handle = new AtomicReference<>();
            Event opened = new Event(Event.Mode.MANUAL);
            Event never = new Event(Event.Mode.MANUAL);
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            WaitGroup done = scheduleCancellableWait(handle, thrown, () -> {
                opened.signal();
                never.await();
            });
            opened.await();
            assertTrue(handle.get().cancel());
            assertTrue(done.await(TaskErrors.LONG), "the cancelled wait did not end");
            assertInstanceOf(FiberCancelledException.class, thrown.get());
            assertTrue(thrown.get().getMessage().contains("FiberCancellation.cancel()"), thrown.get().getMessage());
            assertTrue(handle.get().isCancelled());
        });
    }

    @ForEachWorkerCount
    void cancel_fromAPlainThread_endsATimedWait(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            AtomicReference<FiberCancellation> handle = new AtomicReference<>();
            Event never = new Event(Event.Mode.MANUAL);
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            WaitGroup done = scheduleCancellableWait(handle, thrown, () -> never.await(Duration.ofHours(1)));
            Thread canceller = TestSchedulers.startThread("canceller", () -> {
                await().atMost(TaskErrors.LONG).until(() -> handle.get() != null);
                // Until the fiber suspends the cancel lands before the wait, which must throw too.
                handle.get().cancel();
            });
            assertTrue(done.await(TaskErrors.LONG), "the cancelled timed wait did not end");
            TaskErrors.join(canceller);
            assertInstanceOf(FiberCancelledException.class, thrown.get());
        });
    }

    /**
     * scheduleCancellableWait(handle, thrown, wait) schedules a fiber that opens a FiberCancellation,
     * puts it in handle and runs wait inside it; what wait throws goes into thrown. The returned
     * WaitGroup is done when the fiber has closed the cancellation.
     */
    private static WaitGroup scheduleCancellableWait(AtomicReference<FiberCancellation> handle,
            AtomicReference<Throwable> thrown, Runnable wait) {
        WaitGroup done = new WaitGroup(1);
        Marl.schedule(() -> {
            try (FiberCancellation cancellation = FiberCancellation.open()) {
                handle.set(cancellation);
                wait.run();
            } catch (Throwable t) {
                thrown.set(t);
            } finally {
                done.done();
            }
        });
        return done;
    }

    @ForEachWorkerCount
    void afterCancel_everyLaterWaitThrows_untilClose_thenTheFiberWaitsNormally(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            int thrown = TestSchedulers.runOnFiber(scheduler, () -> {
                int count = 0;
                FiberCancellation cancellation = FiberCancellation.open();
                assertTrue(cancellation.cancel()); // by the fiber itself
                for (Runnable wait : List.<Runnable>of(
                        () -> new Event().await(),
                        Fiber::yield,
                        () -> Fiber.sleep(Duration.ofMillis(1)),
                        () -> new WaitGroup(1).await(Duration.ofHours(1)))) {
                    try {
                        wait.run();
                    } catch (FiberCancelledException expected) {
                        count++;
                    }
                }
                cancellation.close();
                Fiber.yield();
                Fiber.sleep(Duration.ofMillis(1));
                Event event = new Event();
                Marl.schedule(event::signal);
                event.await();
                return count;
            });
            assertEquals(4, thrown);
        });
    }

    @ForEachWorkerCount
    void aCancelledWaitWhoseConditionHoldsReturnsNormally(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            boolean returned = TestSchedulers.runOnFiber(scheduler, () -> {
                try (FiberCancellation cancellation = FiberCancellation.open()) {
                    cancellation.cancel();
                    Event signalled = new Event(Event.Mode.MANUAL, true);
                    signalled.await();
                    new WaitGroup().await();
                    return true;
                }
            });
            assertTrue(returned);
        });
    }

    @ForEachWorkerCount
    void aCancelledConditionWait_takesItsMutexBackBeforeThrowing(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Mutex mutex = new Mutex();
            ConditionVariable condition = new ConditionVariable();
            AtomicReference<FiberCancellation> handle = new AtomicReference<>();
            Event opened = new Event(Event.Mode.MANUAL);
            WaitGroup done = new WaitGroup(1);
            AtomicReference<Boolean> heldAfterCancel = new AtomicReference<>();
            Marl.schedule(() -> {
                try (FiberCancellation cancellation = FiberCancellation.open()) {
                    mutex.lock();
                    try {
                        handle.set(cancellation);
                        opened.signal();
                        condition.await(mutex, () -> false);
                    } catch (FiberCancelledException expected) {
                        heldAfterCancel.set(mutex.isHeldByCurrentFiber());
                    } finally {
                        mutex.unlock();
                    }
                } finally {
                    done.done();
                }
            });
            opened.await();
            // The waiter releases the mutex while suspended: take it, so the cancelled fiber must
            // wait for it (spared the cancellation) before its exception propagates.
            mutex.lock();
            handle.get().cancel();
            mutex.unlock();
            assertTrue(done.await(TaskErrors.LONG));
            assertEquals(Boolean.TRUE, heldAfterCancel.get());
        });
    }

    @ForEachWorkerCount
    void scopesNest_anOuterCancellationOutlivesAnInnerScope_andAnInnerOneEndsWithIt(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            List<String> seen = TestSchedulers.runOnFiber(scheduler, () -> {
                List<String> log = new ArrayList<>();
                try (FiberCancellation outer = FiberCancellation.open()) {
                    try (FiberCancellation inner = FiberCancellation.open()) {
                        inner.cancel();
                        log.add(yieldThrows() ? "inner cancelled: throws" : "inner cancelled: waits");
                    }
                    log.add(yieldThrows() ? "after inner: throws" : "after inner: waits");
                    try (FiberCancellation inner = FiberCancellation.open()) {
                        outer.cancel();
                        log.add(yieldThrows() ? "outer cancelled: throws" : "outer cancelled: waits");
                        inner.cancel();
                    }
                    log.add(yieldThrows() ? "after second inner: throws" : "after second inner: waits");
                }
                log.add(yieldThrows() ? "after outer: throws" : "after outer: waits");
                return log;
            });
            assertEquals(List.of("inner cancelled: throws", "after inner: waits", "outer cancelled: throws",
                    "after second inner: throws", "after outer: waits"), seen);
        });
    }

    private static boolean yieldThrows() {
        try {
            Fiber.sleep(Duration.ofNanos(1));
            return false;
        } catch (FiberCancelledException e) {
            return true;
        }
    }

    @Test
    void cancelReturnsTrueOnce_andNothingAfterClose() {
        TestSchedulers.withBoundScheduler(1, scheduler -> {
            TestSchedulers.runOnFiber(scheduler, () -> {
                FiberCancellation first = FiberCancellation.open();
                assertTrue(first.cancel());
                assertFalse(first.cancel());
                first.close();
                first.close(); // idempotent
                assertTrue(first.isCancelled());
                FiberCancellation second = FiberCancellation.open();
                second.close();
                assertFalse(second.cancel());
                assertFalse(second.isCancelled());
                Fiber.yield(); // neither leaves the fiber cancelled
                return null;
            });
        });
    }

    @Test
    void close_onAnotherFiber_throwsNamingTheFix() {
        TestSchedulers.withBoundScheduler(2, scheduler -> {
            FiberCancellation cancellation = TestSchedulers.runOnFiber(scheduler, FiberCancellation::open);
            IllegalStateException e = assertThrows(IllegalStateException.class, cancellation::close);
            assertTrue(e.getMessage().contains("must be closed by the fiber that opened it"), e.getMessage());
            assertTrue(e.getMessage().contains("try-with-resources"), e.getMessage());
        });
    }

    @Test
    void openedOffAFiber_cancelOnlyMarksIt() {
        assertNull(Fiber.current());
        try (FiberCancellation cancellation = FiberCancellation.open()) {
            assertTrue(cancellation.cancel());
            assertTrue(cancellation.isCancelled());
            assertTrue(cancellation.toString().contains("off a fiber"), cancellation.toString());
        }
    }

    @ForEachWorkerCount
    void aCancelledScopeLeftOpen_isReported_andDoesNotCancelTheFibersNextTask(int workers) {
        TaskErrors errors = new TaskErrors();
        TestSchedulers.withBoundScheduler(errors.config(workers), scheduler -> {
            AtomicReference<Throwable> nextTaskFailure = new AtomicReference<>();
            WaitGroup done = new WaitGroup(1);
            Marl.schedule(() -> {
                FiberCancellation.open().cancel(); // left open: a bug in the task
                // Runs next on this thread, on this fiber (nothing else is ready here).
                scheduler.enqueue(new Task(() -> {
                    try {
                        Fiber.yield();
                        Fiber.sleep(Duration.ofMillis(1));
                    } catch (Throwable t) {
                        nextTaskFailure.set(t);
                    } finally {
                        done.done();
                    }
                }, Task.Flag.SAME_THREAD));
            });
            assertTrue(done.await(TaskErrors.LONG));
            assertNull(nextTaskFailure.get());
        }); // the report's task has run when close returns
        assertEquals(1, errors.errors().size(), errors.errors().toString());
        assertTrue(errors.errors().get(0).getMessage().contains("still open"), errors.errors().get(0).getMessage());
    }

    /**
     * Cancels scopes from another thread while their fibers open, wait in and close them: every
     * cancelled wait ends, no count outlives its scope (the second round's waits all succeed), and
     * no task is lost.
     */
    @ForEachWorkerCount
    void cancellingWhileScopesOpenAndClose_neverHangs_andNeverLeaksIntoLaterWaits(int workers) {
        int fibers = TestSchedulers.stress() ? 2_000 : 300;
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            AtomicReferenceArray<FiberCancellation> scopes = new AtomicReferenceArray<>(fibers);
            AtomicInteger cancelledWaits = new AtomicInteger();
            AtomicInteger leakedCancels = new AtomicInteger();
            WaitGroup done = new WaitGroup(fibers);
            Event release = new Event(Event.Mode.MANUAL);
            for (int i = 0; i < fibers; i++) {
                int index = i;
                Marl.schedule(() -> {
                    try {
                        try (FiberCancellation cancellation = FiberCancellation.open()) {
                            scopes.set(index, cancellation);
                            if (ThreadLocalRandom.current().nextBoolean()) {
                                Fiber.yield();
                            }
                            release.await();
                        } catch (FiberCancelledException e) {
                            cancelledWaits.incrementAndGet();
                        }
                        // The scope is closed: this fiber's waits are its own again.
                        release.await();
                        Fiber.yield();
                    } catch (FiberCancelledException leaked) {
                        leakedCancels.incrementAndGet();
                    } finally {
                        done.done();
                    }
                });
            }
            Thread canceller = TestSchedulers.startThread("canceller", () -> {
                for (int i = 0; i < fibers; i += 2) {
                    int index = i;
                    await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(TaskErrors.LONG)
                            .until(() -> scopes.get(index) != null);
                    scopes.get(index).cancel();
                    if (i == fibers / 2) {
                        release.signal(); // half the cancels race with the release
                    }
                }
                release.signal();
            });
            assertTrue(done.await(TaskErrors.LONG), "a fiber never finished");
            TaskErrors.join(canceller);
            assertEquals(0, leakedCancels.get(), "waits after their scope closed were cancelled");
            assertTrue(cancelledWaits.get() > 0 && cancelledWaits.get() <= (fibers + 1) / 2, "cancelled " + cancelledWaits);
        });
    }
}
