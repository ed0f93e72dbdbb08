package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TaskErrors.LONG;
import static org.marl4j.TaskErrors.join;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The one-shot callbacks of {@link Event#onSignal} and {@link WaitGroup#onZero}, and their {@link Registration}s. */
class RegistrationTest {

    // ------------------------------------------------------------------ Event.onSignal

    @Test
    void onSignal_null_throwsNullPointerWithAMessage() {
        NullPointerException e = assertThrows(NullPointerException.class, () -> new Event().onSignal(null));
        assertTrue(e.getMessage().contains("callback"), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Event.Mode.class)
    void onSignal_onASignalledEvent_runsAtOnce_consumingOnlyAnAutoSignal(Event.Mode mode) {
        Event event = new Event(mode, true);
        AtomicInteger runs = new AtomicInteger();
        Registration registration = event.onSignal(runs::incrementAndGet);
        assertEquals(1, runs.get(), "ran before onSignal returned");
        assertEquals(mode == Event.Mode.MANUAL, event.isSignalled());
        assertFalse(registration.cancel(), "a callback that ran cannot be withdrawn");
        assertEquals(0, event.callbackCount());
    }

    @Test
    void onSignal_auto_eachSignalReleasesOneCallback_inRegistrationOrder() {
        Event event = new Event(Event.Mode.AUTO);
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            int id = i;
            event.onSignal(() -> order.add(id));
        }
        assertEquals(List.of(), order);
        for (int i = 0; i < 100; i++) {
            event.signal();
            assertEquals(i + 1, order.size(), "one signal, one callback");
            assertFalse(event.isSignalled(), "the callback consumed the signal");
        }
        assertEquals(java.util.stream.IntStream.range(0, 100).boxed().toList(), order);
        event.signal();
        assertTrue(event.isSignalled(), "with no callback left, the signal stays raised");
    }

    @Test
    void onSignal_manual_oneSignalReleasesEveryCallback_andStaysRaised() {
        Event event = new Event(Event.Mode.MANUAL);
        AtomicInteger runs = new AtomicInteger();
        for (int i = 0; i < 10; i++) {
            event.onSignal(runs::incrementAndGet);
        }
        event.signal();
        assertEquals(10, runs.get());
        assertTrue(event.isSignalled());
        assertEquals(0, event.callbackCount());
    }

    @Test
    void cancel_beforeTheSignal_withdrawsTheCallback_andLeavesTheAutoSignalForTheNext() {
        Event event = new Event(Event.Mode.AUTO);
        AtomicBoolean cancelledRan = new AtomicBoolean();
        AtomicBoolean nextRan = new AtomicBoolean();
        Registration cancelled = event.onSignal(() -> cancelledRan.set(true));
        event.onSignal(() -> nextRan.set(true));
        assertTrue(cancelled.cancel());
        assertFalse(cancelled.cancel(), "only the first cancel withdraws it");
        event.signal();
        assertFalse(cancelledRan.get(), "a withdrawn callback never runs");
        assertTrue(nextRan.get(), "the signal went to the next callback");
        event.signal();
        assertTrue(event.isSignalled(), "a withdrawn callback consumes no signal");
    }

    @Test
    void cancelledRegistrations_leaveNothingOnALongLivedEvent() {
        Event event = new Event(Event.Mode.AUTO);
        Registration kept = event.onSignal(() -> { });
        for (int i = 0; i < 100_000; i++) {
            assertTrue(event.onSignal(() -> { }).cancel());
        }
        assertEquals(1, event.callbackCount());
        assertTrue(kept.cancel());
        assertEquals(0, event.callbackCount());
    }

    @Test
    void aWaitingThreadComesBeforeCallbacks_forAnAutoSignal() {
        Event event = new Event(Event.Mode.AUTO);
        Thread waiter = TestSchedulers.startThread("event-waiter", event::await);
        await().atMost(LONG).until(() -> waiter.getState() == Thread.State.WAITING);
        AtomicBoolean ran = new AtomicBoolean();
        event.onSignal(() -> ran.set(true));
        event.signal();
        join(waiter);
        assertFalse(ran.get(), "the waiting thread took the signal");
        event.signal();
        assertTrue(ran.get(), "the next signal went to the callback");
    }

    @Test
    void aCallbackThatThrows_isReported_andTheOthersStillRun() {
        Event event = new Event(Event.Mode.MANUAL);
        RuntimeException boom = new RuntimeException("boom");
        AtomicBoolean secondRan = new AtomicBoolean();
        event.onSignal(() -> { throw boom; });
        event.onSignal(() -> secondRan.set(true));
        ConcurrentLinkedQueue<Throwable> reported = new ConcurrentLinkedQueue<>();
        Thread thread = Thread.currentThread();
        Thread.UncaughtExceptionHandler previous = thread.getUncaughtExceptionHandler();
        thread.setUncaughtExceptionHandler((t, e) -> reported.add(e));
        try {
            event.signal(); // does not throw
        } finally {
            thread.setUncaughtExceptionHandler(previous);
        }
        assertTrue(secondRan.get());
        assertEquals(List.of(boom), List.copyOf(reported));
    }

    @Test
    void aCallbackThatThrowsOnAWorker_goesToTheSchedulersHandler() {
        TaskErrors errors = new TaskErrors();
        RuntimeException boom = new RuntimeException("boom");
        Event event = new Event();
        event.onSignal(() -> { throw boom; });
        try (Scheduler scheduler = new Scheduler(errors.config(1))) {
            TestSchedulers.runOnFiber(scheduler, () -> {
                event.signal();
                return null;
            });
        }
        assertEquals(List.of(boom), errors.errors());
    }

    /** Signal and cancel race: the AUTO signal goes either to the callback or stays for the next. */
    @Test
    void cancelRacingSignal_eitherRunsTheCallbackOrLeavesTheSignal() throws Exception {
        Event event = new Event(Event.Mode.AUTO);
        CyclicBarrier start = new CyclicBarrier(2);
        int rounds = TestSchedulers.stress() ? 20_000 : 2_000;
        Thread signaller = TestSchedulers.startThread("signaller", () -> {
            for (int i = 0; i < rounds; i++) {
                awaitBarrier(start);
                event.signal();
                awaitBarrier(start);
            }
        });
        for (int i = 0; i < rounds; i++) {
            AtomicBoolean ran = new AtomicBoolean();
            Registration registration = event.onSignal(() -> ran.set(true));
            start.await();
            boolean withdrawn = registration.cancel();
            start.await();
            if (withdrawn) {
                assertFalse(ran.get(), "round " + i + ": withdrawn yet ran");
                assertTrue(event.test(), "round " + i + ": a withdrawn callback consumed the signal");
            } else {
                assertTrue(ran.get(), "round " + i + ": neither withdrawn nor run");
                assertFalse(event.isSignalled(), "round " + i + ": the callback ran without consuming the signal");
            }
        }
        join(signaller);
    }

    private static void awaitBarrier(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    // ------------------------------------------------------------------ WaitGroup.onZero

    @Test
    void onZero_null_throwsNullPointerWithAMessage() {
        NullPointerException e = assertThrows(NullPointerException.class, () -> new WaitGroup(1).onZero(null));
        assertTrue(e.getMessage().contains("callback"), e.getMessage());
    }

    @Test
    void onZero_atZero_runsAtOnce() {
        AtomicBoolean ran = new AtomicBoolean();
        Registration registration = new WaitGroup().onZero(() -> ran.set(true));
        assertTrue(ran.get());
        assertFalse(registration.cancel());
    }

    @Test
    void onZero_runsEveryCallbackWhenTheCountReachesZero_onTheThreadOfTheLastDone() {
        WaitGroup wg = new WaitGroup(2);
        List<Thread> ranOn = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            wg.onZero(() -> ranOn.add(Thread.currentThread()));
        }
        wg.done();
        assertEquals(List.of(), ranOn);
        wg.done();
        assertEquals(5, ranOn.size());
        ranOn.forEach(t -> assertSame(Thread.currentThread(), t));
        assertEquals(0, wg.callbackCount());
    }

    @Test
    void onZero_cancelled_neverRuns_andLeavesNothingBehind() {
        WaitGroup wg = new WaitGroup(1);
        AtomicBoolean ran = new AtomicBoolean();
        Registration withdrawn = wg.onZero(() -> ran.set(true));
        for (int i = 0; i < 100_000; i++) {
            assertTrue(wg.onZero(() -> ran.set(true)).cancel());
        }
        assertTrue(withdrawn.cancel());
        assertEquals(0, wg.callbackCount());
        wg.done();
        assertFalse(ran.get());
    }

    @Test
    void onZero_fromFibers_releasesWithOneWorker() {
        TestSchedulers.withBoundScheduler(1, scheduler -> {
            WaitGroup wg = new WaitGroup(1);
            Event released = new Event(Event.Mode.MANUAL);
            wg.onZero(released::signal);
            Marl.schedule(wg::done);
            assertTrue(released.await(LONG), "done() on the worker ran the callback");
        });
    }
}
