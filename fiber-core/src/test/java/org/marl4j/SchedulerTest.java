package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TaskErrors.LONG;
import static org.marl4j.TaskErrors.join;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Scheduler and Fiber behaviour, ported from marl's {@code scheduler_test.cpp} and extended. */
class SchedulerTest {

    // ------------------------------------------------------------------ life cycle and binding

    /**
     * Worker threads are not daemons unless Config.setDaemon(true) says so, whatever the thread
     * that makes the scheduler is: a Thread inherits its maker's daemon status, so a scheduler made
     * on a daemon thread would get daemon workers, and the JVM could exit under their tasks.
     */
    @ParameterizedTest1to8
    void workerThreads_areDaemonsOnlyIfConfigured_evenWhenMadeOnADaemonThread(int workers) throws Exception {
        for (boolean daemon : new boolean[] {false, true}) {
            AtomicReference<Scheduler> made = new AtomicReference<>();
            Thread maker = TestSchedulers.startThread("daemon-maker",
                    () -> made.set(new Scheduler(TestSchedulers.config(workers).setDaemon(daemon))));
            maker.join(TestSchedulers.PATIENCE.toMillis());
            assertTrue(maker.isDaemon());
            try (Scheduler scheduler = made.get()) {
                for (int i = 0; i < workers; i++) {
                    assertEquals(daemon, scheduler.worker(i).thread().isDaemon(), "worker " + i + ", daemon=" + daemon);
                }
            }
        }
    }

    @Test
    void config_toString_namesEverySetting() {
        String defaults = new Scheduler.Config().toString();
        assertEquals("Scheduler.Config[workerThreads=0, spin=PT0.001S, threadNamePrefix=marl-worker-, daemon=false, "
                + "blockingTaskThreshold=PT0.1S, initializer=none, uncaughtExceptionHandler=default, affinity=none, "
                + "schedulingPolicy=FifoPolicy, fiberEngine=default]", defaults);
        String custom = new Scheduler.Config().setWorkerThreadCount(2).setSchedulingPolicy(PriorityPolicy::new)
                .setUncaughtExceptionHandler((t, e) -> { }).toString();
        assertTrue(custom.contains("workerThreads=2") && custom.contains("schedulingPolicy=custom")
                && custom.contains("uncaughtExceptionHandler=custom"), custom);
    }

    @Test
    void config_getters_returnWhatWasSet_andTheDefaults() {
        Scheduler.Config defaults = new Scheduler.Config();
        assertNull(defaults.getWorkerThreadInitializer());
        assertNull(defaults.getUncaughtExceptionHandler());
        assertTrue(defaults.getSchedulingPolicy().get() instanceof FifoPolicy);
        java.util.function.IntConsumer initializer = id -> { };
        Thread.UncaughtExceptionHandler handler = (t, e) -> { };
        java.util.function.Supplier<PriorityPolicy> policy = PriorityPolicy::new;
        Scheduler.Config custom = new Scheduler.Config().setWorkerThreadInitializer(initializer)
                .setUncaughtExceptionHandler(handler).setSchedulingPolicy(policy);
        assertSame(initializer, custom.getWorkerThreadInitializer());
        assertSame(handler, custom.getUncaughtExceptionHandler());
        assertSame(policy, custom.getSchedulingPolicy());
        try (Scheduler scheduler = new Scheduler(custom)) {
            assertSame(handler, scheduler.config().getUncaughtExceptionHandler(), "the scheduler's copy differs");
        }
    }

    @ForEachWorkerCount
    void constructAndClose_withoutBinding_stopsEveryWorkerThread(int workers) {
        Scheduler.Config config = TestSchedulers.config(workers);
        Scheduler scheduler = new Scheduler(config);
        scheduler.close();
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    @ForEachWorkerCount
    void close_calledTwice_hasNoFurtherEffect(int workers) {
        Scheduler.Config config = TestSchedulers.config(workers);
        Scheduler scheduler = new Scheduler(config);
        scheduler.close();
        scheduler.close();
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    @Test
    void bind_makesGetReturnTheScheduler_andUnbindClearsIt() {
        try (Scheduler scheduler = new Scheduler(TestSchedulers.config(0))) {
            assertNull(Scheduler.get());
            assertNull(Fiber.current());
            scheduler.bind();
            assertSame(scheduler, Scheduler.get());
            assertNotNull(Fiber.current(), "a bound thread runs on its main fiber");
            scheduler.unbind();
            assertNull(Scheduler.get());
            assertNull(Fiber.current());
        }
    }

    @ForEachWorkerCount
    void config_keepsTheWorkerThreadCount(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            assertEquals(workers, scheduler.config().getWorkerThreadCount());
            assertEquals(workers, Scheduler.get().config().getWorkerThreadCount());
        });
    }

    @Test
    void bind_twiceOnOneThread_throwsIllegalState() {
        TestSchedulers.withBoundScheduler(0, scheduler -> assertThrows(IllegalStateException.class, scheduler::bind));
    }

    @Test
    void bind_whileAnotherSchedulerIsBound_throwsIllegalState() {
        try (Scheduler other = new Scheduler(TestSchedulers.config(0))) {
            TestSchedulers.withBoundScheduler(0, scheduler -> assertThrows(IllegalStateException.class, other::bind));
        }
    }

    @Test
    void unbind_onAThreadThatIsNotBound_throwsIllegalState() {
        try (Scheduler scheduler = new Scheduler(TestSchedulers.config(0))) {
            assertThrows(IllegalStateException.class, scheduler::unbind);
        }
    }

    @Test
    void bind_afterClose_throwsIllegalState() {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(1));
        scheduler.close();
        assertThrows(IllegalStateException.class, scheduler::bind);
    }

    @ForEachWorkerCount
    void enqueue_fromOutsideAfterClose_isRejected(int workers) {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(workers));
        scheduler.close();
        AtomicBoolean ran = new AtomicBoolean();
        assertThrows(RejectedExecutionException.class, () -> scheduler.enqueue(new Task(() -> ran.set(true))));
        assertFalse(ran.get());
    }

    @Test
    void schedule_withoutABoundScheduler_throwsIllegalState() {
        assertThrows(IllegalStateException.class, () -> Marl.schedule(() -> {}));
    }

    // ------------------------------------------------------------------ tasks

    @ForEachWorkerCount
    void scheduledTasks_allRun(int workers) {
        AtomicInteger counter = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup wg = new WaitGroup(1000);
            for (int i = 0; i < 1000; i++) {
                Marl.schedule(() -> {
                    counter.incrementAndGet();
                    wg.done();
                });
            }
            assertTrue(wg.await(LONG));
            assertEquals(1000, counter.get());
        });
    }

    @ForEachWorkerCount
    void tasksThatScheduleTasks_allRun(int workers) {
        int depth = 9; // a binary tree of 2^10 - 1 tasks
        AtomicInteger ran = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup wg = new WaitGroup(1);
            Marl.schedule(() -> spawnTree(depth, ran, wg));
            assertTrue(wg.await(LONG));
            assertEquals((1 << (depth + 1)) - 1, ran.get());
        });
    }

    private static void spawnTree(int depth, AtomicInteger ran, WaitGroup wg) {
        ran.incrementAndGet();
        if (depth > 0) {
            wg.add(2);
            Marl.schedule(() -> spawnTree(depth - 1, ran, wg));
            Marl.schedule(() -> spawnTree(depth - 1, ran, wg));
        }
        wg.done();
    }

    @ForEachWorkerCount
    void close_afterUnbind_runsEveryPendingTask(int workers) {
        AtomicInteger counter = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            for (int i = 0; i < 1000; i++) {
                Marl.schedule(counter::incrementAndGet);
            }
            scheduler.unbind();
            scheduler.close();
            assertEquals(1000, counter.get());
        });
    }

    @ForEachWorkerCount
    void close_afterUnbind_resumesEveryBlockedFiber(int workers) {
        AtomicInteger counter = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup gate = new WaitGroup(1);
            for (int i = 0; i < 1000; i++) {
                Marl.schedule(() -> {
                    gate.await();
                    counter.incrementAndGet();
                });
            }
            Marl.schedule(gate::done); // some of the tasks above will still be blocked when close() starts
            scheduler.unbind();
            scheduler.close();
            assertEquals(1000, counter.get());
        });
    }

    @ForEachWorkerCount
    void tasks_runOnlyOnWorkerThreads_orOnTheBoundThreadWhenThereAreNone(int workers) {
        Set<Thread> threads = ConcurrentHashMap.newKeySet();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup wg = new WaitGroup(10_000);
            for (int i = 0; i < 10_000; i++) {
                Marl.schedule(() -> {
                    threads.add(TestSchedulers.workerThread());
                    wg.done();
                });
            }
            assertTrue(wg.await(LONG));
        });
        if (workers == 0) {
            assertEquals(Set.of(Thread.currentThread()), threads);
        } else {
            assertTrue(threads.size() <= workers, threads.size() + " threads ran tasks, with " + workers + " workers");
            assertFalse(threads.contains(Thread.currentThread()), "a task ran on the bound thread");
            assertTrue(threads.stream().allMatch(t -> t instanceof WorkerThread), threads.toString());
        }
    }

    @ForEachWorkerCount
    void enqueue_withoutBinding_runsOnWorkerThreads_orIsRefusedWithNone(int workers) {
        TaskErrors errors = new TaskErrors();
        Scheduler.Config config = errors.config(workers);
        try (Scheduler scheduler = new Scheduler(config)) {
            if (workers == 0) {
                // marl's ScheduleSTWWithNoBind: with no worker threads, nothing would ever run the task.
                assertThrows(IllegalStateException.class, () -> scheduler.enqueue(new Task(() -> {})));
                return;
            }
            WaitGroup wg = new WaitGroup(100);
            AtomicInteger sawScheduler = new AtomicInteger();
            for (int i = 0; i < 100; i++) {
                Event event = new Event();
                scheduler.enqueue(new Task(() -> {
                    event.await(); // a task waiting on another task
                    wg.done();
                }));
                scheduler.enqueue(new Task(() -> {
                    if (Scheduler.get() == scheduler) {
                        sawScheduler.incrementAndGet();
                    }
                    event.signal();
                }));
            }
            assertTrue(wg.await(LONG)); // this thread is not bound: it blocks, not a fiber
            assertEquals(100, sawScheduler.get(), "worker threads see their scheduler through get()");
        }
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
        errors.assertNone();
    }

    // ------------------------------------------------------------------ fibers

    @ForEachWorkerCount
    void fibers_resumeOnTheThreadTheyBlockedOn(int workers) {
        int tasks = 1000;
        AtomicInteger started = new AtomicInteger();
        AtomicInteger moved = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup fence = new WaitGroup(1);
            WaitGroup wg = new WaitGroup(tasks);
            for (int i = 0; i < tasks; i++) {
                Marl.schedule(() -> {
                    Thread before = TestSchedulers.workerThread();
                    started.incrementAndGet();
                    fence.await();
                    if (TestSchedulers.workerThread() != before) {
                        moved.incrementAndGet();
                    }
                    wg.done();
                });
            }
            // Open the fence from a plain thread once every task has blocked on it.
            Thread opener = Thread.ofPlatform().name("fence-opener").start(() -> {
                await().atMost(LONG).until(() -> started.get() == tasks);
                fence.done();
            });
            assertTrue(wg.await(LONG));
            join(opener);
        });
        assertEquals(tasks, started.get());
        assertEquals(0, moved.get(), "fibers resumed on another thread");
    }

    @ForEachWorkerCount
    void mainFibersOfBoundThreads_resumeOnTheirOwnThread(int workers) {
        int threads = 100;
        TaskErrors errors = new TaskErrors();
        Scheduler.Config config = errors.config(workers);
        AtomicInteger moved = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        try (Scheduler scheduler = new Scheduler(config)) {
            WaitGroup fence = new WaitGroup(1);
            WaitGroup wg = new WaitGroup(threads);
            List<Thread> started = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                started.add(Thread.ofPlatform().name("bound-" + i).start(() -> {
                    scheduler.bind();
                    try {
                        Thread before = Thread.currentThread();
                        fence.await();
                        if (Thread.currentThread() != before || Fiber.current() == null) {
                            moved.incrementAndGet();
                        }
                        wg.done();
                    } catch (Throwable t) {
                        failures.incrementAndGet();
                        throw t;
                    } finally {
                        scheduler.unbind();
                    }
                }));
            }
            fence.done();
            assertTrue(wg.await(LONG));
            started.forEach(TaskErrors::join);
        }
        assertEquals(0, moved.get());
        assertEquals(0, failures.get());
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
        errors.assertNone();
    }

    @ForEachWorkerCount
    void blockedFibers_areWokenByTasksOnOtherFibers_inAChain(int workers) {
        int length = 200;
        StringBuffer order = new StringBuffer();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Event[] links = IntStream.rangeClosed(0, length).mapToObj(i -> new Event()).toArray(Event[]::new);
            // Enqueue in reverse so that, where tasks start in order, each blocks before its link is signalled.
            for (int i = length - 1; i >= 0; i--) {
                int index = i;
                Marl.schedule(() -> {
                    links[index].await();
                    order.append(index).append(',');
                    links[index + 1].signal();
                });
            }
            links[0].signal();
            assertTrue(links[length].await(LONG));
        });
        String expected = IntStream.range(0, length).mapToObj(i -> i + ",").reduce("", String::concat);
        assertEquals(expected, order.toString());
    }

    @ForEachWorkerCount
    void twoFibers_pingPongThroughAutoEvents(int workers) {
        int rounds = 2000;
        AtomicInteger pings = new AtomicInteger();
        AtomicInteger pongs = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Event ping = new Event(Event.Mode.AUTO);
            Event pong = new Event(Event.Mode.AUTO);
            WaitGroup wg = new WaitGroup(2);
            Marl.schedule(() -> {
                for (int i = 0; i < rounds; i++) {
                    ping.signal();
                    pong.await();
                    pongs.incrementAndGet();
                }
                wg.done();
            });
            Marl.schedule(() -> {
                for (int i = 0; i < rounds; i++) {
                    ping.await();
                    pings.incrementAndGet();
                    pong.signal();
                }
                wg.done();
            });
            assertTrue(wg.await(LONG));
        });
        assertEquals(rounds, pings.get());
        assertEquals(rounds, pongs.get());
    }

    @ForEachWorkerCount
    void fiberAwait_returnsTrueWhenWokenWithThePredicateTrue(int workers) {
        AtomicReference<Boolean> result = new AtomicReference<>();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup wg = new WaitGroup(1);
            Mutex mutex = new Mutex();
            boolean[] ready = {false};
            Marl.schedule(() -> {
                Fiber me = Fiber.current();
                Marl.schedule(() -> {
                    TestLocks.underLock(mutex, () -> ready[0] = true);
                    me.wake();
                });
                mutex.lock();
                try {
                    result.set(me.await(mutex, LONG, () -> ready[0]));
                    assertTrue(mutex.isHeldByCurrentFiber(), "await must return with the lock held");
                } finally {
                    mutex.unlock();
                }
                wg.done();
            });
            assertTrue(wg.await(LONG));
        });
        assertEquals(Boolean.TRUE, result.get());
    }

    @ForEachWorkerCount
    void fiberAwait_untimed_isWokenByAPlainThread(int workers) {
        AtomicInteger resumed = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Mutex mutex = new Mutex();
            boolean[] ready = {false};
            AtomicReference<Fiber> waiter = new AtomicReference<>();
            WaitGroup wg = new WaitGroup(1);
            Marl.schedule(() -> {
                mutex.lock();
                try {
                    waiter.set(Fiber.current());
                    Fiber.current().await(mutex, () -> ready[0]);
                    resumed.incrementAndGet();
                } finally {
                    mutex.unlock();
                }
                wg.done();
            });
            Thread waker = Thread.ofPlatform().name("waker").start(() -> {
                await().atMost(LONG).until(() -> waiter.get() != null);
                TestLocks.underLock(mutex, () -> ready[0] = true);
                waiter.get().wake();
            });
            assertTrue(wg.await(LONG));
            join(waker);
        });
        assertEquals(1, resumed.get());
    }

    @ForEachWorkerCount
    void fiberAwait_returnsFalseAfterItsTimeout_whenNobodyWakesIt(int workers) {
        Duration timeout = Duration.ofMillis(20);
        AtomicReference<Boolean> result = new AtomicReference<>();
        AtomicReference<Long> elapsed = new AtomicReference<>();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup wg = new WaitGroup(1);
            Marl.schedule(() -> {
                Mutex mutex = new Mutex();
                mutex.lock();
                try {
                    long start = System.nanoTime();
                    result.set(Fiber.current().await(mutex, timeout, () -> false));
                    elapsed.set(System.nanoTime() - start);
                } finally {
                    mutex.unlock();
                }
                wg.done();
            });
            assertTrue(wg.await(LONG));
        });
        assertEquals(Boolean.FALSE, result.get());
        assertTrue(elapsed.get() >= timeout.toNanos(), "returned after " + elapsed.get() + " ns");
    }

    @ForEachWorkerCount
    void fiberAwait_spuriousWake_reChecksThePredicateAndKeepsWaiting(int workers) {
        AtomicInteger checks = new AtomicInteger();
        AtomicInteger returned = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Mutex mutex = new Mutex();
            boolean[] ready = {false};
            AtomicReference<Fiber> waiter = new AtomicReference<>();
            WaitGroup wg = new WaitGroup(1);
            Marl.schedule(() -> {
                mutex.lock();
                try {
                    waiter.set(Fiber.current());
                    Fiber.current().await(mutex, () -> {
                        checks.incrementAndGet();
                        return ready[0];
                    });
                    returned.incrementAndGet();
                } finally {
                    mutex.unlock();
                }
                wg.done();
            });
            Thread waker = Thread.ofPlatform().name("waker").start(() -> {
                await().atMost(LONG).until(() -> checks.get() == 1);
                // Once the mutex is free, the fiber holds its worker's lock until it is suspended:
                // the wake below finds it suspended rather than running (where it would do nothing).
                mutex.lock();
                mutex.unlock();
                waiter.get().wake(); // predicate still false: the fiber must check it and wait again
                await().atMost(LONG).until(() -> checks.get() == 2);
                TestLocks.underLock(mutex, () -> ready[0] = true);
                waiter.get().wake();
            });
            assertTrue(wg.await(LONG));
            join(waker);
        });
        assertEquals(1, returned.get());
        assertEquals(3, checks.get());
    }

    @ForEachWorkerCount
    void fiberAwait_onAFiberOtherThanTheCurrentOne_throwsIllegalState(int workers) {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Fiber main = Fiber.current();
            WaitGroup wg = new WaitGroup(1);
            Marl.schedule(() -> {
                Mutex mutex = new Mutex();
                mutex.lock();
                try {
                    main.await(mutex, () -> true);
                } catch (Throwable t) {
                    thrown.set(t);
                } finally {
                    mutex.unlock();
                }
                wg.done();
            });
            assertTrue(wg.await(LONG));
        });
        assertTrue(thrown.get() instanceof IllegalStateException, String.valueOf(thrown.get()));
    }

    /**
     * Fiber.await with a {@link Mutex} as the lock, while another fiber of the same worker is queued
     * on that Mutex: releasing it inside await() must wake that fiber without deadlocking the worker.
     */
    @ForEachWorkerCount
    @Timeout(10)
    void fiberAwait_releasingAMutexThatAFiberOfTheSameWorkerWaitsFor_doesNotDeadlock(int workers) {
        AtomicBoolean secondGotTheMutex = new AtomicBoolean();
        AtomicBoolean firstReturned = new AtomicBoolean();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Mutex mutex = new Mutex();
            boolean[] ready = {false};
            WaitGroup wg = new WaitGroup(2);
            Marl.schedule(() -> {
                Fiber first = Fiber.current();
                mutex.lock();
                try {
                    Scheduler.get().enqueue(new Task(() -> {
                        mutex.lock(); // held by the first fiber: this one queues on the Mutex
                        try {
                            secondGotTheMutex.set(true);
                            ready[0] = true;
                        } finally {
                            mutex.unlock();
                        }
                        first.wake();
                        wg.done();
                    }, Task.Flag.SAME_THREAD));
                    Fiber.yield(); // lets the second fiber run until it blocks on the Mutex
                    first.await(mutex, () -> ready[0]);
                    firstReturned.set(true);
                } finally {
                    mutex.unlock();
                }
                wg.done();
            });
            assertTrue(wg.await(LONG));
        });
        assertTrue(secondGotTheMutex.get());
        assertTrue(firstReturned.get());
    }

    @Test
    void fiberCurrent_isNullOnAPlainThread() throws Exception {
        AtomicReference<Fiber> seen = new AtomicReference<>(Fiber.current());
        Thread plain = Thread.ofPlatform().start(() -> seen.compareAndSet(null, Fiber.current()));
        join(plain);
        assertNull(seen.get());
    }

    @ForEachWorkerCount
    void fiberSleep_suspendsForAtLeastTheDuration_andManySleepAtOnce(int workers) {
        Duration nap = Duration.ofMillis(10);
        AtomicInteger tooShort = new AtomicInteger();
        AtomicInteger woke = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup wg = new WaitGroup(200);
            for (int i = 0; i < 200; i++) {
                Marl.schedule(() -> {
                    long start = System.nanoTime();
                    Fiber.sleep(nap);
                    if (System.nanoTime() - start < nap.toNanos()) {
                        tooShort.incrementAndGet();
                    }
                    woke.incrementAndGet();
                    wg.done();
                });
            }
            assertTrue(wg.await(LONG));
        });
        assertEquals(200, woke.get());
        assertEquals(0, tooShort.get());
    }

    @ForEachWorkerCount
    void fiberYield_letsTheTasksAlreadyQueuedOnItsWorkerRunFirst(int workers) {
        AtomicReference<String> seenAfterYield = new AtomicReference<>();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup wg = new WaitGroup(1);
            Marl.schedule(() -> {
                StringBuffer ran = new StringBuffer();
                for (String name : List.of("a", "b", "c")) {
                    Scheduler.get().enqueue(new Task(() -> ran.append(name), Task.Flag.SAME_THREAD));
                }
                Fiber.yield();
                seenAfterYield.set(ran.toString());
                wg.done();
            });
            assertTrue(wg.await(LONG));
        });
        assertEquals("abc", seenAfterYield.get());
    }

    @Test
    void fiberYield_onTheBoundThread_runsItsQueuedTasks() {
        StringBuffer ran = new StringBuffer();
        TestSchedulers.withBoundScheduler(0, scheduler -> {
            Marl.schedule(() -> ran.append('x'));
            Marl.schedule(() -> ran.append('y'));
            Fiber.yield();
            assertEquals("xy", ran.toString());
        });
    }

    // ------------------------------------------------------------------ SAME_THREAD tasks

    @ForEachWorkerCount
    void sameThreadTasks_runOnTheThreadOfTheWorkerThatEnqueuedThem(int workers) {
        int parents = 20;
        int children = 20;
        AtomicInteger elsewhere = new AtomicInteger();
        AtomicInteger ran = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup wg = new WaitGroup(parents * children);
            for (int p = 0; p < parents; p++) {
                Marl.schedule(() -> {
                    Thread parentThread = TestSchedulers.workerThread();
                    WaitGroup mine = new WaitGroup(children);
                    for (int c = 0; c < children; c++) {
                        Scheduler.get().enqueue(new Task(() -> {
                            if (TestSchedulers.workerThread() != parentThread) {
                                elsewhere.incrementAndGet();
                            }
                            ran.incrementAndGet();
                            mine.done();
                            wg.done();
                        }, Task.Flag.SAME_THREAD));
                    }
                    mine.await(); // blocking lets the worker run them; idle workers try to steal meanwhile
                });
            }
            assertTrue(wg.await(LONG));
        });
        assertEquals(parents * children, ran.get());
        assertEquals(0, elsewhere.get(), "SAME_THREAD tasks ran on another thread");
    }

    @ForEachWorkerCount
    void sameThreadTasks_enqueuedByTheBoundThread_runOnIt(int workers) {
        Set<Thread> threads = ConcurrentHashMap.newKeySet();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup wg = new WaitGroup(100);
            for (int i = 0; i < 100; i++) {
                scheduler.enqueue(new Task(() -> {
                    threads.add(TestSchedulers.workerThread());
                    wg.done();
                }, Task.Flag.SAME_THREAD));
            }
            assertTrue(wg.await(LONG));
        });
        assertEquals(Set.of(Thread.currentThread()), threads);
    }

    @ForEachWorkerCount
    void sameThreadTask_fromAThreadThatIsNotBound_throwsIllegalState(int workers) {
        try (Scheduler scheduler = new Scheduler(TestSchedulers.config(workers))) {
            assertThrows(IllegalStateException.class,
                    () -> scheduler.enqueue(new Task(() -> {}, Task.Flag.SAME_THREAD)));
        }
    }

    // ------------------------------------------------------------------ configuration hooks

    @ForEachWorkerCount
    void throwingTask_isReportedToTheHandler_andTheWorkerKeepsRunningTasks(int workers) {
        int rounds = 50;
        ConcurrentLinkedQueue<Throwable> reported = new ConcurrentLinkedQueue<>();
        Set<Thread> reportedOn = ConcurrentHashMap.newKeySet();
        AtomicInteger normal = new AtomicInteger();
        WaitGroup handled = new WaitGroup(rounds);
        Scheduler.Config config = TestSchedulers.config(workers).setUncaughtExceptionHandler((thread, error) -> {
            reported.add(error);
            reportedOn.add(thread);
            handled.done();
        });
        TestSchedulers.withBoundScheduler(config, scheduler -> {
            WaitGroup wg = new WaitGroup(rounds);
            for (int i = 0; i < rounds; i++) {
                int n = i;
                Marl.schedule(() -> {
                    throw new IllegalArgumentException("boom " + n);
                });
                Marl.schedule(() -> {
                    normal.incrementAndGet();
                    wg.done();
                });
            }
            assertTrue(wg.await(LONG));
            assertTrue(handled.await(LONG));
        });
        assertEquals(rounds, normal.get());
        assertEquals(rounds, reported.size());
        assertTrue(reported.stream().allMatch(e -> e instanceof IllegalArgumentException), reported.toString());
        assertEquals(IntStream.range(0, rounds).mapToObj(i -> "boom " + i).sorted().toList(),
                reported.stream().map(Throwable::getMessage).sorted().toList());
        if (workers > 0) {
            // The thread the task ran on: the worker thread, or on the virtual-thread engine the fiber's own thread.
            assertTrue(reportedOn.stream().allMatch(t -> t instanceof WorkerThread
                    || t.isVirtual() && t.getName().startsWith(config.getThreadNamePrefix())), reportedOn.toString());
        }
    }

    @ForEachWorkerCount
    void workerThreadInitializer_runsOncePerWorker_onItsThread_beforeItsTasks(int workers) {
        ConcurrentLinkedQueue<Integer> ids = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> mismatchedNames = new ConcurrentLinkedQueue<>();
        Set<Thread> initialized = ConcurrentHashMap.newKeySet();
        AtomicInteger uninitialized = new AtomicInteger();
        Scheduler.Config config = TestSchedulers.config(workers);
        String prefix = config.getThreadNamePrefix();
        config.setWorkerThreadInitializer(id -> {
            ids.add(id);
            initialized.add(Thread.currentThread());
            if (!Thread.currentThread().getName().equals(prefix + id)) {
                mismatchedNames.add(Thread.currentThread().getName());
            }
        });
        TestSchedulers.withBoundScheduler(config, scheduler -> {
            WaitGroup wg = new WaitGroup(1000);
            for (int i = 0; i < 1000; i++) {
                Marl.schedule(() -> {
                    if (workers > 0 && !initialized.contains(TestSchedulers.workerThread())) {
                        uninitialized.incrementAndGet();
                    }
                    wg.done();
                });
            }
            assertTrue(wg.await(LONG));
        });
        assertEquals(IntStream.range(0, workers).boxed().toList(), ids.stream().sorted().toList());
        assertEquals(List.of(), List.copyOf(mismatchedNames));
        assertEquals(0, uninitialized.get(), "a task ran on a worker thread before its initializer");
    }

    // ------------------------------------------------------------------ close() drains

    /**
     * A task blocks on an Event that a plain thread signals only once close() has begun and is
     * blocked waiting; close() must wait for that fiber, and the fiber, once woken, schedules a
     * chain of further tasks that close() must also run before returning.
     */
    @ForEachWorkerCount
    void close_waitsForFibersWokenAfterItBegan_andRunsTheTasksTheyEnqueue(int workers) {
        int chain = 100;
        TaskErrors errors = new TaskErrors();
        Scheduler.Config config = errors.config(workers);
        Scheduler scheduler = new Scheduler(config);
        Event release = new Event(Event.Mode.MANUAL);
        AtomicBoolean blocked = new AtomicBoolean();
        AtomicBoolean unbound = new AtomicBoolean();
        AtomicInteger chained = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        AtomicInteger finishedBeforeRelease = new AtomicInteger(-1);

        scheduler.bind();
        Marl.schedule(() -> {
            blocked.set(true);
            release.await();
            Marl.schedule(() -> chainTasks(chain, chained, finished));
        });
        Thread closer = Thread.ofPlatform().name("closer").start(scheduler::close);
        Thread signaller = Thread.ofPlatform().name("signaller").start(() -> {
            // With no workers, the task runs and blocks inside unbind(), which then cannot return.
            try {
                await().atMost(LONG).until(() -> blocked.get() && (workers == 0 || unbound.get())
                        && isWaiting(closer) && rejectsOutsiders(scheduler));
                finishedBeforeRelease.set(finished.get());
            } finally {
                release.signal();
            }
        });
        scheduler.unbind();
        unbound.set(true);
        join(signaller);
        join(closer);

        assertEquals(0, finishedBeforeRelease.get(), "the signaller saw close() begin, then signalled");
        assertEquals(chain, chained.get());
        assertEquals(1, finished.get());
        assertTrue(release.isSignalled());
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
        errors.assertNone();
    }

    /** rejectsOutsiders(scheduler) probes with a no-op task whether close() has begun. */
    private static boolean rejectsOutsiders(Scheduler scheduler) {
        try {
            scheduler.enqueue(new Task(() -> {}));
            return false;
        } catch (RejectedExecutionException closing) {
            return true;
        } catch (IllegalStateException noWorkersAndNotBound) {
            return false;
        }
    }

    private static void chainTasks(int remaining, AtomicInteger chained, AtomicInteger finished) {
        chained.incrementAndGet();
        if (remaining > 1) {
            Fiber.yield();
            Marl.schedule(() -> chainTasks(remaining - 1, chained, finished));
        } else {
            finished.incrementAndGet();
        }
    }

    @ForEachWorkerCount
    void unbind_waitsForTheBoundThreadsBlockedFibers(int workers) {
        AtomicInteger done = new AtomicInteger();
        TaskErrors errors = new TaskErrors();
        Scheduler.Config config = errors.config(workers);
        try (Scheduler scheduler = new Scheduler(config)) {
            scheduler.bind();
            Event release = new Event();
            AtomicBoolean blocked = new AtomicBoolean();
            for (int i = 0; i < 10; i++) {
                scheduler.enqueue(new Task(() -> {
                    blocked.set(true);
                    release.await();
                    done.incrementAndGet();
                    release.signal(); // AUTO: pass the signal on to the next waiter
                }, Task.Flag.SAME_THREAD));
            }
            Thread signaller = Thread.ofPlatform().start(() -> {
                await().atMost(LONG).untilTrue(blocked);
                release.signal();
            });
            scheduler.unbind();
            assertEquals(10, done.get(), "unbind() returned before its fibers finished");
            join(signaller);
        }
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
        errors.assertNone();
    }

    /** isWaiting(thread): close() waits with timeouts (to log when it waits long), so either state. */
    private static boolean isWaiting(Thread thread) {
        Thread.State state = thread.getState();
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
    }
}
