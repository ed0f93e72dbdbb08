package org.marl4j.concurrency;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.marl4j.Fiber;
import org.marl4j.FiberCancelledException;
import org.marl4j.Scheduler;
import org.marl4j.Task;

/**
 * ParkedFiber is the waiting half the lock-free park tests share: a task on a worker thread whose
 * fiber goes into an untimed wait that parks it without the worker's lock (an {@code Event}'s
 * {@code await()} or {@code FiberCallback.awaitCompletion}, on a fiber that is not a thread's main
 * fiber: it records its wait on the worker and yields, and the worker's trampoline decides under
 * the lock whether it stays suspended), and a bounded look at how that wait ended.
 *
 * <p>An untimed wait whose wake-up was lost never ends by itself. So once {@link Fibers#LOST} has
 * passed, {@link #endedPromptly} calls the wake-up lost and wakes the fiber itself ({@code
 * Fiber.wake()}, after which the lost wait finds its condition true, or its cancellation, and
 * ends): the test reports the loss as an outcome instead of hanging, and the worker (or a bounded
 * close waiting for it) goes on.
 */
final class ParkedFiber {
    /** The waiting fiber, published just before it starts its wait. */
    private volatile Fiber fiber;
    /** Completed once the wait has ended: true if it ended by a FiberCancelledException. */
    private final CompletableFuture<Boolean> ended = new CompletableFuture<>();

    /** start(scheduler, wait) runs {@code wait} on a fiber of one of scheduler's worker threads. */
    void start(Scheduler scheduler, Runnable wait) {
        scheduler.enqueue(new Task(() -> {
            fiber = Fiber.current();
            try {
                wait.run();
                ended.complete(false);
            } catch (FiberCancelledException cancelled) {
                ended.complete(true);
            } catch (Throwable t) {
                ended.completeExceptionally(t);
            } finally {
                // A FiberCancellation interrupts a virtual-thread fiber; the next task on it must not see that.
                Thread.interrupted();
            }
        }));
    }

    /**
     * awaitStarted() returns the fiber once it is about to wait: the other actor races that wait
     * from here on. Gives up (throws) if the task never started.
     */
    Fiber awaitStarted() {
        long deadline = System.nanoTime() + 3 * Fibers.LOST.toNanos();
        Fiber f;
        while ((f = fiber) == null) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the waiting task did not start");
            }
            Thread.onSpinWait();
        }
        return f;
    }

    /**
     * endedPromptly() returns whether the wait ended within {@link Fibers#LOST}; if not, it wakes the
     * fiber so that the wait ends now. Either way the wait has ended when it returns.
     */
    boolean endedPromptly() {
        try {
            ended.get(Fibers.LOST.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException lost) {
            awaitStarted().wake();
            try {
                ended.get(Fibers.LOST.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException | ExecutionException | TimeoutException e) {
                throw new IllegalStateException("the waiting fiber did not end even when woken", e);
            }
            return false;
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException("the waiting fiber failed", e);
        }
    }

    /** endedByCancellation() is whether the wait, which has ended, threw FiberCancelledException. */
    boolean endedByCancellation() {
        return ended.join();
    }
}
