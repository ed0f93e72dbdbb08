package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.marl4j.TestSchedulers.PATIENCE;
import static org.marl4j.VirtualThreadFixtures.awaitAll;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * On {@link FiberEngine#VIRTUAL_THREADS}, a fiber blocked in a JDK call is resumed only by the JDK's
 * own wake. A marl4j wake of it ({@link Fiber#wake()}, which any thread may call at any time, or a
 * {@link FiberCancellation}'s) must not make its worker run the virtual thread's continuation task:
 * the JDK submits that task once per unpark, after changing the thread's state, and a marl4j wake
 * landing between the two would run the thread before the submit, which then arrives for a thread
 * already running, is taken for a fresh wake, and, if the fiber is by then yielding to its worker,
 * is mistaken for that yield (see {@link VirtualFiber}): the yield's own hand-back is then taken for
 * a wake and, on a locked switch, its worker thread blocks on the lock the unmounted fiber holds.
 * That window is nanoseconds wide, so this test checks the rule that closes it: the marl4j wake
 * does not reach the scheduling policy, while the JDK's wake still resumes the fiber.
 */
class VirtualThreadJdkWakeTest {
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1})
    @Timeout(120)
    void virtualThreads_aMarl4jWakeOfAFiberBlockedInTheJdk_leavesItToTheJdksWake(int workers) {
        AtomicInteger awakened = new AtomicInteger();
        AtomicReference<Fiber> blockedFiber = new AtomicReference<>();
        TaskErrors errors = new TaskErrors();
        Scheduler.Config config = VirtualThreadFixtures.config(errors, FiberEngine.VIRTUAL_THREADS, workers)
                .setSchedulingPolicy(() -> new ForwardingPolicy() {
                    @Override
                    public void awakened(Fiber fiber) {
                        if (fiber == blockedFiber.get()) {
                            awakened.incrementAndGet();
                        }
                        super.awakened(fiber);
                    }
                });
        CountDownLatch release = new CountDownLatch(1);
        try (Scheduler scheduler = new Scheduler(config)) {
            if (workers == 0) {
                scheduler.bind();
            }
            try {
                blockThenWake(scheduler, release, awakened, blockedFiber);
            } finally {
                release.countDown(); // before close(): a failed assertion must not leave it waiting for the task
            }
        }
        errors.assertNone();
    }

    private static void blockThenWake(Scheduler scheduler, CountDownLatch release, AtomicInteger awakened,
            AtomicReference<Fiber> blockedFiber) {
        AtomicReference<Thread> blockedThread = new AtomicReference<>();
        WaitGroup done = new WaitGroup(1);
        scheduler.enqueue(new Task(() -> {
            blockedFiber.set(Fiber.current());
            blockedThread.set(Thread.currentThread());
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            done.done();
        }));
        // Blocked in the JDK and suspended by its worker: listed by the scheduler.
        WaitGroup listed = new WaitGroup(1);
        scheduler.enqueue(new Task(listed::done)); // runs once the blocked fiber freed the worker
        awaitAll(listed);
        await().atMost(PATIENCE).until(() -> blockedThread.get() != null
                && blockedThread.get().getState() == Thread.State.WAITING && scheduler.suspendedFibers().size() == 1);

        for (int i = 0; i < 100; i++) {
            blockedFiber.get().wake();
        }
        WaitGroup drained = new WaitGroup(1); // the worker drains its wakes before it takes a task
        scheduler.enqueue(new Task(drained::done));
        awaitAll(drained);
        assertEquals(0, awakened.get(), "a marl4j wake readied a fiber that the JDK had not made runnable");

        release.countDown();
        awaitAll(done);
        assertEquals(1, awakened.get(), "the JDK's wake readied the fiber once");
    }
}
