package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.awaitility.Awaitility.await;
import static org.marl4j.TaskErrors.LONG;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A notification that releases a crowd wakes it through {@link WakeBatch}: runs of fibers pushed
 * onto each worker's inbox at once. Each test releases more fibers than one run holds, over more
 * workers than the batch keeps runs for (8 and 64 workers), from a thread that is no worker: a run
 * that was never pushed would leave its fibers suspended, and the wait below would fail.
 */
class WakeBatchTest {
    private static final int CROWD = 10 * WakeBatch.MAX_RUN + 7;

    @ForEachWorkerCount
    void aCrowdReleasedFromAnotherThread_allResume(int workers) {
        AtomicInteger resumed = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Event release = new Event(Event.Mode.MANUAL);
            WaitGroup done = suspendCrowd(scheduler, release::await, () -> {}, resumed);
            Thread signaller = Thread.ofPlatform().start(release::signal);
            assertTrue(done.await(LONG));
            TaskErrors.join(signaller);
        });
        assertEquals(CROWD, resumed.get());
    }

    @ForEachWorkerCount
    void aCrowdReleasedByOneOfItsWorkers_allResume(int workers) {
        AtomicInteger resumed = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup gate = new WaitGroup(1);
            WaitGroup done = suspendCrowd(scheduler, gate::await, () -> {}, resumed);
            // Released on a fiber: its own worker's waiters are woken at once, the others' in runs.
            scheduler.enqueue(new Task(gate::done));
            assertTrue(done.await(LONG));
        });
        assertEquals(CROWD, resumed.get());
    }

    @ForEachWorkerCount
    void fibersAlsoWokenOneByOne_whileTheirCrowdIsReleased_resumeExactlyOnce(int workers) {
        AtomicInteger resumed = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Event release = new Event(Event.Mode.MANUAL);
            ConcurrentLinkedQueue<Fiber> fibers = new ConcurrentLinkedQueue<>();
            // A spurious wake finds the event unsignalled and waits again.
            WaitGroup done = suspendCrowd(scheduler, release::await, () -> fibers.add(Fiber.current()), resumed);
            List<Fiber> all = new ArrayList<>(fibers);
            AtomicBoolean stop = new AtomicBoolean();
            Thread spurious = Thread.ofPlatform().start(() -> {
                while (!stop.get()) {
                    for (Fiber f : all) {
                        f.wake(); // contends with the batch for each fiber's inbox entry
                    }
                }
            });
            Thread signaller = Thread.ofPlatform().start(release::signal);
            try {
                assertTrue(done.await(LONG));
            } finally {
                stop.set(true);
                TaskErrors.join(spurious);
                TaskErrors.join(signaller);
            }
        });
        assertEquals(CROWD, resumed.get());
    }

    @ForEachWorkerCount
    void threadsWaitingBesideTheCrowd_areReleasedToo(int workers) {
        AtomicInteger resumed = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Event release = new Event(Event.Mode.MANUAL);
            WaitGroup done = suspendCrowd(scheduler, release::await, () -> {}, resumed);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    release.await();
                    resumed.incrementAndGet();
                }));
            }
            await().atMost(LONG).until(() -> release.waiterCount() == CROWD + 3);
            Thread signaller = Thread.ofPlatform().start(release::signal);
            assertTrue(done.await(LONG));
            threads.forEach(TaskErrors::join);
            TaskErrors.join(signaller);
        });
        assertEquals(CROWD + 3, resumed.get());
    }

    /**
     * suspendCrowd(scheduler, wait, onStart, resumed) enqueues CROWD tasks that each run onStart,
     * then wait, then count themselves in resumed; returns once every one has started (with 0
     * workers, that runs them up to their wait) with the WaitGroup their ends count down.
     */
    private static WaitGroup suspendCrowd(Scheduler scheduler, Runnable wait, Runnable onStart, AtomicInteger resumed) {
        WaitGroup started = new WaitGroup(CROWD);
        WaitGroup done = new WaitGroup(CROWD);
        for (int i = 0; i < CROWD; i++) {
            scheduler.enqueue(new Task(() -> {
                onStart.run();
                started.done();
                wait.run();
                resumed.incrementAndGet();
                done.done();
            }));
        }
        assertTrue(started.await(LONG));
        return done;
    }
}
