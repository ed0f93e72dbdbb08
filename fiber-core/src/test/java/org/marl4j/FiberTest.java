package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

class FiberTest {

    @Test
    void currentIsNullOnAThreadThatIsNotBound() {
        assertNull(Fiber.current());
    }

    /**
     * workerThread() is the platform thread that carries a fiber, whatever the engine: the bound
     * thread for its main fiber and (with no workers) its tasks, else a worker thread; on the
     * virtual-thread engine a task's own thread is a virtual thread that this one carries.
     */
    @ForEachWorkerCount
    void workerThread_isTheThreadThatCarriesTheFiber_theBoundOneOrAWorker(int workers) {
        Scheduler.Config config = TestSchedulers.config(workers);
        TestSchedulers.withBoundScheduler(config, scheduler -> {
            assertSame(Thread.currentThread(), Fiber.current().workerThread());
            AtomicReference<Thread> carrier = new AtomicReference<>();
            AtomicReference<Thread> own = new AtomicReference<>();
            WaitGroup done = new WaitGroup(1);
            Marl.schedule(() -> {
                carrier.set(Fiber.current().workerThread());
                own.set(Thread.currentThread());
                done.done();
            });
            done.await();
            if (workers == 0) {
                assertSame(Thread.currentThread(), carrier.get(), "with no workers, the bound thread runs the tasks");
            } else {
                assertTrue(carrier.get() instanceof WorkerThread, carrier.get().toString());
                assertTrue(carrier.get().getName().startsWith(config.getThreadNamePrefix()), carrier.get().getName());
            }
            assertFalse(carrier.get().isVirtual());
            assertEquals(scheduler.fiberEngine() == FiberEngine.VIRTUAL_THREADS, own.get().isVirtual(), own.get().toString());
            if (!own.get().isVirtual()) {
                assertSame(carrier.get(), own.get(), "on continuations a task's thread is its worker's");
            }
        });
    }

    @ForEachWorkerCount
    void currentIsTheMainFiberOnABoundThreadAndATaskFiberInATask(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Fiber main = Fiber.current();
            assertNotNull(main);
            AtomicReference<Fiber> inTask = new AtomicReference<>();
            WaitGroup done = new WaitGroup(1);
            Marl.schedule(() -> {
                inTask.set(Fiber.current());
                done.done();
            });
            done.await();
            assertNotNull(inTask.get());
            assertSame(main, Fiber.current(), "the bound thread's fiber is the same after it blocked");
        });
    }

    @ForEachWorkerCount
    void aFiberResumesOnTheThreadThatSuspendedIt(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            int tasks = 1_000;
            Event go = new Event(Event.Mode.MANUAL);
            WaitGroup started = new WaitGroup(tasks);
            WaitGroup done = new WaitGroup(tasks);
            ConcurrentLinkedQueue<String> moved = new ConcurrentLinkedQueue<>();
            for (int i = 0; i < tasks; i++) {
                Marl.schedule(() -> {
                    Thread before = Thread.currentThread();
                    started.done();
                    go.await();
                    Fiber.sleep(Duration.ofMillis(1));
                    Fiber.yield();
                    if (Thread.currentThread() != before) {
                        moved.add(before.getName() + " -> " + Thread.currentThread().getName());
                    }
                    done.done();
                });
            }
            started.await();
            Thread signaller = new Thread(go::signal); // woken from a foreign thread
            signaller.start();
            done.await();
            assertEquals(List.of(), List.copyOf(moved));
        });
    }

    @ForEachWorkerCount
    void hundredThousandFibersCanBeBlockedAtOnceAndReleased(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            int fibers = 100_000;
            Event release = new Event(Event.Mode.MANUAL);
            WaitGroup blocked = new WaitGroup(fibers);
            WaitGroup finished = new WaitGroup(fibers);
            AtomicInteger passed = new AtomicInteger();
            for (int i = 0; i < fibers; i++) {
                Marl.schedule(() -> {
                    blocked.done();
                    release.await();
                    passed.incrementAndGet();
                    finished.done();
                });
            }
            blocked.await();
            assertEquals(0, passed.get(), "no fiber may pass before the release");
            release.signal();
            finished.await();
            assertEquals(fibers, passed.get());
        });
    }

    @ForEachWorkerCount
    void manyFibersSleepingOnOneWorkerTakeAboutOneSleepNotTheirSum(int workers) {
        TestSchedulers.withBoundScheduler(Math.min(workers, 1) == 0 ? TestSchedulers.config(0) : TestSchedulers.config(1),
                scheduler -> {
                    int sleepers = 200;
                    Duration sleep = Duration.ofMillis(100);
                    WaitGroup done = new WaitGroup(sleepers);
                    long start = System.nanoTime();
                    for (int i = 0; i < sleepers; i++) {
                        Marl.schedule(() -> {
                            Fiber.sleep(sleep);
                            done.done();
                        });
                    }
                    done.await();
                    Duration took = Duration.ofNanos(System.nanoTime() - start);
                    assertTrue(took.compareTo(sleep) >= 0, "a sleep ended early: " + took);
                    // The sum would be 20 s; a generous bound that only fails if sleeps were serialised.
                    assertTrue(took.compareTo(sleep.multipliedBy(sleepers / 4)) < 0, "sleeps were serialised: " + took);
                });
    }

    @Test
    void sleepOffAFiberParksTheThreadForAtLeastTheDuration() {
        long start = System.nanoTime();
        Fiber.sleep(Duration.ofMillis(20));
        assertTrue(System.nanoTime() - start >= Duration.ofMillis(20).toNanos());
    }

    @ForEachWorkerCount
    void awaitReturnsOnceWokenWithThePredicateTrue(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            ReentrantLock lock = new ReentrantLock();
            boolean[] ready = {false};
            AtomicReference<Fiber> waiter = new AtomicReference<>();
            WaitGroup waiting = new WaitGroup(1);
            WaitGroup done = new WaitGroup(1);
            Marl.schedule(() -> {
                Fiber self = Fiber.current();
                lock.lock();
                try {
                    waiter.set(self);
                    waiting.done();
                    self.await(lock, () -> ready[0]);
                    assertTrue(lock.isHeldByCurrentThread(), "await returns with the lock held");
                } finally {
                    lock.unlock();
                }
                done.done();
            });
            waiting.await();
            Thread waker = new Thread(() -> {
                TestLocks.underLock(lock, () -> ready[0] = true);
                waiter.get().wake();
            });
            waker.start();
            done.await();
        });
    }

    @ForEachWorkerCount
    void timedAwaitReturnsFalseWhenThePredicateStaysFalse(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            AtomicReference<Boolean> result = new AtomicReference<>();
            WaitGroup done = new WaitGroup(1);
            Marl.schedule(() -> {
                ReentrantLock lock = new ReentrantLock();
                TestLocks.underLock(lock, () -> result.set(Fiber.current().await(lock, Duration.ofMillis(20), () -> false)));
                done.done();
            });
            done.await();
            assertFalse(result.get());
        });
    }

    @ForEachWorkerCount
    void spuriousWakeUpsReCheckThePredicate(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            ReentrantLock lock = new ReentrantLock();
            AtomicInteger checks = new AtomicInteger();
            AtomicBoolean ready = new AtomicBoolean();
            AtomicReference<Fiber> fiber = new AtomicReference<>();
            WaitGroup done = new WaitGroup(1);
            Marl.schedule(() -> {
                fiber.set(Fiber.current());
                TestLocks.underLock(lock, () -> Fiber.current().await(lock, () -> checks.incrementAndGet() > 0 && ready.get()));
                done.done();
            });
            Thread waker = new Thread(() -> {
                while (fiber.get() == null || checks.get() == 0) {
                    Thread.onSpinWait();
                }
                int before = checks.get();
                fiber.get().wake(); // spurious: predicate still false
                while (checks.get() == before) {
                    Thread.onSpinWait();
                    fiber.get().wake();
                }
                lock.lock();
                ready.set(true);
                lock.unlock();
                fiber.get().wake();
            });
            waker.start();
            done.await();
            assertTrue(checks.get() >= 3, "predicate checked initially, after the spurious wake and after the real one");
        });
    }

    @ForEachWorkerCount
    void yieldLetsTasksQueuedBeforeItRunFirst(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            List<String> order = new ArrayList<>();
            WaitGroup done = new WaitGroup(1);
            Marl.schedule(new Task(() -> {
                scheduler.enqueue(new Task(() -> order.add("queued task"), Task.Flag.SAME_THREAD));
                Fiber.yield();
                order.add("after yield");
                done.done();
            }, Task.Flag.SAME_THREAD));
            done.await();
            assertEquals(List.of("queued task", "after yield"), order);
        });
    }

    @ForEachWorkerCount
    void awaitOnAFiberOtherThanTheCurrentOneThrows(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Fiber main = Fiber.current();
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            WaitGroup done = new WaitGroup(1);
            Marl.schedule(() -> {
                ReentrantLock lock = new ReentrantLock();
                lock.lock();
                try {
                    main.await(lock, () -> false);
                } catch (Throwable t) {
                    thrown.set(t);
                } finally {
                    lock.unlock();
                }
                done.done();
            });
            done.await();
            assertTrue(thrown.get() instanceof IllegalStateException, String.valueOf(thrown.get()));
            assertTrue(thrown.get().getMessage().contains("Fiber.current()"), thrown.get().getMessage());
        });
    }

    @Test
    void awaitRejectsNullArguments() {
        TestSchedulers.withBoundScheduler(0, scheduler -> {
            Fiber fiber = Fiber.current();
            ReentrantLock lock = new ReentrantLock();
            assertThrows(NullPointerException.class, () -> fiber.await(null, () -> true));
            assertThrows(NullPointerException.class, () -> fiber.await(lock, null));
            assertThrows(NullPointerException.class, () -> fiber.await(lock, null, () -> true));
            assertThrows(NullPointerException.class, () -> Fiber.sleep(null));
        });
    }
}
