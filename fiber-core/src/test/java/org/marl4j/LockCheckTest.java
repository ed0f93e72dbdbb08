package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The checking mode (-Dorg.marl4j.checkLocks=true) that catches suspends while holding a thread-owned
 * lock: a rule of the continuation engine only (a virtual-thread fiber owns its locks), so the
 * schedulers here use that engine.
 */
class LockCheckTest {

    /** Runs body as a task on a scheduler created with the check on; returns what it threw. */
    private static Throwable runChecked(boolean enabled, Consumer<Event> body) {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Scheduler.Config config = TestSchedulers.config(1).setFiberEngine(FiberEngine.CONTINUATIONS);
        Scheduler scheduler;
        // The property is read by the constructor: set only around it, so that a test that hangs
        // (and is abandoned by its timeout) does not leave the slow check on for the tests after it.
        String before = System.getProperty(LockCheck.PROPERTY);
        System.setProperty(LockCheck.PROPERTY, Boolean.toString(enabled));
        try {
            scheduler = new Scheduler(config);
        } finally {
            if (before == null) {
                System.clearProperty(LockCheck.PROPERTY);
            } else {
                System.setProperty(LockCheck.PROPERTY, before);
            }
        }
        try {
            Event ready = new Event(Event.Mode.MANUAL, true);
            WaitGroup done = new WaitGroup(1);
            scheduler.enqueue(new Task(() -> {
                try {
                    body.accept(ready);
                } catch (Throwable t) {
                    thrown.set(t);
                }
                done.done();
            }));
            done.await();
        } finally {
            scheduler.close();
        }
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
        return thrown.get();
    }

    @Test
    void suspendingInsideSynchronizedThrowsNamingTheMonitor() {
        Object monitor = new Object();
        Throwable thrown = runChecked(true, ready -> {
            synchronized (monitor) {
                Fiber.sleep(Duration.ofMillis(1));
            }
        });
        assertTrue(thrown instanceof IllegalStateException, String.valueOf(thrown));
        assertTrue(thrown.getMessage().contains("monitor of java.lang.Object@"
                + Integer.toHexString(System.identityHashCode(monitor))), thrown.getMessage());
        assertTrue(thrown.getMessage().contains(LockCheck.PROPERTY), thrown.getMessage());
    }

    @Test
    void suspendingWhileHoldingAReentrantLockThrowsNamingTheLock() {
        ReentrantLock lock = new ReentrantLock();
        Throwable thrown = runChecked(true, ready -> {
            lock.lock();
            try {
                ready.await(); // an Event wait: the check covers every primitive
                Fiber.sleep(Duration.ofMillis(1));
            } finally {
                lock.unlock();
            }
        });
        assertTrue(thrown instanceof IllegalStateException, String.valueOf(thrown));
        assertTrue(thrown.getMessage().contains("ReentrantLock"), thrown.getMessage());
        assertTrue(thrown.getMessage().contains("org.marl4j.Mutex"), thrown.getMessage());
        assertEquals(false, lock.isLocked(), "the task's finally released the lock");
    }

    @Test
    void awaitingAConditionOnAReentrantLockHeldTwice_passes_sinceTheWaitReleasesBothHolds() {
        ReentrantLock lock = new ReentrantLock();
        ConditionVariable cv = new ConditionVariable();
        AtomicInteger holdsAfter = new AtomicInteger();
        Throwable thrown = runChecked(true, ready -> {
            lock.lock();
            lock.lock();
            try {
                cv.await(lock, Duration.ofMillis(1), () -> false);
                holdsAfter.set(lock.getHoldCount());
            } finally {
                lock.unlock();
                lock.unlock();
            }
        });
        assertNull(thrown);
        assertEquals(2, holdsAfter.get());
    }

    @Test
    void holdingAMutexAcrossASuspendPasses() {
        Mutex mutex = new Mutex();
        Throwable thrown = runChecked(true, ready -> {
            mutex.lock();
            try {
                Fiber.sleep(Duration.ofMillis(1));
            } finally {
                mutex.unlock();
            }
        });
        assertNull(thrown);
    }

    @Test
    void theCheckIsOffByDefault() {
        Object monitor = new Object();
        Throwable thrown = runChecked(false, ready -> {
            synchronized (monitor) {
                Fiber.sleep(Duration.ofMillis(1)); // hazardous, but not checked
            }
        });
        assertNull(thrown);
    }

    @Test
    void locksAThreadHeldBeforeBindAreNotReported() throws Exception {
        // A ThreadPoolExecutor worker holds its own lock while it runs a task: binding a scheduler
        // inside such a task and waiting must not trip the check.
        String before = System.getProperty(LockCheck.PROPERTY);
        System.setProperty(LockCheck.PROPERTY, "true");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Scheduler.Config config = TestSchedulers.config(1).setFiberEngine(FiberEngine.CONTINUATIONS);
            Future<Throwable> outcome = pool.submit(() -> {
                try {
                    TestSchedulers.withBoundScheduler(config, scheduler -> {
                        WaitGroup done = new WaitGroup(1);
                        Marl.schedule(() -> {
                            Fiber.sleep(Duration.ofMillis(1));
                            done.done();
                        });
                        done.await(); // the bound thread's main fiber suspends
                    });
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            assertNull(outcome.get());
            ReentrantLock taken = new ReentrantLock();
            Future<Throwable> afterBind = pool.submit(() -> {
                Scheduler scheduler = new Scheduler(TestSchedulers.config(0).setFiberEngine(FiberEngine.CONTINUATIONS));
                scheduler.bind();
                try {
                    taken.lock(); // taken after bind: reported
                    try {
                        Fiber.sleep(Duration.ofMillis(1));
                        return null;
                    } finally {
                        taken.unlock();
                    }
                } catch (Throwable t) {
                    return t;
                } finally {
                    scheduler.unbind();
                    scheduler.close();
                }
            });
            assertTrue(afterBind.get() instanceof IllegalStateException, String.valueOf(afterBind.get()));
        } finally {
            pool.shutdown();
            if (before == null) {
                System.clearProperty(LockCheck.PROPERTY);
            } else {
                System.setProperty(LockCheck.PROPERTY, before);
            }
        }
    }

    /**
     * A refused wait is refused before any notifier could pick it: while a fiber holding a
     * thread-owned lock has its waits on an Event and a ConditionVariable refused again and again,
     * a sampler never sees a waiter in either. If the check ran after the waiter was published
     * (queued where a signal can take it, with the primitive's lock released), the sampler would see
     * it during the check, and a signal could be given to the waiter that is about to throw. The
     * check lasts milliseconds (listing a thread's locked synchronizers walks the heap), so the
     * sampler would see most of them.
     */
    @Test
    void refusedWaitsAreNeverVisibleToANotifier() throws Exception {
        Event event = new Event(Event.Mode.AUTO);
        ConditionVariable cv = new ConditionVariable();
        Mutex mutex = new Mutex();
        ReentrantLock threadOwned = new ReentrantLock();
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger seen = new AtomicInteger();
        AtomicInteger refusals = new AtomicInteger();
        Thread sampler = TestSchedulers.startThread("sampler", () -> {
            while (!done.get()) {
                if (event.waiterCount() > 0 || cv.waiterCount() > 0) {
                    seen.incrementAndGet();
                }
                Thread.yield();
            }
        });
        Throwable thrown;
        try {
            thrown = runChecked(true, ready -> {
                for (int i = 0; i < REFUSALS; i++) {
                    threadOwned.lock();
                    try {
                        refuse(event::await, refusals);
                        mutex.lock();
                        try {
                            refuse(() -> cv.await(mutex, () -> false), refusals);
                        } finally {
                            mutex.unlock();
                        }
                    } finally {
                        threadOwned.unlock();
                    }
                }
            });
        } finally {
            done.set(true);
            sampler.join();
        }
        assertNull(thrown);
        assertEquals(2 * REFUSALS, refusals.get());
        assertEquals(0, seen.get(), "a refused waiter was visible to notifiers");
    }

    /** Each refusal walks the heap for locked synchronizers (milliseconds): few are plenty. */
    private static final int REFUSALS = 40;

    private static void refuse(Runnable wait, AtomicInteger refusals) {
        try {
            wait.run();
        } catch (IllegalStateException expected) {
            refusals.incrementAndGet();
        }
    }
}
