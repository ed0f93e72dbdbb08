package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.marl4j.VirtualThreadFixtures.awaitAll;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * On {@link FiberEngine#VIRTUAL_THREADS} a {@link FiberCancellation#cancel()} from another thread
 * also interrupts the fiber's virtual thread, for the blocking JDK calls inside the scope. That
 * interrupt belongs to the scope: once {@link FiberCancellation#close()} returns, neither the code
 * after it nor the fiber's next task sees it, even when the cancel raced the close.
 */
class FiberCancellationInterruptTest {
    private static final int ROUNDS = 2_000;

    @ParameterizedTest(name = "{0} worker threads")
    @ForEachWorkerCount
    @Timeout(60)
    void close_clearsTheInterruptTheCancelDelivered(int workers) {
        AtomicReference<String> afterClose = new AtomicReference<>("never ran");
        VirtualThreadFixtures.withScheduler(FiberEngine.VIRTUAL_THREADS, workers, scheduler -> {
            AtomicReference<FiberCancellation> handle = new AtomicReference<>();
            AtomicBoolean cancelReturned = new AtomicBoolean();
            Event never = new Event(Event.Mode.MANUAL);
            WaitGroup done = new WaitGroup(1);
            scheduler.enqueue(new Task(() -> {
                try (FiberCancellation cancellation = FiberCancellation.open()) {
                    handle.set(cancellation);
                    try {
                        never.await();
                    } catch (FiberCancelledException expected) {
                        // the cancel is under way; its interrupt lands now or soon
                    }
                    while (!cancelReturned.get()) {
                        Thread.onSpinWait(); // not a JDK wait: the pending interrupt would end it
                    }
                } finally {
                    afterClose.set(Thread.currentThread().isInterrupted() ? "interrupted" : "clear");
                    done.done();
                }
            }));
            Thread canceller = TestSchedulers.startThread("canceller", () -> {
                while (handle.get() == null) {
                    Thread.onSpinWait();
                }
                handle.get().cancel();
                cancelReturned.set(true);
            });
            awaitAll(done);
            TaskErrors.join(canceller);
        });
        assertEquals("clear", afterClose.get(), "the cancel's interrupt outlived its scope");
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ForEachWorkerCount
    @Timeout(120)
    void aCancelRacingTheClose_neverInterruptsWhatRunsAfterTheScope(int workers) {
        AtomicInteger interruptedAfter = new AtomicInteger();
        AtomicInteger nextTaskInterrupted = new AtomicInteger();
        VirtualThreadFixtures.withScheduler(FiberEngine.VIRTUAL_THREADS, workers, scheduler -> {
            for (int round = 0; round < ROUNDS; round++) {
                AtomicReference<FiberCancellation> handle = new AtomicReference<>();
                WaitGroup done = new WaitGroup(2);
                scheduler.enqueue(new Task(() -> {
                    try (FiberCancellation cancellation = FiberCancellation.open()) {
                        handle.set(cancellation);
                        Thread.onSpinWait();
                    }
                    if (Thread.currentThread().isInterrupted()) {
                        interruptedAfter.incrementAndGet();
                    }
                    // Its next task: on this worker, usually inline on this same fiber once this one returns.
                    scheduler.enqueue(new Task(() -> {
                        for (int spin = 0; spin < 100; spin++) {
                            Thread.onSpinWait(); // while a late interrupt could still land
                        }
                        if (Thread.currentThread().isInterrupted()) {
                            nextTaskInterrupted.incrementAndGet();
                        }
                        done.done();
                    }));
                    done.done();
                }));
                Thread canceller = TestSchedulers.startThread("canceller", () -> {
                    while (handle.get() == null) {
                        Thread.onSpinWait();
                    }
                    handle.get().cancel(); // before, during or after the close
                });
                awaitAll(done);
                TaskErrors.join(canceller);
            }
        });
        assertEquals(0, interruptedAfter.get(), "rounds whose code after the scope was interrupted, of " + ROUNDS);
        assertEquals(0, nextTaskInterrupted.get(), "rounds whose next task was interrupted, of " + ROUNDS);
    }
}
