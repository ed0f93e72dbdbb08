package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Marl's free functions: schedule, parallelize, blockingCall. */
class MarlTest {

    @ForEachWorkerCount
    void parallelizeRunsEveryFunctionAndTheFirstOnTheCaller(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            AtomicInteger ran = new AtomicInteger();
            AtomicReference<Thread> firstRanOn = new AtomicReference<>();
            Runnable[] functions = new Runnable[8];
            Arrays.setAll(functions, i -> () -> {
                if (i == 0) {
                    firstRanOn.set(Thread.currentThread());
                }
                ran.incrementAndGet();
            });
            Marl.parallelize(functions);
            assertEquals(8, ran.get(), "all functions finished before parallelize returned");
            assertSame(Thread.currentThread(), firstRanOn.get());
        });
    }

    @ForEachWorkerCount
    void parallelizeRethrowsAfterAllFinishedWithTheOthersSuppressed(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            AtomicInteger finished = new AtomicInteger();
            IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> Marl.parallelize(
                    () -> { finished.incrementAndGet(); throw new IllegalStateException("first"); },
                    () -> { Fiber.yield(); finished.incrementAndGet(); },
                    () -> { finished.incrementAndGet(); throw new IllegalArgumentException("third"); }));
            assertEquals(3, finished.get());
            assertEquals("first", thrown.getMessage());
            assertEquals(1, thrown.getSuppressed().length);
            assertTrue(thrown.getSuppressed()[0] instanceof IllegalArgumentException);
        });
    }

    @ForEachWorkerCount
    void parallelize_twoFunctionsThrowingTheSameInstance_throwIt_once(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            IllegalStateException shared = new IllegalStateException("shared");
            IllegalStateException thrown = assertThrows(IllegalStateException.class,
                    () -> Marl.parallelize(() -> { throw shared; }, () -> { throw shared; }));
            assertEquals("shared", thrown.getMessage());
            assertEquals(0, thrown.getSuppressed().length);
        });
    }

    @Test
    void parallelizeRejectsNullsAndNeedsABoundSchedulerForMoreThanOneFunction() {
        assertThrows(NullPointerException.class, () -> Marl.parallelize((Runnable[]) null));
        assertThrows(NullPointerException.class, () -> Marl.parallelize(() -> {}, null));
        AtomicInteger ran = new AtomicInteger();
        Marl.parallelize(ran::incrementAndGet); // one function: runs inline, no scheduler needed
        assertEquals(1, ran.get());
        IllegalStateException unbound = assertThrows(IllegalStateException.class, () -> Marl.parallelize(() -> {}, () -> {}));
        assertTrue(unbound.getMessage().startsWith("Marl.parallelize() needs a scheduler bound"), unbound.getMessage());
    }

    @ForEachWorkerCount
    void blockingCallReturnsTheValueWithoutBlockingTheWorkerThread(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            // The blocking call waits for a latch that only another task on this worker opens:
            // if the call blocked the worker thread, that task could never run.
            CountDownLatch latch = new CountDownLatch(1);
            AtomicReference<String> result = new AtomicReference<>();
            WaitGroup done = new WaitGroup(1);
            Marl.schedule(() -> {
                scheduler.enqueue(new Task(latch::countDown, Task.Flag.SAME_THREAD));
                try {
                    result.set(Marl.blockingCall(() -> {
                        latch.await();
                        return "value from " + Thread.currentThread().getName();
                    }));
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                done.done();
            });
            done.await();
            // A continuation fiber hands the call to a thread of its own; a virtual-thread fiber is a
            // virtual thread already and makes the call itself, blocking only itself.
            if (scheduler.fiberEngine() == FiberEngine.CONTINUATIONS) {
                assertEquals("value from marl-blocking-call", result.get());
            } else {
                assertTrue(result.get().matches("value from .*/fiber"), result.get());
            }
        });
    }

    /** marl's blockingcall_test: 100 blocking calls wait on a lock that only a later task releases. */
    @ForEachWorkerCount
    void hundredBlockingCallsWaitWhileTheWorkersRunTheTaskThatReleasesThem(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            CountDownLatch locked = new CountDownLatch(1);
            WaitGroup done = new WaitGroup(100);
            for (int i = 0; i < 100; i++) {
                Marl.schedule(() -> {
                    Marl.blockingCall(() -> {
                        try {
                            locked.await();
                        } catch (InterruptedException e) {
                            throw new AssertionError(e);
                        }
                        done.done();
                    });
                });
            }
            Marl.schedule(locked::countDown);
            done.await();
        });
    }

    @ForEachWorkerCount
    void blockingCallRethrowsTheCallsOwnException(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            WaitGroup done = new WaitGroup(1);
            Marl.schedule(() -> {
                try {
                    Marl.blockingCall(() -> {
                        throw new IOException("disk on fire");
                    });
                } catch (Exception e) {
                    thrown.set(e);
                }
                done.done();
            });
            done.await();
            assertTrue(thrown.get() instanceof IOException, String.valueOf(thrown.get()));
            assertEquals("disk on fire", thrown.get().getMessage());
        });
    }

    @ForEachWorkerCount
    void aBlockingCallCanScheduleTasks(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            AtomicInteger ran = new AtomicInteger();
            WaitGroup done = new WaitGroup(1);
            Marl.schedule(() -> {
                Marl.blockingCall(() -> {
                    WaitGroup inner = new WaitGroup(10);
                    for (int i = 0; i < 10; i++) {
                        Marl.schedule(() -> {
                            ran.incrementAndGet();
                            inner.done();
                        });
                    }
                    inner.await();
                });
                done.done();
            });
            done.await();
            assertEquals(10, ran.get());
        });
    }

    @Test
    void blockingCallOffAFiberRunsOnTheCaller() throws Exception {
        assertSame(Thread.currentThread(), Marl.blockingCall(Thread::currentThread));
        assertThrows(NullPointerException.class, () -> Marl.blockingCall((Runnable) null));
    }
}
