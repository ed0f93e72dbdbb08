package org.marl4j.futures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.marl4j.Event;
import org.marl4j.FiberCancelledException;
import org.marl4j.FiberEngine;

/**
 * shutdownNow() racing execute() from another thread: every task execute() accepted is either
 * returned by shutdownNow() or has its waits cancelled, so the executor terminates even though every
 * task waits on an event nobody signals. A task accepted just before the shutdown whose submission
 * was registered only after shutdownNow() had looked would otherwise wait for ever, uncancelled.
 * On VIRTUAL_THREADS the same holds for tasks blocked in a JDK call: each one shutdownNow() did not
 * return is interrupted, the one accepted while it ran included.
 */
class MarlExecutorServiceShutdownNowRaceTest {
    private static final int MAX_ROUNDS = 300;
    private static final long ROUNDS_NANOS = TimeUnit.MILLISECONDS.toNanos(1500);

    @ParameterizedTest(name = "workers={0}, owned={1}")
    @MethodSource("org.marl4j.futures.ExecutorFixture#kindsWithWorkerThreads")
    void everyAcceptedTask_isReturnedOrHasItsWaitCancelled_soTheExecutorTerminates(int workers, boolean owned)
            throws Exception {
        Event never = new Event(Event.Mode.MANUAL);
        raceShutdownNowWithExecute(workers, owned, false, "had their wait cancelled", ended -> () -> {
            try {
                never.await();
            } catch (FiberCancelledException expected) {
                ended.incrementAndGet();
            }
        });
    }

    @ParameterizedTest(name = "workers={0}, owned={1}")
    @MethodSource("org.marl4j.futures.ExecutorFixture#kindsWithWorkerThreads")
    void onVirtualThreads_everyAcceptedTaskBlockedInASleep_isReturnedOrInterrupted_soTheExecutorTerminates(int workers,
            boolean owned) throws Exception {
        raceShutdownNowWithExecute(workers, owned, true, "were interrupted", ended -> () -> {
            try {
                Thread.sleep(TimeUnit.DAYS.toMillis(1));
            } catch (InterruptedException expected) {
                ended.incrementAndGet();
            }
        });
    }

    /**
     * Rounds of shutdownNow() against a thread that executes tasks until refused; each task blocks
     * for ever unless shutdownNow() ends its block, when it counts itself in {@code ended}. Every
     * round must terminate, with each accepted task either returned or ended.
     */
    private static void raceShutdownNowWithExecute(int workers, boolean owned, boolean virtualThreadsOnly, String endedHow,
            Function<AtomicInteger, Runnable> blockedTask) throws Exception {
        long start = System.nanoTime();
        for (int round = 0; round < MAX_ROUNDS && System.nanoTime() - start < ROUNDS_NANOS; round++) {
            try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
                Assumptions.assumeTrue(!virtualThreadsOnly || f.scheduler.fiberEngine() == FiberEngine.VIRTUAL_THREADS,
                        "on CONTINUATIONS a JDK call holds the worker thread, which no cancellation interrupts");
                AtomicInteger accepted = new AtomicInteger();
                AtomicInteger ended = new AtomicInteger();
                Thread submitter = Thread.ofPlatform().start(() -> {
                    try {
                        while (true) {
                            f.executor.execute(blockedTask.apply(ended));
                            accepted.incrementAndGet();
                        }
                    } catch (RejectedExecutionException shutDown) {
                        // the end of the round
                    }
                });
                int before = ThreadLocalRandom.current().nextInt(64);
                while (accepted.get() < before && submitter.isAlive()) {
                    Thread.onSpinWait();
                }
                List<Runnable> returned = f.executor.shutdownNow();
                submitter.join();
                int r = round;
                assertTrue(f.executor.awaitTermination(10, TimeUnit.SECONDS), () -> "round " + r + ": of "
                        + accepted.get() + " accepted tasks " + returned.size() + " were returned and " + ended.get()
                        + " " + endedHow + "; the rest still block, so the executor never terminated");
                assertEquals(accepted.get(), returned.size() + ended.get(), "every accepted task accounted for");
            }
        }
    }
}
