package org.marl4j.futures;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.marl4j.Fiber;
import org.marl4j.FiberCallback;

/**
 * The untimed wait of a fiber on a stage ({@link Futures#await(CompletionStage)}, and
 * {@link FiberFriendlyFuture}'s {@code join()} and {@code get()}), made so that waits ending without
 * the stage's completion leave a constant trace on the stage however many of them there are. Such a
 * wait is one whose fiber's waits were cancelled: a {@link org.marl4j.FiberCancellation}, a bounded
 * close of the scheduler, {@code cancel(true)} or {@code shutdownNow()} of a
 * {@link MarlExecutorService} task.
 *
 * <p>Why two ways: a stage cannot take a callback back. The lean way registers the wait's own
 * callback on the stage (for a plain future the fiber's continuation, through
 * {@link FiberCallback#awaitCompletion}, so the wait allocates nothing); a wait that ends early
 * leaves that callback behind, one a wait. So the first wait to end early gives the stage a
 * {@link StageWaiters}, one callback shared by all its waits, and every later wait on that stage
 * goes through it: adds its own callback to the set and takes it back if it too ends early. What
 * stays on the stage is then the shared callback and the lean callbacks of the waits that were on
 * it when the first one ended early: bounded by how many fibers waited on it at once, not by how
 * many waits ended. A stage on which no wait ends early (the common case, and every fan-out) never
 * gets a set: its waits pay one look at the registry, a read of its size while it is empty.
 *
 * <p>A lean callback left behind wakes its fiber when the stage completes: a spurious wake, which
 * ends none of the fiber's waits (see {@link Fiber#wake()}).
 */
final class FiberStageWait {
    private FiberStageWait() {}

    /**
     * awaitCompletion(future) suspends the current fiber until {@code future} is done and returns
     * true; off a fiber it returns false at once, registering nothing (the caller then blocks its
     * thread). Throws as {@link FiberCallback#awaitCompletion} does. {@link Futures#await} has its
     * own copy of these few lines, to keep a frame out of every suspended fiber's stack.
     */
    static boolean awaitCompletion(CompletableFuture<?> future) {
        StageWaiters<?> shared = StageWaiters.existing(future);
        if (shared != null) {
            return awaitShared(shared);
        }
        try {
            return FiberCallback.awaitCompletion(future);
        } catch (RuntimeException | Error endedEarly) {
            endedEarly(future, endedEarly);
            throw endedEarly;
        }
    }

    /**
     * endedEarly(future, endedEarly) is the caller's part when its lean wait on {@code future}
     * ended with {@code endedEarly} thrown: unless the future is done, it gets its waiter set.
     */
    static void endedEarly(CompletableFuture<?> future, Throwable endedEarly) {
        if (!future.isDone()) {
            share(future, endedEarly);
        }
    }

    /**
     * awaitShared(shared) is awaitCompletion through the stage's waiter set: suspends the current
     * fiber until the stage is done and returns true, or returns false at once off a fiber.
     */
    static <T> boolean awaitShared(StageWaiters<T> shared) {
        FiberCallback callback = FiberCallback.forCurrentFiber();
        if (callback == null) {
            return false;
        }
        shared.add(callback);
        try {
            callback.await();
        } catch (RuntimeException | Error endedEarly) {
            shared.remove(callback);
            throw endedEarly;
        }
        return true;
    }

    /**
     * await(stage, fiber) suspends {@code fiber}, the current one, until {@code stage} completes, and
     * returns its outcome as {@link FiberAwait#get()} does: the wait of any stage but a plain future.
     */
    static <T> T await(CompletionStage<T> stage, Fiber fiber) {
        FiberAwait<T> wait = new FiberAwait<>(fiber); // the whole cost of a suspended await
        StageWaiters<T> shared = StageWaiters.existing(stage);
        if (shared != null) {
            shared.add(wait);
        } else {
            stage.whenComplete(wait);
        }
        try {
            fiber.await(wait);
        } catch (RuntimeException | Error endedEarly) {
            if (shared != null) {
                shared.remove(wait);
            } else if (!wait.getAsBoolean()) {
                share(stage, endedEarly);
            }
            throw endedEarly;
        }
        return wait.get();
    }

    /**
     * share(stage, endedEarly) gives stage its waiter set, for later waits to go through, after a
     * wait on it ended early, lean; a failure to (the stage's whenComplete threw) is added to
     * endedEarly, which the caller throws.
     */
    private static void share(CompletionStage<?> stage, Throwable endedEarly) {
        try {
            StageWaiters.of(stage);
        } catch (RuntimeException | Error failed) {
            endedEarly.addSuppressed(failed);
        }
    }
}
