package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TaskErrors.join;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Timeout;

/**
 * Randomised mixes of every kind of wait, for each worker count. Each run checks exact final counts,
 * so a lost wake-up shows up as a waiter that never finishes (a failed timed wait, then the test's
 * timeout) and a double wake-up or lost update as a wrong count.
 *
 * <p>Small by default (each method stays within a few seconds on 2 cores); {@code -DstressTest=true}
 * scales the sizes up. The random seed is printed on failure and can be fixed with
 * {@code -DstressSeed=<n>}.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES) // generous: the long configuration; default runs take seconds
class SchedulerStressTest {
    private static final boolean STRESS = TestSchedulers.stress();
    private static final long SEED = Long.getLong("stressSeed", System.nanoTime());
    /** How long the test thread waits for all work before declaring a lost wake-up. */
    private static final Duration FINISH_WITHIN = STRESS ? Duration.ofMinutes(5) : Duration.ofSeconds(45);

    /** What a random-mix run did, summed over its tasks; every field has an exact expected value. */
    private static final class Tally {
        final AtomicInteger finishedTasks = new AtomicInteger();
        final AtomicInteger childrenRun = new AtomicInteger();
        final AtomicInteger childrenExpected = new AtomicInteger();
        final AtomicInteger externalWakesAsked = new AtomicInteger();
        final AtomicInteger externalWakesSeen = new AtomicInteger();
        final AtomicInteger mutexIncrementsExpected = new AtomicInteger();
        final AtomicInteger wronglySignalled = new AtomicInteger();
        final AtomicLong timeouts = new AtomicLong();
        int mutexCounter; // guarded by the run's Mutex

        @Override
        public String toString() {
            return "finished=" + finishedTasks + ", children=" + childrenRun + "/" + childrenExpected
                    + ", externalWakes=" + externalWakesSeen + "/" + externalWakesAsked
                    + ", mutexIncrements=" + mutexCounter + "/" + mutexIncrementsExpected
                    + ", wronglySignalled=" + wronglySignalled + ", timeouts=" + timeouts;
        }
    }

    @ForEachWorkerCount
    void randomMixOfWaits_everyTaskFinishes_andEveryCountIsExact(int workers) {
        int tasks = STRESS ? 2000 : 400;
        int steps = STRESS ? 200 : 40;
        Tally tally = new Tally();
        Mutex mutex = new Mutex();
        LinkedBlockingQueue<Event> wakeRequests = new LinkedBlockingQueue<>();
        AtomicBoolean stopWakers = new AtomicBoolean();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            List<Thread> wakers = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                long wakerSeed = SEED + 1000 + w;
                wakers.add(Thread.ofPlatform().name("stress-waker-" + w)
                        .start(() -> wakeFromPlainThread(wakeRequests, stopWakers, new SplittableRandom(wakerSeed))));
            }
            WaitGroup allDone = new WaitGroup(tasks);
            for (int t = 0; t < tasks; t++) {
                SplittableRandom random = new SplittableRandom(SEED * 31 + t);
                Marl.schedule(() -> {
                    for (int s = 0; s < steps; s++) {
                        randomStep(random, tally, mutex, wakeRequests);
                    }
                    tally.finishedTasks.incrementAndGet();
                    allDone.done();
                });
            }
            boolean finished = allDone.await(FINISH_WITHIN);
            stopWakers.set(true);
            wakers.forEach(TaskErrors::join);
            assertTrue(finished, "lost wake-up? not all tasks finished within " + FINISH_WITHIN + "; seed=" + SEED
                    + ", " + tally);
        });
        String context = "seed=" + SEED + ", " + tally;
        assertEquals(tasks, tally.finishedTasks.get(), context);
        assertEquals(tally.childrenExpected.get(), tally.childrenRun.get(), context);
        assertEquals(tally.externalWakesAsked.get(), tally.externalWakesSeen.get(), context);
        mutex.lock();
        try {
            assertEquals(tally.mutexIncrementsExpected.get(), tally.mutexCounter, context);
        } finally {
            mutex.unlock();
        }
        assertEquals(0, tally.wronglySignalled.get(), context);
    }

    /** One random step of a stress task, run on its fiber. */
    private static void randomStep(SplittableRandom random, Tally tally, Mutex mutex, LinkedBlockingQueue<Event> wakeRequests) {
        switch (random.nextInt(8)) {
            case 0 -> Fiber.yield();
            case 1 -> Fiber.sleep(Duration.ofMillis(1 + random.nextInt(3)));
            case 2 -> { // untimed wait for a plain thread's signal
                Event event = new Event(Event.Mode.AUTO);
                tally.externalWakesAsked.incrementAndGet();
                wakeRequests.add(event);
                event.await();
                tally.externalWakesSeen.incrementAndGet();
            }
            case 3 -> { // short timed waits racing a plain thread's signal
                Event event = new Event(random.nextBoolean() ? Event.Mode.AUTO : Event.Mode.MANUAL);
                tally.externalWakesAsked.incrementAndGet();
                wakeRequests.add(event);
                while (!event.await(Duration.ofMillis(random.nextInt(3)))) {
                    tally.timeouts.incrementAndGet();
                }
                tally.externalWakesSeen.incrementAndGet();
            }
            case 4 -> { // children counted down on a WaitGroup, waited for untimed or in short timed waits
                int children = 1 + random.nextInt(4);
                boolean childrenYield = random.nextBoolean();
                tally.childrenExpected.addAndGet(children);
                WaitGroup wg = new WaitGroup(children);
                for (int c = 0; c < children; c++) {
                    Marl.schedule(() -> {
                        if (childrenYield) {
                            Fiber.yield();
                        }
                        tally.childrenRun.incrementAndGet();
                        wg.done();
                    });
                }
                if (random.nextBoolean()) {
                    wg.await();
                } else {
                    while (!wg.await(Duration.ofMillis(1))) {
                        tally.timeouts.incrementAndGet();
                    }
                }
            }
            case 5 -> { // read-yield-write under the Mutex: a lost update shows in the final count
                mutex.lock();
                try {
                    int value = tally.mutexCounter;
                    Fiber.yield();
                    tally.mutexCounter = value + 1;
                } finally {
                    mutex.unlock();
                }
                tally.mutexIncrementsExpected.incrementAndGet();
            }
            case 6 -> { // a child task signals; untimed or timed wait
                Event event = new Event(Event.Mode.AUTO);
                tally.childrenExpected.incrementAndGet();
                Marl.schedule(() -> {
                    Fiber.yield();
                    tally.childrenRun.incrementAndGet();
                    event.signal();
                });
                if (random.nextBoolean()) {
                    event.await();
                } else {
                    while (!event.await(Duration.ofMillis(1))) {
                        tally.timeouts.incrementAndGet();
                    }
                }
            }
            default -> { // nobody signals: a timed wait must time out
                if (new Event().await(Duration.ofMillis(random.nextInt(2)))) {
                    tally.wronglySignalled.incrementAndGet();
                }
            }
        }
    }

    /** The body of a plain waker thread: signals requested events, now and then after a short spin. */
    private static void wakeFromPlainThread(LinkedBlockingQueue<Event> requests, AtomicBoolean stop, SplittableRandom random) {
        try {
            while (!stop.get()) {
                Event event = requests.poll(5, TimeUnit.MILLISECONDS);
                if (event == null) {
                    continue;
                }
                for (int spins = random.nextInt(3) == 0 ? random.nextInt(2000) : 0; spins > 0; spins--) {
                    Thread.onSpinWait(); // vary the timing of the signal against the waiter's suspend
                }
                event.signal();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Pairs take turns through a ConditionVariable; one side is always a fiber, the other a fiber or a
     * plain thread, and each wait is untimed or a loop of short timed waits. Every pair must complete
     * exactly its number of turns.
     *
     * <p>The user lock is a ReentrantLock here; ping-pong with a Mutex as the user lock is covered by
     * ConditionVariableTest (see its Mutex-waiters-on-the-same-worker test).
     */
    @ForEachWorkerCount
    void conditionVariablePingPong_fibersAndPlainThreads_everyPairCompletesItsTurns(int workers) {
        int pairs = STRESS ? 64 : 8;
        int rounds = STRESS ? 20000 : 2000;
        int[] turns = new int[pairs];
        AtomicInteger plainSides = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            SplittableRandom random = new SplittableRandom(SEED);
            WaitGroup fiberSidesDone = new WaitGroup();
            List<Thread> plainThreads = new ArrayList<>();
            for (int p = 0; p < pairs; p++) {
                int pair = p;
                ReentrantLock lock = new ReentrantLock();
                ConditionVariable cv = new ConditionVariable();
                for (int side = 0; side < 2; side++) {
                    int me = side;
                    boolean timed = random.nextBoolean();
                    Runnable player = () -> {
                        for (int r = 0; r < rounds; r++) {
                            lock.lock();
                            try {
                                if (timed) {
                                    while (!cv.await(lock, Duration.ofMillis(1), () -> turns[pair] % 2 == me)) {
                                        // timed out: wait again
                                    }
                                } else {
                                    cv.await(lock, () -> turns[pair] % 2 == me);
                                }
                                turns[pair]++;
                            } finally {
                                lock.unlock();
                            }
                            cv.signal();
                        }
                    };
                    if (side == 1 && random.nextInt(3) == 0) {
                        plainSides.incrementAndGet();
                        plainThreads.add(Thread.ofPlatform().name("ping-pong-" + pair).start(player));
                    } else {
                        fiberSidesDone.add();
                        Marl.schedule(() -> {
                            player.run();
                            fiberSidesDone.done();
                        });
                    }
                }
            }
            assertTrue(fiberSidesDone.await(FINISH_WITHIN), "lost wake-up? seed=" + SEED);
            plainThreads.forEach(TaskErrors::join);
        });
        for (int p = 0; p < pairs; p++) {
            assertEquals(2 * rounds, turns[p], "pair " + p + ", seed=" + SEED + ", plain sides=" + plainSides);
        }
    }

    /**
     * Rounds of a barrier driven from a plain thread: in each round every fiber waits on that round's
     * Event (MANUAL or AUTO, untimed or timed), the plain thread signals it (once for MANUAL, once per
     * waiter for AUTO), and then waits off-fiber on a WaitGroup for every fiber to arrive.
     */
    @ForEachWorkerCount
    void roundsOfFibersReleasedByAPlainThread_everyFiberPassesEveryRound(int workers) {
        int fibers = STRESS ? 500 : 50;
        int rounds = STRESS ? 200 : 30;
        AtomicInteger passes = new AtomicInteger();
        AtomicInteger plainThreadFailures = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            SplittableRandom random = new SplittableRandom(SEED);
            Event[] gates = new Event[rounds];
            WaitGroup[] arrived = new WaitGroup[rounds];
            for (int r = 0; r < rounds; r++) {
                gates[r] = new Event(random.nextBoolean() ? Event.Mode.MANUAL : Event.Mode.AUTO);
                arrived[r] = new WaitGroup(fibers);
            }
            WaitGroup allDone = new WaitGroup(fibers);
            for (int f = 0; f < fibers; f++) {
                boolean timed = random.nextBoolean();
                Marl.schedule(() -> {
                    for (int r = 0; r < rounds; r++) {
                        if (timed) {
                            while (!gates[r].await(Duration.ofMillis(1))) {
                                // timed out: wait again
                            }
                        } else {
                            gates[r].await();
                        }
                        passes.incrementAndGet();
                        arrived[r].done();
                    }
                    allDone.done();
                });
            }
            Thread driver = Thread.ofPlatform().name("round-driver").start(() -> {
                for (int r = 0; r < rounds; r++) {
                    if (gates[r].mode() == Event.Mode.MANUAL) {
                        gates[r].signal();
                    } else {
                        // An AUTO signal raised twice before a waiter takes it counts once: one per arrival.
                        for (int released = 0; released < fibers; released = fibers - arrived[r].count()) {
                            if (!gates[r].isSignalled()) {
                                gates[r].signal();
                            }
                            Thread.onSpinWait();
                        }
                    }
                    if (!arrived[r].await(FINISH_WITHIN)) {
                        plainThreadFailures.incrementAndGet();
                        return;
                    }
                }
            });
            boolean finished = allDone.await(FINISH_WITHIN);
            join(driver);
            assertTrue(finished, "lost wake-up? seed=" + SEED + ", passes=" + passes);
        });
        assertEquals(0, plainThreadFailures.get(), "seed=" + SEED);
        assertEquals(fibers * rounds, passes.get(), "seed=" + SEED);
    }
}
