package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.VirtualThreadFixtures.awaitAll;
import static org.marl4j.VirtualThreadFixtures.awaitSignal;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What belongs to a fiber on {@link FiberEngine#VIRTUAL_THREADS}: its {@code Thread} itself, and so
 * its ThreadLocals, its ScopedValue bindings, its interrupt status and the monitors and
 * {@code ReentrantLock}s it holds, all kept across marl4j waits while other tasks run on the same
 * worker thread. Where {@link FiberEngine#CONTINUATIONS} documents the opposite (the fibers of a
 * worker share its thread), the same scenario is run there to show the contrast.
 */
class VirtualThreadIdentityTest {
    private static final ThreadLocal<String> LOCAL = new ThreadLocal<>();
    private static final InheritableThreadLocal<String> INHERITABLE = new InheritableThreadLocal<>();
    private static final ScopedValue<String> SCOPED = ScopedValue.newInstance();

    /**
     * Task A sets its ThreadLocal and waits on an Event; task B, started while A waits (on the same
     * worker thread when there is one worker), sets its own and waits; both are then woken.
     *
     * @return what A and B read back after their waits
     */
    private static List<String> twoTasksSetAThreadLocalAcrossAWait(FiberEngine engine, int workers) {
        AtomicReference<List<String>> seen = new AtomicReference<>();
        VirtualThreadFixtures.withScheduler(engine, workers, scheduler -> {
            AtomicReference<String> a = new AtomicReference<>();
            AtomicReference<String> b = new AtomicReference<>();
            Event aWaits = new Event(Event.Mode.MANUAL);
            Event bWaits = new Event(Event.Mode.MANUAL);
            Event go = new Event(Event.Mode.MANUAL);
            WaitGroup done = new WaitGroup(2);
            scheduler.enqueue(new Task(() -> {
                LOCAL.set("A");
                aWaits.signal();
                go.await();
                a.set(LOCAL.get());
                LOCAL.remove();
                done.done();
            }));
            awaitSignal(aWaits);
            scheduler.enqueue(new Task(() -> {
                LOCAL.set("B");
                bWaits.signal();
                go.await();
                b.set(LOCAL.get());
                LOCAL.remove();
                done.done();
            }));
            awaitSignal(bWaits);
            go.signal();
            awaitAll(done);
            seen.set(List.of(String.valueOf(a.get()), String.valueOf(b.get())));
        });
        return seen.get();
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1, 2, 4})
    void virtualThreads_eachTaskReadsBackItsOwnThreadLocal_acrossAMarlWait(int workers) {
        assertEquals(List.of("A", "B"), twoTasksSetAThreadLocalAcrossAWait(FiberEngine.VIRTUAL_THREADS, workers));
    }

    /**
     * The contrast: the fibers of one worker thread share its ThreadLocals, so A reads what B left
     * there (B's value, or nothing once B has removed it), never its own.
     */
    @Test
    void continuations_twoTasksOnOneWorkerShareItsThreadLocal() {
        List<String> seen = twoTasksSetAThreadLocalAcrossAWait(FiberEngine.CONTINUATIONS, 1);
        assertNotEquals("A", seen.get(0), () -> "A read its own value back on a shared thread: " + seen);
    }

    /**
     * Neither an InheritableThreadLocal nor a ThreadLocal that the worker thread (or the bound
     * thread) set is seen by a task: a fiber is a thread of its own, made without inheriting.
     *
     * @return what a task read: the inheritable value, then the plain one
     */
    private static List<String> whatATaskSeesOfItsWorkerThreadsLocals(FiberEngine engine, int workers) {
        TaskErrors errors = new TaskErrors();
        Scheduler.Config config = VirtualThreadFixtures.config(errors, engine, workers)
                .setWorkerThreadInitializer(id -> {
                    INHERITABLE.set("worker " + id);
                    LOCAL.set("worker " + id);
                });
        AtomicReference<List<String>> seen = new AtomicReference<>();
        INHERITABLE.set("bound thread");
        LOCAL.set("bound thread");
        try (Scheduler scheduler = new Scheduler(config)) {
            if (workers == 0) {
                scheduler.bind();
            }
            seen.set(TestSchedulers.runOnFiber(scheduler,
                    () -> Arrays.asList(INHERITABLE.get(), LOCAL.get())));
        } finally {
            INHERITABLE.remove();
            LOCAL.remove();
        }
        errors.assertNone();
        return seen.get();
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1, 2, 4})
    void virtualThreads_aTaskInheritsNoThreadLocalOfItsWorkerThread(int workers) {
        assertEquals(Arrays.asList(null, null), whatATaskSeesOfItsWorkerThreadsLocals(FiberEngine.VIRTUAL_THREADS, workers));
    }

    /** The contrast: a task runs on the worker thread itself and sees what it set. */
    @Test
    void continuations_aTaskSeesItsWorkerThreadsLocals() {
        assertEquals(List.of("worker 0", "worker 0"), whatATaskSeesOfItsWorkerThreadsLocals(FiberEngine.CONTINUATIONS, 1));
    }

    /**
     * A ScopedValue bound by task A around a marl4j wait is not bound in task B, which runs on the
     * same worker thread meanwhile, and A still reads its binding after the wait.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1, 2})
    void virtualThreads_aScopedValueBindingBelongsToTheTaskThatBoundIt(int workers) {
        VirtualThreadFixtures.withScheduler(FiberEngine.VIRTUAL_THREADS, workers, scheduler -> {
            AtomicReference<String> aAfter = new AtomicReference<>();
            AtomicReference<Boolean> boundInB = new AtomicReference<>();
            Event aWaits = new Event(Event.Mode.MANUAL);
            Event go = new Event(Event.Mode.MANUAL);
            WaitGroup done = new WaitGroup(2);
            scheduler.enqueue(new Task(() -> ScopedValue.where(SCOPED, "A").run(() -> {
                aWaits.signal();
                go.await();
                aAfter.set(SCOPED.get());
                done.done();
            })));
            awaitSignal(aWaits);
            scheduler.enqueue(new Task(() -> {
                boundInB.set(SCOPED.isBound());
                go.signal();
                done.done();
            }));
            awaitAll(done);
            assertEquals(Boolean.FALSE, boundInB.get(), "A's binding leaked into B, which ran while A waited");
            assertEquals("A", aAfter.get(), "A's binding after its wait");
        });
    }

    /**
     * An interrupt aimed at the Thread a task ran on reaches that task (as with any thread of a
     * pool), and only it: another task suspended on the same worker resumes uninterrupted.
     *
     * @return whether A, then B, saw itself interrupted after the wait
     */
    private static List<Boolean> interruptOneOfTwoWaitingTasks(FiberEngine engine, int workers) {
        AtomicReference<List<Boolean>> seen = new AtomicReference<>();
        VirtualThreadFixtures.withScheduler(engine, workers, scheduler -> {
            AtomicReference<Thread> aThread = new AtomicReference<>();
            AtomicReference<Boolean> a = new AtomicReference<>();
            AtomicReference<Boolean> b = new AtomicReference<>();
            WaitGroup waiting = new WaitGroup(2);
            Event go = new Event(Event.Mode.MANUAL);
            WaitGroup done = new WaitGroup(2);
            scheduler.enqueue(new Task(() -> {
                aThread.set(Thread.currentThread());
                waiting.done();
                go.await();
                a.set(Thread.interrupted());
                done.done();
            }));
            scheduler.enqueue(new Task(() -> {
                waiting.done();
                go.await();
                b.set(Thread.interrupted());
                done.done();
            }));
            awaitAll(waiting);
            // Both suspended in go.await() first: an interrupt of the worker thread while B still
            // runs would be B's status on CONTINUATIONS, which is not what this compares.
            org.awaitility.Awaitility.await().atMost(TestSchedulers.PATIENCE)
                    .until(() -> scheduler.suspendedFibers().size() >= 2);
            Thread interrupter = TestSchedulers.startThread("interrupter", () -> aThread.get().interrupt());
            TaskErrors.join(interrupter);
            go.signal();
            awaitAll(done);
            Thread.interrupted(); // a bound test thread may have been A's thread (CONTINUATIONS, 0 workers)
            seen.set(List.of(a.get(), b.get()));
        });
        return seen.get();
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1, 2})
    void virtualThreads_anInterruptOfATasksThread_reachesThatTaskOnly(int workers) {
        assertEquals(List.of(true, false), interruptOneOfTwoWaitingTasks(FiberEngine.VIRTUAL_THREADS, workers));
    }

    /** The contrast: the Thread a task captured is its worker's, whose status is not the fiber's. */
    @Test
    void continuations_anInterruptOfTheThreadATaskRanOn_doesNotReachTheTask() {
        assertEquals(List.of(false, false), interruptOneOfTwoWaitingTasks(FiberEngine.CONTINUATIONS, 1));
    }

    private static final int CONCURRENT = 8;

    /** @return the distinct current threads of {@value #CONCURRENT} tasks suspended at once, and how many were virtual */
    private static List<Integer> threadsOfConcurrentlySuspendedTasks(FiberEngine engine, int workers) {
        AtomicReference<List<Integer>> seen = new AtomicReference<>();
        VirtualThreadFixtures.withScheduler(engine, workers, scheduler -> {
            Queue<Thread> threads = new ConcurrentLinkedQueue<>();
            WaitGroup waiting = new WaitGroup(CONCURRENT);
            Event go = new Event(Event.Mode.MANUAL);
            WaitGroup done = new WaitGroup(CONCURRENT);
            for (int i = 0; i < CONCURRENT; i++) {
                scheduler.enqueue(new Task(() -> {
                    threads.add(Thread.currentThread());
                    waiting.done();
                    go.await();
                    assertTrue(threads.contains(Thread.currentThread()), "a task's thread is the same after its wait");
                    done.done();
                }));
            }
            awaitAll(waiting); // all suspended at once
            go.signal();
            awaitAll(done);
            seen.set(List.of((int) threads.stream().distinct().count(),
                    (int) threads.stream().filter(Thread::isVirtual).count()));
        });
        return seen.get();
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1, 2, 4})
    void virtualThreads_eachConcurrentlySuspendedTaskIsADistinctVirtualThread(int workers) {
        assertEquals(List.of(CONCURRENT, CONCURRENT), threadsOfConcurrentlySuspendedTasks(FiberEngine.VIRTUAL_THREADS, workers),
                "[distinct threads, virtual threads] of " + CONCURRENT + " tasks suspended at once");
    }

    /** The contrast: every task on one worker sees its platform worker thread. */
    @Test
    void continuations_everyTaskOnOneWorkerIsItsPlatformThread() {
        assertEquals(List.of(1, 0), threadsOfConcurrentlySuspendedTasks(FiberEngine.CONTINUATIONS, 1));
    }

    // ---------------------------------------------------------------- locks held across a marl4j wait

    enum Hold { SYNCHRONIZED, REENTRANT_LOCK }

    enum MarlWait { EVENT_AWAIT, FIBER_SLEEP }

    private static final int HOLDERS = 32;

    /**
     * {@value #HOLDERS} tasks each take the same lock, wait on marl4j inside it (an Event that a
     * task queued behind it signals, or a Fiber.sleep), and leave it.
     *
     * @return the most tasks seen inside the lock at once
     */
    private static int mostHoldersAtOnce(FiberEngine engine, int workers, Hold hold, MarlWait wait) {
        AtomicInteger most = new AtomicInteger();
        VirtualThreadFixtures.withScheduler(engine, workers, scheduler -> {
            Object monitor = new Object();
            ReentrantLock lock = new ReentrantLock();
            AtomicInteger inside = new AtomicInteger();
            WaitGroup done = new WaitGroup(HOLDERS);
            for (int i = 0; i < HOLDERS; i++) {
                Runnable critical = () -> {
                    most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    if (wait == MarlWait.EVENT_AWAIT) {
                        Event signalled = new Event(Event.Mode.MANUAL);
                        scheduler.enqueue(new Task(signalled::signal)); // runs while this one waits
                        signalled.await();
                    } else {
                        Fiber.sleep(Duration.ofMillis(1));
                    }
                    inside.decrementAndGet();
                };
                scheduler.enqueue(new Task(() -> {
                    try {
                        if (hold == Hold.SYNCHRONIZED) {
                            synchronized (monitor) {
                                critical.run();
                            }
                        } else {
                            lock.lock();
                            try {
                                critical.run();
                            } finally {
                                lock.unlock();
                            }
                        }
                    } finally {
                        done.done();
                    }
                }));
            }
            awaitAll(done);
        });
        return most.get();
    }

    @ParameterizedTest(name = "{0}, {1}")
    @CsvSource({
        "SYNCHRONIZED, EVENT_AWAIT, 1", "SYNCHRONIZED, EVENT_AWAIT, 2", "SYNCHRONIZED, FIBER_SLEEP, 1",
        "SYNCHRONIZED, FIBER_SLEEP, 2", "REENTRANT_LOCK, EVENT_AWAIT, 1", "REENTRANT_LOCK, EVENT_AWAIT, 2",
        "REENTRANT_LOCK, FIBER_SLEEP, 1", "REENTRANT_LOCK, FIBER_SLEEP, 2"})
    void virtualThreads_aLockHeldAcrossAMarlWait_keepsMutualExclusion(Hold hold, MarlWait wait, int workers) {
        assertEquals(1, mostHoldersAtOnce(FiberEngine.VIRTUAL_THREADS, workers, hold, wait),
                "most tasks inside the " + hold + " at once, across " + wait + ", on " + workers + " workers");
    }

    /**
     * The contrast: on one worker thread a ReentrantLock counts every fiber as its owner, so they
     * all get in. (A monitor is not run here: there it may deadlock the worker instead.)
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(MarlWait.class)
    void continuations_aReentrantLockHeldAcrossAMarlWait_letsTheOtherFibersOfItsThreadIn(MarlWait wait) {
        int most = mostHoldersAtOnce(FiberEngine.CONTINUATIONS, 1, Hold.REENTRANT_LOCK, wait);
        assertTrue(most > 1, "most fibers inside the lock at once: " + most);
    }

    // ---------------------------------------------------------------- naming the engine

    @ParameterizedTest(name = "{0}")
    @EnumSource(FiberEngine.class)
    void aSchedulerNamesItsEngine_inFiberEngineAndToString(FiberEngine engine) {
        Map<String, String> shown = new ConcurrentHashMap<>();
        VirtualThreadFixtures.withScheduler(engine, 1, scheduler -> {
            assertEquals(engine, scheduler.fiberEngine());
            assertEquals(engine, scheduler.config().getFiberEngine());
            shown.put("toString", scheduler.toString());
        });
        assertTrue(shown.get("toString").contains(engine.name()), shown.get("toString"));
        assertFalse(shown.get("toString").contains(
                (engine == FiberEngine.VIRTUAL_THREADS ? FiberEngine.CONTINUATIONS : FiberEngine.VIRTUAL_THREADS).name()));
        assertNull(new Scheduler.Config().getFiberEngine(), "a config names no engine until set");
    }
}
