package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A thread bound to a scheduler that blocks outside marl4j while work queued on it waits is
 * logged, not left to hang silently: the trap of a zero-worker scheduler whose bound thread calls
 * a plain join() on what its own queued task would complete.
 */
class BoundThreadWatchTest {
    private static final Duration LONG = TestSchedulers.PATIENCE;

    /** A watch of its own for each test, looking every 10 ms and speaking after 100 ms, with threads from factory. */
    private static BoundThreadWatch shortWatch(ThreadFactory factory) {
        return new BoundThreadWatch(TimeUnit.MILLISECONDS.toNanos(10), TimeUnit.MILLISECONDS.toNanos(100), factory);
    }

    /** config(workers) is the tests' config, watched by watch. */
    private static Scheduler.Config config(int workers, BoundThreadWatch watch) {
        Scheduler.Config config = TestSchedulers.config(workers);
        config.boundThreadWatch = watch;
        return config;
    }

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {0, 1, 2})
    void aBoundThreadBlockedOutsideMarl4j_whileItsQueuedTaskWaits_isLogged(int workers) throws Exception {
        Scheduler.Config config = config(workers, shortWatch(BoundThreadWatch.THREADS));
        Scheduler scheduler = new Scheduler(config);
        CountDownLatch taskRan = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        String name = "stuck-binder-" + workers;
        try (LogCapture log = LogCapture.of(Scheduler.class)) {
            Thread binder = TestSchedulers.startThread(name, () -> {
                scheduler.bind();
                // SAME_THREAD keeps the task on this thread whatever the worker count; with no
                // workers every task would.
                scheduler.enqueue(new Task(() -> {
                    runs.incrementAndGet();
                    taskRan.countDown();
                }, Task.Flag.SAME_THREAD));
                try {
                    assertTrue(taskRan.await(LONG.toMillis(), TimeUnit.MILLISECONDS)); // the trap: a plain wait
                } catch (InterruptedException e) {
                    throw new AssertionError("nobody interrupts the binder", e);
                }
                scheduler.unbind();
            });
            await().atMost(LONG).until(() -> log.contains("WARNING", "thread " + name));
            taskRan.countDown(); // what the task would have done: the binder goes on and unbinds
            binder.join(LONG.toMillis());
            assertFalse(binder.isAlive());
            String warning = log.lines().stream().filter(m -> m.contains("thread " + name)).findFirst().orElseThrow();
            assertTrue(warning.contains("has been blocked for"), warning);
            assertTrue(warning.contains("CountDownLatch.await"), warning); // its stack
            assertTrue(warning.contains("Futures.await"), warning);
            assertTrue(warning.contains("no worker threads") == (workers == 0), warning);
        }
        scheduler.close();
        assertTrue(runs.get() == 1, "the task ran when the binder unbound");
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {0, 2})
    void aBoundThreadBlockedWithNothingQueued_orWaitingInMarl4j_isNotLogged(int workers) throws Exception {
        BoundThreadWatch watch = shortWatch(BoundThreadWatch.THREADS);
        Scheduler.Config config = config(workers, watch);
        Scheduler scheduler = new Scheduler(config);
        CountDownLatch release = new CountDownLatch(1);
        Event done = new Event(Event.Mode.MANUAL);
        String idle = "idle-binder-" + workers;
        String waiting = "marl-waiter-" + workers;
        try (LogCapture log = LogCapture.of(Scheduler.class)) {
            Thread idleBinder = TestSchedulers.startThread(idle, () -> {
                scheduler.bind();
                try {
                    release.await(); // blocked outside marl4j, but nothing is queued on it
                } catch (InterruptedException e) {
                    throw new AssertionError("nobody interrupts the binder", e);
                }
                scheduler.unbind();
            });
            Thread waiter = TestSchedulers.startThread(waiting, () -> {
                scheduler.bind();
                scheduler.enqueue(new Task(() -> done.await(), Task.Flag.SAME_THREAD)); // a fiber waiting in marl4j
                done.await(); // the thread itself waits in marl4j: its queued task runs meanwhile
                scheduler.unbind();
            });
            // Let the watch look at both for three times the warning's delay (30 looks): had it judged
            // either stuck, it would have spoken.
            long looks = watch.looks();
            await().atMost(LONG).pollDelay(Duration.ZERO).until(() -> watch.looks() - looks >= 30);
            done.signal();
            release.countDown();
            idleBinder.join(LONG.toMillis());
            waiter.join(LONG.toMillis());
            assertFalse(log.contains("thread " + idle), log.lines().toString());
            assertFalse(log.contains("thread " + waiting), log.lines().toString());
        } finally {
            release.countDown();
            done.signal();
        }
        scheduler.close();
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    /**
     * The watch is a diagnostic: a watch thread that cannot start (the JVM out of threads) must not
     * fail the bind() that started it, which would leave the thread bound with no Binding returned,
     * nor keep a later bind from starting the watch.
     */
    @Test
    void aWatchThreadThatFailsToStart_failsNoBind_andALaterBindStartsIt() throws Exception {
        Thread spent = new Thread(() -> {});
        spent.start();
        spent.join();
        AtomicInteger tries = new AtomicInteger();
        AtomicReference<Thread> started = new AtomicReference<>();
        BoundThreadWatch watch = shortWatch(body -> {
            if (tries.incrementAndGet() == 1) {
                return spent; // its start() throws, as a thread the JVM cannot create does
            }
            started.set(BoundThreadWatch.THREADS.newThread(body));
            return started.get();
        });
        Scheduler.Config config = config(0, watch);
        Scheduler scheduler = new Scheduler(config);
        try (LogCapture log = LogCapture.of(Scheduler.class)) {
            scheduler.bind();
            scheduler.unbind();
            assertTrue(log.contains("WARNING", "bound-thread watch"), log.lines().toString());
        }
        scheduler.bind();
        try {
            await().atMost(LONG).until(() -> started.get() != null && started.get().isAlive());
        } finally {
            scheduler.unbind();
        }
        scheduler.close();
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    /**
     * The watch is one thread for the JVM, alive while any thread anywhere is bound: it must not
     * keep the context class loader of whichever thread happened to start it (an undeployed web
     * application's, say) reachable for as long as another application's threads stay bound.
     */
    @Test
    void theWatchThreadDoesNotKeepTheContextClassLoaderOfTheThreadThatStartedIt() throws Exception {
        AtomicReference<Thread> started = new AtomicReference<>();
        Scheduler.Config config = config(0, shortWatch(body -> {
            started.set(BoundThreadWatch.THREADS.newThread(body)); // the JVM watch's own factory
            return started.get();
        }));
        Scheduler scheduler = new Scheduler(config);
        CountDownLatch release = new CountDownLatch(1);
        try (URLClassLoader application = new URLClassLoader(new URL[0], null)) {
            Thread binder = new Thread(() -> {
                scheduler.bind();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new AssertionError("nobody interrupts the binder", e);
                }
                scheduler.unbind();
            }, "class-loader-binder");
            binder.setDaemon(true);
            binder.setContextClassLoader(application);
            binder.start();
            try {
                await().atMost(LONG).until(() -> started.get() != null && started.get().isAlive());
                assertNotSame(application, started.get().getContextClassLoader());
            } finally {
                release.countDown();
                binder.join(LONG.toMillis());
            }
        }
        scheduler.close();
    }
}
