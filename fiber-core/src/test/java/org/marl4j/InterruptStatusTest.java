package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The interrupt status on marl4j's threads: on a worker thread each fiber has its own, and a task
 * starts without one; a bound thread's is the application's.
 */
class InterruptStatusTest {
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void anInterruptOneTaskLeavesOnItsWorkerThread_isClearedBeforeTheNextTask(int workers) {
        try (Scheduler scheduler = new Scheduler(TestSchedulers.config(workers))) {
            for (int round = 0; round < 50; round++) {
                // Both on one worker, back to back: the first sets its thread's status and ends.
                AtomicBoolean sawInterrupt = new AtomicBoolean(true);
                WaitGroup done = new WaitGroup(1);
                scheduler.enqueue(new Task(() -> {
                    Thread.currentThread().interrupt();
                    scheduler.enqueue(new Task(() -> {
                        sawInterrupt.set(Thread.currentThread().isInterrupted());
                        done.done();
                    }));
                }));
                done.await();
                assertFalse(sawInterrupt.get(), "round " + round + ": the next task started with the thread interrupted");
            }
        }
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void aFibersInterruptStatus_isItsOwnAcrossItsWait_andNoOtherFiberSeesIt(int workers) {
        try (Scheduler scheduler = new Scheduler(TestSchedulers.config(workers))) {
            for (int round = 0; round < 20; round++) {
                Event x = new Event(Event.Mode.MANUAL);
                Event y = new Event(Event.Mode.MANUAL);
                Event aWaits = new Event(Event.Mode.MANUAL);
                Event cWaits = new Event(Event.Mode.MANUAL);
                Event bWaits = new Event(Event.Mode.MANUAL);
                AtomicBoolean aSaw = new AtomicBoolean();
                AtomicBoolean cSaw = new AtomicBoolean(true);
                AtomicBoolean bSawAtStart = new AtomicBoolean(true);
                AtomicBoolean bSaw = new AtomicBoolean();
                WaitGroup done = new WaitGroup(3);
                // A interrupts itself and waits; C, not interrupted, waits for the same event; then B
                // starts, interrupts itself and waits for another. On one worker all three share a thread.
                scheduler.enqueue(new Task(() -> {
                    Thread.currentThread().interrupt();
                    aWaits.signal();
                    x.await();
                    aSaw.set(Thread.currentThread().isInterrupted());
                    done.done();
                }));
                aWaits.await();
                scheduler.enqueue(new Task(() -> {
                    cWaits.signal();
                    x.await();
                    cSaw.set(Thread.currentThread().isInterrupted());
                    done.done();
                }));
                cWaits.await();
                scheduler.enqueue(new Task(() -> {
                    bSawAtStart.set(Thread.currentThread().isInterrupted());
                    Thread.currentThread().interrupt();
                    bWaits.signal();
                    y.await();
                    bSaw.set(Thread.currentThread().isInterrupted());
                    done.done();
                }));
                bWaits.await();
                x.signal();
                y.signal();
                done.await();
                int r = round;
                assertTrue(aSaw.get(), () -> "round " + r + ": A's own interrupt status was lost in its wait");
                assertFalse(cSaw.get(), () -> "round " + r + ": C resumed with another fiber's interrupt status");
                assertFalse(bSawAtStart.get(), () -> "round " + r + ": B started with A's interrupt status");
                assertTrue(bSaw.get(), () -> "round " + r + ": B's own interrupt status was lost in its wait");
            }
        }
    }

    /**
     * Many fibers on the same workers, each setting or clearing its own status at random and then
     * waiting in one of three ways (a yield, a timed sleep, an Event another task signals): after
     * every wait each finds exactly the status it left. Bounded: 64 fibers, 150 rounds each
     * (-DstressTest=true: 256 and 600).
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2, 4})
    void manyFibersWaitingInTurn_eachFindsOnlyItsOwnStatus(int workers) {
        boolean stress = TestSchedulers.stress();
        int fibers = stress ? 256 : 64;
        int rounds = stress ? 600 : 150;
        AtomicReference<String> failure = new AtomicReference<>();
        try (Scheduler scheduler = new Scheduler(TestSchedulers.config(workers))) {
            WaitGroup done = new WaitGroup(fibers);
            for (int f = 0; f < fibers; f++) {
                int id = f;
                scheduler.enqueue(new Task(() -> {
                    SplittableRandom random = new SplittableRandom(id);
                    Event signalled = new Event(Event.Mode.AUTO);
                    try {
                        for (int r = 0; r < rounds && failure.get() == null; r++) {
                            boolean mine = random.nextBoolean();
                            if (mine) {
                                Thread.currentThread().interrupt();
                            } else {
                                Thread.interrupted();
                            }
                            switch (random.nextInt(3)) {
                                case 0 -> Fiber.yield();
                                case 1 -> Fiber.sleep(Duration.ofNanos(random.nextInt(50_000)));
                                default -> {
                                    scheduler.enqueue(new Task(signalled::signal));
                                    signalled.await();
                                }
                            }
                            if (Thread.currentThread().isInterrupted() != mine) {
                                failure.compareAndSet(null, "fiber " + id + ", round " + r + ": left its status "
                                        + mine + " before a wait and found " + !mine + " after it");
                            }
                        }
                    } finally {
                        Thread.interrupted();
                        done.done();
                    }
                }));
            }
            assertTrue(done.await(TaskErrors.LONG), "the fibers did not finish within " + TaskErrors.LONG);
        }
        assertNull(failure.get(), failure::get);
    }

    @Test
    void aBoundThreadKeepsItsInterruptStatus_acrossTheTasksItRuns() {
        try (Scheduler scheduler = new Scheduler(TestSchedulers.config(0))) {
            scheduler.bind();
            Thread.currentThread().interrupt();
            WaitGroup done = new WaitGroup(1);
            Marl.schedule(done::done);
            done.await(); // the task runs on this thread meanwhile
            scheduler.unbind();
            assertTrue(Thread.interrupted(), "the application's interrupt was lost");
        }
    }
}
