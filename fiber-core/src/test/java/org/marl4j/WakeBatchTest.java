package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
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
        TaskErrors.withBoundScheduler(workers, scheduler -> {
            Event release = new Event(Event.Mode.MANUAL);
            WaitGroup started = new WaitGroup(CROWD);
            WaitGroup done = new WaitGroup(CROWD);
            for (int i = 0; i < CROWD; i++) {
                scheduler.enqueue(new Task(() -> {
                    started.done();
                    release.await();
                    resumed.incrementAndGet();
                    done.done();
                }));
            }
            assertTrue(started.await(LONG)); // with 0 workers, this runs the crowd up to its wait
            Thread signaller = Thread.ofPlatform().start(release::signal);
            assertTrue(done.await(LONG));
            TaskErrors.join(signaller);
        });
        assertEquals(CROWD, resumed.get());
    }

    @ForEachWorkerCount
    void aCrowdReleasedByOneOfItsWorkers_allResume(int workers) {
        AtomicInteger resumed = new AtomicInteger();
        TaskErrors.withBoundScheduler(workers, scheduler -> {
            WaitGroup gate = new WaitGroup(1);
            WaitGroup started = new WaitGroup(CROWD);
            WaitGroup done = new WaitGroup(CROWD);
            for (int i = 0; i < CROWD; i++) {
                scheduler.enqueue(new Task(() -> {
                    started.done();
                    gate.await();
                    resumed.incrementAndGet();
                    done.done();
                }));
            }
            assertTrue(started.await(LONG));
            // Released on a fiber: its own worker's waiters are woken at once, the others' in runs.
            scheduler.enqueue(new Task(gate::done));
            assertTrue(done.await(LONG));
        });
        assertEquals(CROWD, resumed.get());
    }

    @ForEachWorkerCount
    void fibersAlsoWokenOneByOne_whileTheirCrowdIsReleased_resumeExactlyOnce(int workers) {
        AtomicInteger resumed = new AtomicInteger();
        TaskErrors.withBoundScheduler(workers, scheduler -> {
            Event release = new Event(Event.Mode.MANUAL);
            ConcurrentLinkedQueue<Fiber> fibers = new ConcurrentLinkedQueue<>();
            WaitGroup started = new WaitGroup(CROWD);
            WaitGroup done = new WaitGroup(CROWD);
            for (int i = 0; i < CROWD; i++) {
                scheduler.enqueue(new Task(() -> {
                    fibers.add(Fiber.current());
                    started.done();
                    release.await(); // a spurious wake finds the event unsignalled and waits again
                    resumed.incrementAndGet();
                    done.done();
                }));
            }
            assertTrue(started.await(LONG));
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
        TaskErrors.withBoundScheduler(workers, scheduler -> {
            Event release = new Event(Event.Mode.MANUAL);
            WaitGroup started = new WaitGroup(CROWD);
            WaitGroup done = new WaitGroup(CROWD);
            for (int i = 0; i < CROWD; i++) {
                scheduler.enqueue(new Task(() -> {
                    started.done();
                    release.await();
                    resumed.incrementAndGet();
                    done.done();
                }));
            }
            assertTrue(started.await(LONG));
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    release.await();
                    resumed.incrementAndGet();
                }));
            }
            org.awaitility.Awaitility.await().atMost(LONG).until(() -> release.waiterCount() == CROWD + 3);
            Thread signaller = Thread.ofPlatform().start(release::signal);
            assertTrue(done.await(LONG));
            threads.forEach(TaskErrors::join);
            TaskErrors.join(signaller);
        });
        assertEquals(CROWD + 3, resumed.get());
    }
}
