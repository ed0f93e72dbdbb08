package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/**
 * A wait the JVM cannot yield (here: inside a class initializer, which runs under a native VM
 * frame) falls back to blocking the worker thread for that wait, and the worker carries on
 * afterwards. A class initializes once per JVM, so each case has a class of its own.
 */
class PinningTest {
    static final Event RELEASE_ON_BOUND_THREAD = new Event(Event.Mode.MANUAL);
    static final Event RELEASE_ON_WORKER = new Event(Event.Mode.MANUAL);

    static final class WaitsInInitializerOnBoundThread {
        static final int VALUE;

        static {
            RELEASE_ON_BOUND_THREAD.await();
            VALUE = 42;
        }

        private WaitsInInitializerOnBoundThread() {}
    }

    static final class WaitsInInitializerOnWorker {
        static final int VALUE;

        static {
            RELEASE_ON_WORKER.await();
            VALUE = 43;
        }

        private WaitsInInitializerOnWorker() {}
    }

    static final Event RELEASED_BY_A_TASK = new Event(Event.Mode.MANUAL);

    static final class WaitsInInitializerForATaskOnItsOwnWorker {
        static final int VALUE;

        static {
            Marl.schedule(RELEASED_BY_A_TASK::signal); // queued on the one worker, which this wait pins
            RELEASED_BY_A_TASK.await();
            VALUE = 44;
        }

        private WaitsInInitializerForATaskOnItsOwnWorker() {}
    }

    static final Event RELEASED_BY_AN_INTERRUPTING_TASK = new Event(Event.Mode.MANUAL);
    static volatile boolean taskSawInterrupt;

    static final class WaitsInterruptedInInitializerForATaskThatInterrupts {
        static final int VALUE;

        static {
            Thread.currentThread().interrupt(); // the pinned fiber's own status
            Marl.schedule(() -> {
                taskSawInterrupt = Thread.currentThread().isInterrupted();
                Thread.currentThread().interrupt(); // and the task leaves one of its own
                RELEASED_BY_AN_INTERRUPTING_TASK.signal();
            });
            RELEASED_BY_AN_INTERRUPTING_TASK.await();
            VALUE = 45;
        }

        private WaitsInterruptedInInitializerForATaskThatInterrupts() {}
    }

    /** The task a pinned wait runs inline on a worker thread starts without the pinned fiber's interrupt status. */
    @Test
    void aTaskRunByAPinnedWait_startsUninterrupted() {
        AtomicInteger value = new AtomicInteger();
        TestSchedulers.withBoundScheduler(1, scheduler -> {
            WaitGroup done = new WaitGroup(1);
            Marl.schedule(() -> {
                value.set(WaitsInterruptedInInitializerForATaskThatInterrupts.VALUE);
                done.done();
            });
            org.junit.jupiter.api.Assertions.assertTrue(done.await(TaskErrors.LONG), "the pinned wait deadlocked");
        });
        assertEquals(45, value.get());
        assertEquals(false, taskSawInterrupt, "the task started with the pinned fiber's interrupt");
    }

    /** With one worker, the waker queued behind a pinned wait runs on the pinned thread: no deadlock. */
    @Test
    void aPinnedWaitWithOneWorker_runsTheWakerQueuedOnItsOwnWorker() {
        AtomicInteger value = new AtomicInteger();
        TestSchedulers.withBoundScheduler(1, scheduler -> {
            WaitGroup done = new WaitGroup(1);
            Marl.schedule(() -> {
                value.set(WaitsInInitializerForATaskOnItsOwnWorker.VALUE);
                done.done();
            });
            org.junit.jupiter.api.Assertions.assertTrue(done.await(TaskErrors.LONG), "the pinned wait deadlocked");
        });
        assertEquals(44, value.get());
    }

    @Test
    void aPinnedWaitOnABoundThreadBlocksItThenCompletes() {
        assertEquals(42, runPinned(0, RELEASE_ON_BOUND_THREAD, () -> WaitsInInitializerOnBoundThread.VALUE));
    }

    @Test
    void aPinnedWaitOnAWorkerThreadBlocksItThenCompletes() {
        assertEquals(43, runPinned(2, RELEASE_ON_WORKER, () -> WaitsInInitializerOnWorker.VALUE));
    }

    private static int runPinned(int workers, Event release, IntSupplier pinnedRead) {
        AtomicInteger value = new AtomicInteger();
        AtomicInteger afterwards = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup started = new WaitGroup(1);
            WaitGroup done = new WaitGroup(1);
            // A plain thread releases the wait: the pinned worker thread cannot run anything else.
            Thread releaser = new Thread(() -> {
                started.await();
                release.signal();
            });
            releaser.start();
            Marl.schedule(() -> {
                started.done();
                value.set(pinnedRead.getAsInt());
                done.done();
            });
            done.await();
            WaitGroup more = new WaitGroup(100);
            for (int i = 0; i < 100; i++) {
                Marl.schedule(() -> {
                    afterwards.incrementAndGet();
                    more.done();
                });
            }
            more.await();
        });
        assertEquals(100, afterwards.get(), "the worker keeps running tasks after a pinned wait");
        return value.get();
    }
}
