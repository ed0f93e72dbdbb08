package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
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
}
