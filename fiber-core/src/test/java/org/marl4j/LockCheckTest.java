package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The checking mode (-Dorg.marl4j.checkLocks=true) that catches suspends while holding a thread-owned lock. */
class LockCheckTest {

    /** Runs body as a task on a scheduler created with the check on; returns what it threw. */
    private static Throwable runChecked(boolean enabled, Consumer<Event> body) {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        String before = System.getProperty(LockCheck.PROPERTY);
        System.setProperty(LockCheck.PROPERTY, Boolean.toString(enabled));
        Scheduler.Config config;
        try {
            config = TestSchedulers.config(1);
            Scheduler scheduler = new Scheduler(config);
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
        } finally {
            if (before == null) {
                System.clearProperty(LockCheck.PROPERTY);
            } else {
                System.setProperty(LockCheck.PROPERTY, before);
            }
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
            Scheduler.Config config = TestSchedulers.config(1);
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
                Scheduler scheduler = new Scheduler(TestSchedulers.config(0));
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
}
