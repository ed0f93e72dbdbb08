package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TaskErrors.LONG;
import static org.marl4j.TaskErrors.join;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Event behaviour, ported from marl's {@code event_test.cpp} and extended to plain threads. */
class EventTest {
    /** Long enough that a waiter released by mistake would have been seen; used only for "nothing happened" checks. */
    private static final Duration SETTLE = Duration.ofMillis(50);

    // ------------------------------------------------------------------ state, no waiting

    @Test
    void defaultEvent_isAutoAndNotSignalled() {
        Event event = new Event();
        assertEquals(Event.Mode.AUTO, event.mode());
        assertFalse(event.isSignalled());
    }

    @ParameterizedTest
    @EnumSource(Event.Mode.class)
    void initialState_isHonoured(Event.Mode mode) {
        assertTrue(new Event(mode, true).isSignalled());
        assertFalse(new Event(mode, false).isSignalled());
        assertFalse(new Event(mode).isSignalled());
        assertEquals(mode, new Event(mode).mode());
    }

    @ParameterizedTest
    @EnumSource(Event.Mode.class)
    void isSignalled_followsSignalAndClear_withoutConsuming(Event.Mode mode) {
        Event event = new Event(mode);
        assertFalse(event.isSignalled());
        event.signal();
        assertTrue(event.isSignalled());
        assertTrue(event.isSignalled());
        event.clear();
        assertFalse(event.isSignalled());
    }

    @Test
    void autoTest_consumesTheSignal() {
        Event event = new Event(Event.Mode.AUTO);
        assertFalse(event.test());
        event.signal();
        assertTrue(event.test());
        assertFalse(event.test());
        assertFalse(event.isSignalled());
    }

    @Test
    void manualTest_leavesTheSignalRaised() {
        Event event = new Event(Event.Mode.MANUAL);
        assertFalse(event.test());
        event.signal();
        assertTrue(event.test());
        assertTrue(event.test());
        assertTrue(event.isSignalled());
    }

    @Test
    void autoSignal_twiceWithNobodyWaiting_isConsumedOnce() {
        Event event = new Event(Event.Mode.AUTO);
        event.signal();
        event.signal();
        assertTrue(event.test());
        assertFalse(event.test());
    }

    @ParameterizedTest
    @EnumSource(Event.Mode.class)
    void await_onASignalledEvent_returnsAtOnce_andAutoConsumes(Event.Mode mode) {
        Event event = new Event(mode, true);
        event.await();
        assertEquals(mode == Event.Mode.MANUAL, event.isSignalled());
        assertEquals(mode == Event.Mode.MANUAL, event.await(Duration.ZERO));
    }

    @ParameterizedTest
    @EnumSource(Event.Mode.class)
    void clear_lowersASignalSoThatTimedWaitsTimeOut(Event.Mode mode) {
        Event event = new Event(mode, true);
        event.clear();
        assertFalse(event.await(Duration.ofMillis(5)));
    }

    // ------------------------------------------------------------------ fibers waiting

    @ForEachWorkerCount
    void autoSignal_releasesOneWaitingFiberPerSignal(int workers) {
        AtomicInteger counter = new AtomicInteger();
        List<Integer> afterEachSignal = new ArrayList<>();
        List<Boolean> extraRelease = new ArrayList<>();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Event event = new Event(Event.Mode.AUTO);
            Event done = new Event(Event.Mode.AUTO);
            AtomicInteger waiting = new AtomicInteger();
            for (int i = 0; i < 3; i++) {
                Marl.schedule(() -> {
                    waiting.incrementAndGet();
                    event.await();
                    counter.incrementAndGet();
                    done.signal();
                });
            }
            assertEquals(0, counter.get());
            for (int i = 0; i < 3; i++) {
                event.signal();
                assertTrue(done.await(LONG));
                afterEachSignal.add(counter.get());
                // If the signal had released more than one waiter, done would be signalled again.
                extraRelease.add(done.await(SETTLE));
            }
        });
        assertEquals(List.of(1, 2, 3), afterEachSignal);
        assertEquals(List.of(false, false, false), extraRelease);
    }

    @ForEachWorkerCount
    void manualSignal_releasesEveryWaitingFiber_andStaysRaised(int workers) {
        AtomicInteger counter = new AtomicInteger();
        AtomicBoolean stillSignalled = new AtomicBoolean();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Event event = new Event(Event.Mode.MANUAL);
            WaitGroup wg = new WaitGroup(1000);
            for (int i = 0; i < 1000; i++) {
                Marl.schedule(() -> {
                    event.await();
                    counter.incrementAndGet();
                    wg.done();
                });
            }
            event.signal();
            assertTrue(wg.await(LONG));
            stillSignalled.set(event.isSignalled());
        });
        assertEquals(1000, counter.get());
        assertTrue(stillSignalled.get());
    }

    @ForEachWorkerCount
    void events_releaseFibersInTheSignalledSequence(int workers) {
        for (Event.Mode mode : Event.Mode.values()) {
            StringBuffer sequence = new StringBuffer();
            TestSchedulers.withBoundScheduler(workers, scheduler -> {
                Event a = new Event(mode);
                Event b = new Event(mode);
                Event c = new Event(mode);
                Event done = new Event(mode);
                Marl.schedule(() -> {
                    b.await();
                    sequence.append('B');
                    c.signal();
                });
                Marl.schedule(() -> {
                    a.await();
                    sequence.append('A');
                    b.signal();
                });
                Marl.schedule(() -> {
                    c.await();
                    sequence.append('C');
                    done.signal();
                });
                assertEquals("", sequence.toString());
                a.signal();
                assertTrue(done.await(LONG));
            });
            assertEquals("ABC", sequence.toString(), mode.toString());
        }
    }

    /**
     * Timed waits that end while a signal on another thread is still walking the crowd it detached
     * (WaitQueue.pollAll then wakeChain): such a node must never be unlinked from the live queue, or
     * reused by its fiber's next wait before the signal has finished with it. Waiters join and leave
     * throughout; the queue's count and links stay exact (the asserts in WaitQueue.add and
     * Fiber.waiterForWait check reuse), and the untimed waits are all released. The window is a few
     * microseconds per signal, so this end-to-end run rarely hits it (a queue that kept detached
     * nodes queued passed it): WaitQueueTest checks that protocol deterministically.
     */
    @ForEachWorkerCount
    void manualSignals_racingTimedWaits_wakeEveryWaiterAndLeaveNoNodeBehind(int workers) {
        Event event = new Event(Event.Mode.MANUAL);
        int tasks = 256;
        int rounds = TestSchedulers.stress() ? 1_000 : 100;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean finished = new AtomicBoolean();
        Thread signaller = TestSchedulers.startThread("signaller", () -> {
            while (!finished.get()) {
                event.signal();
                event.clear();
                Thread.onSpinWait();
            }
        });
        try {
            TestSchedulers.withBoundScheduler(workers, scheduler -> {
                WaitGroup done = new WaitGroup(tasks);
                for (int t = 0; t < tasks; t++) {
                    Marl.schedule(() -> {
                        try {
                            ThreadLocalRandom random = ThreadLocalRandom.current();
                            for (int i = 0; i < rounds; i++) {
                                if (random.nextInt(4) == 0) {
                                    event.await(); // the signaller keeps signalling until every task is done
                                } else {
                                    event.await(Duration.ofNanos(random.nextInt(1, 50_000)));
                                }
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        } finally {
                            done.done();
                        }
                    });
                }
                assertTrue(done.await(LONG), "an untimed waiter was never released");
            });
        } finally {
            finished.set(true);
            join(signaller);
        }
        assertEquals(null, failure.get());
        assertEquals(0, event.waiterCount(), "a node stayed in the queue after its wait ended");
    }

    @ForEachWorkerCount
    void timedAwait_returnsTrueWhenSignalledBeforeTheTimeout(int workers) {
        AtomicInteger signalled = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Event event = new Event(Event.Mode.MANUAL);
            WaitGroup wg = new WaitGroup(1000);
            for (int i = 0; i < 1000; i++) {
                Marl.schedule(() -> {
                    if (event.await(LONG)) {
                        signalled.incrementAndGet();
                    }
                    wg.done();
                });
            }
            event.signal();
            assertTrue(wg.await(LONG));
        });
        assertEquals(1000, signalled.get());
    }

    @ForEachWorkerCount
    void timedAwait_returnsFalseAfterTheTimeout_whenNeverSignalled(int workers) {
        Duration timeout = Duration.ofMillis(10);
        AtomicInteger timedOut = new AtomicInteger();
        AtomicInteger tooEarly = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Event event = new Event(Event.Mode.AUTO);
            WaitGroup wg = new WaitGroup(1000);
            for (int i = 0; i < 1000; i++) {
                Marl.schedule(() -> {
                    long start = System.nanoTime();
                    if (!event.await(timeout)) {
                        timedOut.incrementAndGet();
                    }
                    if (System.nanoTime() - start < timeout.toNanos()) {
                        tooEarly.incrementAndGet();
                    }
                    wg.done();
                });
            }
            assertTrue(wg.await(LONG));
        });
        assertEquals(1000, timedOut.get());
        assertEquals(0, tooEarly.get());
    }

    @ForEachWorkerCount
    void autoSignal_withTimedWaiters_releasesExactlyAsManyAsSignals(int workers) {
        int waiters = 100;
        int signals = 40;
        AtomicInteger released = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Event event = new Event(Event.Mode.AUTO);
            Event oneReleased = new Event(Event.Mode.AUTO);
            WaitGroup wg = new WaitGroup(waiters);
            WaitGroup started = new WaitGroup(waiters);
            AtomicBoolean closed = new AtomicBoolean();
            for (int i = 0; i < waiters; i++) {
                Marl.schedule(() -> {
                    started.done();
                    // Short timed waits, so that timeouts keep racing the signals.
                    while (!closed.get()) {
                        if (event.await(Duration.ofMillis(2))) {
                            released.incrementAndGet();
                            oneReleased.signal();
                            break;
                        }
                    }
                    wg.done();
                });
            }
            assertTrue(started.await(LONG));
            for (int i = 0; i < signals; i++) {
                event.signal();
                assertTrue(oneReleased.await(LONG), "signal " + i + " released nobody");
            }
            closed.set(true);
            assertTrue(wg.await(LONG));
        });
        // Each signal was consumed by exactly one waiter, none was lost to a waiter that timed out.
        assertEquals(signals, released.get());
    }

    @ForEachWorkerCount
    void spuriousFiberWake_doesNotReturnFromAwait(int workers) {
        AtomicInteger returned = new AtomicInteger();
        AtomicInteger returnedEarly = new AtomicInteger(-1);
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Event event = new Event(Event.Mode.AUTO);
            AtomicReference<Fiber> waiter = new AtomicReference<>();
            WaitGroup wg = new WaitGroup(1);
            Marl.schedule(() -> {
                waiter.set(Fiber.current());
                event.await();
                returned.incrementAndGet();
                wg.done();
            });
            Thread waker = Thread.ofPlatform().start(() -> {
                try {
                    await().atMost(LONG).until(() -> waiter.get() != null);
                    for (int i = 0; i < 100; i++) {
                        waiter.get().wake(); // not a signal: the fiber must go back to waiting
                        Thread.yield();
                    }
                    returnedEarly.set(returned.get());
                } finally {
                    event.signal();
                }
            });
            assertTrue(wg.await(LONG));
            join(waker);
        });
        assertEquals(0, returnedEarly.get());
        assertEquals(1, returned.get());
    }

    @Test
    void autoSignal_takenByAWaiterThatIsThenCancelled_releasesAWaitingCallback() throws Exception {
        // An AUTO signal goes to a waiting fiber before any onSignal callback. When that fiber's wait was
        // cancelled (a bounded close) before it could consume the signal, the signal stayed raised with
        // the callback still queued: nothing released it (a second signal() is a no-op on a signalled
        // event), so a coroutine awaiting the event through onSignal hung.
        Event event = new Event(Event.Mode.AUTO);
        AtomicBoolean callbackRan = new AtomicBoolean();
        java.util.concurrent.CountDownLatch blockerStarted = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch releaseBlocker = new java.util.concurrent.CountDownLatch(1);
        // One worker: the waiter and the blocker share it, and the blocker holds its thread (continuations).
        Scheduler scheduler = new Scheduler(TestSchedulers.config(1).setFiberEngine(FiberEngine.CONTINUATIONS));
        Thread closer = null;
        try (LogCapture log = LogCapture.of(Scheduler.class)) {
            scheduler.enqueue(new Task(event::await));
            await().atMost(LONG).until(() -> scheduler.stats().fibersBlocked() == 1);
            event.onSignal(() -> callbackRan.set(true));
            scheduler.enqueue(new Task(() -> {
                blockerStarted.countDown();
                try {
                    releaseBlocker.await(); // holds the worker thread: the woken waiter cannot run yet
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            assertTrue(blockerStarted.await(LONG.toSeconds(), java.util.concurrent.TimeUnit.SECONDS));
            event.signal(); // to the waiting fiber, which has not run yet
            closer = Thread.ofPlatform().start(() -> scheduler.close(Duration.ZERO));
            await().atMost(LONG).until(() -> log.contains("cancelled the waits of 1 suspended fiber"));
            releaseBlocker.countDown(); // the waiter resumes into its cancellation, the signal unconsumed
            join(closer);
        } finally {
            releaseBlocker.countDown();
            if (closer == null) {
                scheduler.close(Duration.ZERO);
            }
        }
        assertTrue(callbackRan.get() || !event.isSignalled(),
                "the signal stayed raised with a callback still waiting for it");
        assertTrue(callbackRan.get(), "the callback was not released");
    }

    // ------------------------------------------------------------------ Event.any

    @ForEachWorkerCount
    void any_isSignalledWhenOneOfItsEventsIsSignalledLater(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            for (int i = 0; i < 3; i++) {
                List<Event> events = List.of(new Event(), new Event(), new Event());
                Event any = Event.any(Event.Mode.AUTO, events);
                assertFalse(any.isSignalled());
                events.get(i).signal();
                assertTrue(any.isSignalled(), "after signalling event " + i);
            }
        });
    }

    @Test
    void any_ofAnAlreadySignalledEvent_isSignalledAtOnce() {
        Event first = new Event(Event.Mode.AUTO);
        Event second = new Event(Event.Mode.MANUAL, true);
        Event any = Event.any(Event.Mode.MANUAL, first, second);
        assertTrue(any.isSignalled());
        assertEquals(Event.Mode.MANUAL, any.mode());
    }

    @Test
    void any_ofNoEvents_isNeverSignalled() {
        Event any = Event.any(Event.Mode.AUTO);
        assertFalse(any.await(Duration.ofMillis(5)));
    }

    @ForEachWorkerCount
    void any_wakesAFiberWaitingOnIt_whenAPlainThreadSignalsAnInput(int workers) {
        AtomicInteger woke = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Event a = new Event();
            Event b = new Event();
            Event any = Event.any(Event.Mode.AUTO, a, b);
            WaitGroup wg = new WaitGroup(1);
            AtomicBoolean waiting = new AtomicBoolean();
            Marl.schedule(() -> {
                waiting.set(true);
                any.await();
                woke.incrementAndGet();
                wg.done();
            });
            Thread signaller = Thread.ofPlatform().start(() -> {
                await().atMost(LONG).untilTrue(waiting);
                b.signal();
            });
            assertTrue(wg.await(LONG));
            join(signaller);
            assertTrue(b.isSignalled(), "any must not consume its input's signal");
            assertFalse(any.isSignalled(), "the AUTO any event was consumed by its waiter");
        });
        assertEquals(1, woke.get());
    }

    @Test
    void anyCallbacks_runWithTheSourcesLockReleased_soASignallerOfTheSourceIsNotShutOut() throws Exception {
        // onSignal promises its callback runs after the event's lock is released. An any-event's
        // callback ran inside its source's signal(), with the source's lock held: two such callbacks
        // that signal (or test) each other's source, run by two threads at once, deadlocked.
        Event source = new Event(Event.Mode.MANUAL);
        Event any = Event.any(Event.Mode.MANUAL, source);
        AtomicBoolean otherThreadGotIn = new AtomicBoolean();
        any.onSignal(() -> {
            Thread other = Thread.ofPlatform().start(source::isSignalled);
            try {
                otherThreadGotIn.set(other.join(Duration.ofSeconds(5)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        source.signal();
        assertTrue(otherThreadGotIn.get(), "another thread could not take the source's lock while the any-event's callback ran");
    }

    // ------------------------------------------------------------------ plain threads

    @ParameterizedTest
    @EnumSource(Event.Mode.class)
    void plainThreads_waitAndAreSignalledByAnotherPlainThread(Event.Mode mode) {
        int threads = 8;
        Event event = new Event(mode);
        AtomicInteger released = new AtomicInteger();
        List<Thread> waiters = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            waiters.add(Thread.ofPlatform().start(() -> {
                event.await();
                released.incrementAndGet();
            }));
        }
        Thread signaller = Thread.ofPlatform().start(() -> {
            if (mode == Event.Mode.MANUAL) {
                event.signal();
                return;
            }
            // An AUTO signal raised twice before anyone consumes it counts once: wait for each release.
            for (int i = 1; i <= threads; i++) {
                event.signal();
                int expected = i;
                await().atMost(LONG).until(() -> released.get() >= expected);
            }
        });
        join(signaller);
        waiters.forEach(TaskErrors::join);
        assertEquals(threads, released.get());
        assertEquals(mode == Event.Mode.MANUAL, event.isSignalled());
    }

    @Test
    void plainThread_timedAwait_returnsFalseAfterTimeout_andTrueWhenSignalled() {
        Event event = new Event();
        Duration timeout = Duration.ofMillis(20);
        long start = System.nanoTime();
        assertFalse(event.await(timeout));
        assertTrue(System.nanoTime() - start >= timeout.toNanos());

        Thread signaller = Thread.ofPlatform().start(event::signal);
        assertTrue(event.await(LONG));
        join(signaller);
    }

    @ForEachWorkerCount
    void plainThreadWaiter_isSignalledByAFiber_andFiberWaiterByAPlainThread(int workers) {
        AtomicBoolean plainReleased = new AtomicBoolean();
        AtomicBoolean fiberReleased = new AtomicBoolean();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Event toPlain = new Event();
            Event toFiber = new Event();
            WaitGroup wg = new WaitGroup(1);
            Thread plain = Thread.ofPlatform().start(() -> {
                plainReleased.set(toPlain.await(LONG));
                toFiber.signal();
            });
            Marl.schedule(() -> {
                toPlain.signal();
                fiberReleased.set(toFiber.await(LONG));
                wg.done();
            });
            assertTrue(wg.await(LONG));
            join(plain);
        });
        assertTrue(plainReleased.get());
        assertTrue(fiberReleased.get());
    }

    @ForEachWorkerCount
    void boundThread_waitingOnAnEvent_isReleasedByAPlainThread(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Event event = new Event(Event.Mode.AUTO);
            Thread signaller = Thread.ofPlatform().start(event::signal);
            event.await();
            assertFalse(event.isSignalled(), "AUTO signal consumed by the bound thread's await");
            join(signaller);
        });
    }

    // ---------------------------------------------------------------- Event.any leaks

    /**
     * Event.any in a loop over a long-lived source: once the any-events are garbage, the source
     * keeps none of them (holding each for good would leak one per call).
     */
    @Test
    void any_calledRepeatedlyOnALongLivedSource_keepsNoCollectedDependents() {
        Event source = new Event(Event.Mode.MANUAL);
        Event other = new Event(Event.Mode.MANUAL);
        for (int i = 0; i < 10_000; i++) {
            assertFalse(Event.any(Event.Mode.AUTO, source, other).test());
        }
        assertTrue(source.dependentCount() > 0);
        await().atMost(TestSchedulers.PATIENCE).until(() -> {
            System.gc();
            for (Event e : List.of(source, other)) {
                e.signal(); // a signal sweeps the collected dependents
                e.clear();
            }
            return source.dependentCount() == 0 && other.dependentCount() == 0;
        });
    }

    /** Without any signal, registering alone keeps the list within a bound once the garbage is collected. */
    @Test
    void any_inALoopWithoutSignals_keepsTheSourcesDependentsBounded() {
        Event source = new Event(Event.Mode.MANUAL);
        int maxSeen = 0;
        for (int i = 0; i < 20_000; i++) {
            Event.any(Event.Mode.AUTO, source);
            if (i % 1_000 == 0) {
                System.gc();
            }
            maxSeen = Math.max(maxSeen, source.dependentCount());
        }
        assertTrue(maxSeen < 6_000, "the source held " + maxSeen + " dependents of 20,000 collected any-events");
    }

    /** Held only by the fiber waiting on it (and its source, weakly), an any-event still wakes that fiber. */
    @ForEachWorkerCount
    void any_referencedOnlyByItsWaitingFiber_isStillSignalledAfterGc(int workers) {
        Event source = new Event(Event.Mode.MANUAL);
        AtomicBoolean woke = new AtomicBoolean();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup done = new WaitGroup(1);
            Event started = new Event(Event.Mode.MANUAL);
            Marl.schedule(() -> {
                started.signal();
                Event.any(Event.Mode.AUTO, source).await(); // the only strong reference is this frame
                woke.set(true);
                done.done();
            });
            started.await();
            if (workers > 0) {
                await().atMost(TestSchedulers.PATIENCE).until(() -> scheduler.stats().fibersBlocked() > 0);
            } else {
                Fiber.yield(); // lets the task reach its wait on this thread
            }
            for (int i = 0; i < 3; i++) {
                System.gc();
            }
            source.signal();
            done.await();
        });
        assertTrue(woke.get());
    }

    @Test
    void any_referencedOnlyByItsOnSignalCallback_stillRunsItAfterGc() {
        // The sources hold an any-event weakly, and nothing else held one whose only waiter is an
        // onSignal callback (a registration holds the event's queue, not the event): after a GC the
        // source's signal found it gone and the callback never ran (a Kotlin awaitSuspending on
        // Event.any(MANUAL, ...) hung).
        Event source = new Event(Event.Mode.MANUAL);
        AtomicBoolean ran = new AtomicBoolean();
        java.lang.ref.WeakReference<Event> any = anyWithCallback(source, () -> ran.set(true));
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        assertTrue(any.get() != null, "the any-event with a pending callback was collected");
        source.signal();
        assertTrue(ran.get(), "the callback never ran");
    }

    @Test
    void any_whoseCallbackIsWithdrawnOrHasRun_isCollectedAgain() {
        Event source = new Event(Event.Mode.MANUAL);
        Event other = new Event(Event.Mode.MANUAL);
        java.lang.ref.WeakReference<Event> withdrawn = anyWithWithdrawnCallback(source);
        java.lang.ref.WeakReference<Event> released = anyWithCallback(other, () -> {});
        other.signal(); // runs the callback: nothing is pending on that any-event any more
        await().atMost(TestSchedulers.PATIENCE).until(() -> {
            System.gc();
            return withdrawn.get() == null && released.get() == null;
        });
    }

    /** anyWithCallback(source, callback) registers callback on a new any-event of source and keeps only a weak reference to it. */
    private static java.lang.ref.WeakReference<Event> anyWithCallback(Event source, Runnable callback) {
        Event any = Event.any(Event.Mode.MANUAL, source);
        any.onSignal(callback);
        return new java.lang.ref.WeakReference<>(any);
    }

    private static java.lang.ref.WeakReference<Event> anyWithWithdrawnCallback(Event source) {
        Event any = Event.any(Event.Mode.AUTO, source);
        assertTrue(any.onSignal(() -> {}).cancel());
        assertTrue(any.onSignal(() -> {}).cancel());
        return new java.lang.ref.WeakReference<>(any);
    }

    @Test
    void any_varargsWithNull_namesTheIndex() {
        Event e = new Event();
        NullPointerException npe = assertThrows(NullPointerException.class, () -> Event.any(Event.Mode.AUTO, e, null));
        assertTrue(npe.getMessage().contains("events[1]"), npe.getMessage());
        NullPointerException listNpe = assertThrows(NullPointerException.class,
                () -> Event.any(Event.Mode.AUTO, java.util.Arrays.asList(e, null)));
        assertTrue(listNpe.getMessage().contains("index 1"), listNpe.getMessage());
        NullPointerException modeNpe = assertThrows(NullPointerException.class, () -> Event.any(null, e));
        assertTrue(modeNpe.getMessage().contains("mode"), modeNpe.getMessage());
        assertEquals(0, e.dependentCount(), "a refused call registers nothing");
    }

    @Test
    void await_hugeTimeout_saturates() {
        Event signalled = new Event(Event.Mode.MANUAL, true);
        assertTrue(signalled.await(Duration.ofSeconds(Long.MAX_VALUE)));
        assertFalse(new Event().await(Duration.ofSeconds(Long.MIN_VALUE)));
    }
}
