package org.marl4j.futures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.marl4j.Scheduler;
import org.marl4j.TestSchedulers;
import org.marl4j.WorkerHold;

/**
 * A future handed back by shutdownNow() and run by its caller on a plain thread behaves as a
 * FutureTask there: cancel(true) interrupts the thread running it, and that interrupt stays inside
 * run(): the status it set is cleared before run() returns, and a cancel after run() interrupts
 * nothing.
 */
class MarlFutureRunnerInterruptTest {
    private static final long PATIENCE_S = TestSchedulers.PATIENCE.toSeconds();

    /** Returns a future of body that shutdownNow() took back, unstarted, from a held single worker. */
    private static Future<?> takenBack(java.util.concurrent.Callable<?> body) throws Exception {
        Scheduler.Config config = TestSchedulers.config(1);
        MarlExecutorService executor = new MarlExecutorService(config);
        WorkerHold hold = new WorkerHold();
        CountDownLatch holding = new CountDownLatch(1);
        executor.execute(() -> {
            holding.countDown();
            hold.hold();
        });
        assertTrue(holding.await(PATIENCE_S, TimeUnit.SECONDS));
        Future<?> future = executor.submit(body);
        List<Runnable> returned = executor.shutdownNow();
        hold.release();
        assertTrue(executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS));
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
        assertEquals(List.of(future), returned);
        return future;
    }

    @Test
    void cancelTrue_interruptsThePlainThreadRunningIt_andTheInterruptDoesNotOutliveRun() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch cancelReturned = new CountDownLatch(1);
        AtomicBoolean bodyInterrupted = new AtomicBoolean();
        Future<?> future = takenBack(() -> {
            started.countDown();
            // Waits past the interrupt, so run() returns after cancel() has: the status must be clear then.
            while (true) {
                try {
                    if (cancelReturned.await(PATIENCE_S, TimeUnit.SECONDS)) {
                        return null;
                    }
                    throw new AssertionError("cancel() never returned");
                } catch (InterruptedException e) {
                    bodyInterrupted.set(true);
                }
            }
        });
        AtomicBoolean interruptedAfterRun = new AtomicBoolean(true);
        Thread runner = TestSchedulers.startThread("runs-a-returned-future", () -> {
            ((Runnable) future).run();
            interruptedAfterRun.set(Thread.currentThread().isInterrupted());
        });
        assertTrue(started.await(PATIENCE_S, TimeUnit.SECONDS));
        assertTrue(future.cancel(true));
        cancelReturned.countDown();
        runner.join(TimeUnit.SECONDS.toMillis(PATIENCE_S));
        assertFalse(runner.isAlive(), "run() did not return");
        assertTrue(bodyInterrupted.get(), "cancel(true) did not interrupt the thread running the future");
        assertFalse(interruptedAfterRun.get(), "the cancellation's interrupt outlived run()");
        assertTrue(future.isCancelled());
    }

    @Test
    void cancelTrue_unblocksABodyInAnInterruptibleWait() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        AtomicBoolean sawInterrupt = new AtomicBoolean();
        Future<?> future = takenBack(() -> {
            started.countDown();
            try {
                never.await();
            } catch (InterruptedException e) {
                sawInterrupt.set(true);
                throw e;
            }
            return null;
        });
        Thread runner = TestSchedulers.startThread("runs-a-returned-future", ((Runnable) future)::run);
        assertTrue(started.await(PATIENCE_S, TimeUnit.SECONDS));
        assertTrue(future.cancel(true));
        runner.join(TimeUnit.SECONDS.toMillis(PATIENCE_S));
        assertFalse(runner.isAlive(), "the body still waits: cancel(true) interrupted nothing");
        assertTrue(sawInterrupt.get());
    }

    @Test
    void cancelFalse_andCancelAfterRun_interruptNothing() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch cancelReturned = new CountDownLatch(1);
        AtomicBoolean bodyInterrupted = new AtomicBoolean();
        Future<?> future = takenBack(() -> {
            started.countDown();
            cancelReturned.await(PATIENCE_S, TimeUnit.SECONDS);
            bodyInterrupted.set(Thread.currentThread().isInterrupted());
            return null;
        });
        Thread runner = TestSchedulers.startThread("runs-a-returned-future", ((Runnable) future)::run);
        assertTrue(started.await(PATIENCE_S, TimeUnit.SECONDS));
        assertTrue(future.cancel(false));
        cancelReturned.countDown();
        runner.join(TimeUnit.SECONDS.toMillis(PATIENCE_S));
        assertFalse(bodyInterrupted.get(), "cancel(false) interrupted the runner");

        Future<?> done = takenBack(() -> 1);
        ((Runnable) done).run();
        assertFalse(done.cancel(true));
        assertFalse(Thread.currentThread().isInterrupted(), "a cancel after run() interrupted its former runner");
    }

    /** Races cancel(true) with the end of run(): the interrupt lands inside run() or not at all. */
    @RepeatedTest(20)
    void cancelTrue_racingTheEndOfRun_neverLeavesTheRunnerInterrupted() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        Future<?> future = takenBack(() -> {
            started.countDown();
            return null;
        });
        AtomicBoolean interruptedAfterRun = new AtomicBoolean(true);
        Thread runner = TestSchedulers.startThread("runs-a-returned-future", () -> {
            ((Runnable) future).run();
            interruptedAfterRun.set(Thread.currentThread().isInterrupted());
        });
        assertTrue(started.await(PATIENCE_S, TimeUnit.SECONDS));
        future.cancel(true);
        runner.join(TimeUnit.SECONDS.toMillis(PATIENCE_S));
        assertFalse(runner.isAlive());
        assertFalse(interruptedAfterRun.get(), "the cancellation's interrupt outlived run()");
    }

    /**
     * Two threads racing to run one future: whichever runs the body is the one cancel(true)
     * interrupts, never the one that lost (which must not overwrite or clear what the winner set).
     */
    @Test
    void cancelTrue_withTwoThreadsRacingToRunIt_interruptsTheOneRunningTheBody() throws Exception {
        for (int i = 0; i < 200; i++) {
            CountDownLatch started = new CountDownLatch(1);
            AtomicBoolean interrupted = new AtomicBoolean();
            MarlFuture<Object> future = new MarlFuture<>(() -> {
                started.countDown();
                try {
                    new CountDownLatch(1).await(PATIENCE_S, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    interrupted.set(true);
                }
                return null;
            }, null);
            CountDownLatch go = new CountDownLatch(1);
            Runnable racer = () -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                future.run();
            };
            Thread a = TestSchedulers.startThread("racer-a", racer);
            Thread b = TestSchedulers.startThread("racer-b", racer);
            go.countDown();
            assertTrue(started.await(PATIENCE_S, TimeUnit.SECONDS));
            assertTrue(future.cancel(true));
            a.join(TimeUnit.SECONDS.toMillis(PATIENCE_S));
            b.join(TimeUnit.SECONDS.toMillis(PATIENCE_S));
            assertTrue(interrupted.get(), "iteration " + i + ": cancel(true) missed the thread running the body");
        }
    }
}
