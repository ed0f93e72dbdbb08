package org.marl4j.kotlin

import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Delay
import kotlinx.coroutines.DisposableHandle
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.cancel
import org.marl4j.DelayedTask
import org.marl4j.Scheduler
import org.marl4j.Task
import java.time.Duration
import java.util.concurrent.RejectedExecutionException
import kotlin.coroutines.CoroutineContext

/**
 * Returns a [MarlDispatcher] that runs coroutines as tasks of this [Scheduler], each on a marl4j
 * fiber. The dispatcher borrows the scheduler: closing the scheduler is still its owner's job.
 *
 * ```kotlin
 * val dispatcher = scheduler.asCoroutineDispatcher()
 * withContext(dispatcher) { waitGroup.await() }   // suspends the fiber, never the worker thread
 * ```
 */
public fun Scheduler.asCoroutineDispatcher(): MarlDispatcher = MarlDispatcher(this)

/**
 * MarlDispatcher is a [CoroutineDispatcher] over a marl4j [Scheduler]: every dispatched block is
 * enqueued as a marl [Task], so it runs on a fiber of a worker, and `delay`/`withTimeout` wait in
 * the scheduler's own deadline heap ([Scheduler.enqueue] with a delay), so no timer thread of
 * kotlinx (`DefaultExecutor`) is ever started.
 *
 * Because coroutines run on fibers, fiber-blocking calls made inside them (`WaitGroup.await()`,
 * `Event.await()`, `Futures.await(stage)`, ...) suspend only the fiber: the worker thread goes on
 * running other coroutines and tasks. A coroutine that calls them does hold its fiber, and so its
 * dispatch, until the call returns; prefer the suspending forms ([awaitSuspending]) where they
 * exist.
 *
 * Rejection: once the scheduler is closed, [dispatch] cannot enqueue. The block is then not
 * dropped: the coroutine's job is cancelled with the [RejectedExecutionException] as its cause and
 * the block runs on [Dispatchers.IO], where it observes the cancellation and unwinds, as kotlinx's
 * own executor-backed dispatchers do. A scheduler with zero worker threads runs its tasks on the
 * threads bound to it, so it can only be dispatched to from those threads (or its own tasks);
 * a dispatch from elsewhere is treated the same way, with the scheduler's [IllegalStateException]
 * as the cause.
 *
 * A cancelled `delay` cancels its delayed task, so it neither runs nor holds up
 * [Scheduler.close]. `limitedParallelism` works as on any dispatcher, and its views keep using
 * this dispatcher's timers.
 *
 * @property scheduler the scheduler whose workers run this dispatcher's coroutines.
 */
@OptIn(InternalCoroutinesApi::class)
public class MarlDispatcher internal constructor(public val scheduler: Scheduler) : CoroutineDispatcher(), Delay {

    /**
     * Enqueues [block] as a task of [scheduler]. If the scheduler refuses it (it is closed, or it has
     * no worker threads and the calling thread is not bound to it), cancels the job of [context]
     * with the refusal as the cause and runs [block] on [Dispatchers.IO] so it observes that.
     *
     * @param context the context of the coroutine being resumed.
     * @param block the coroutine's next step.
     */
    override fun dispatch(context: CoroutineContext, block: Runnable) {
        try {
            scheduler.enqueue(Task(block))
        } catch (refused: RejectedExecutionException) {
            runRefused(context, block, refused)
        } catch (refused: IllegalStateException) {
            runRefused(context, block, refused)
        }
    }

    /**
     * Resumes [continuation] after [timeMillis] milliseconds, from a delayed task in the
     * scheduler's deadline heap. Cancelling the continuation cancels the delayed task.
     *
     * @param timeMillis how long to wait, in milliseconds.
     * @param continuation the suspended `delay` call to resume.
     */
    @OptIn(ExperimentalCoroutinesApi::class)
    override fun scheduleResumeAfterDelay(timeMillis: Long, continuation: CancellableContinuation<Unit>) {
        // Resume undispatched: the delayed task already runs on a fiber of this scheduler, so a
        // second dispatch would only cost another trip through a queue.
        val delayed = schedule(timeMillis, continuation.context) {
            with(continuation) { resumeUndispatched(Unit) }
        } ?: return // refused: the job is cancelled, so the continuation resumes with that cancellation
        continuation.invokeOnCancellation { delayed.cancel() }
    }

    /**
     * Runs [block] after [timeMillis] milliseconds, from a delayed task in the scheduler's deadline
     * heap: the timer `withTimeout` uses. Disposing the returned handle cancels the delayed task.
     *
     * @param timeMillis how long to wait, in milliseconds.
     * @param block what to run when the time is up.
     * @param context the context of the coroutine that asked for the timeout.
     * @return a handle whose `dispose()` cancels the timeout.
     */
    override fun invokeOnTimeout(timeMillis: Long, block: Runnable, context: CoroutineContext): DisposableHandle {
        val delayed = schedule(timeMillis, context) { block.run() } ?: return NoTimeout
        return DisposableHandle { delayed.cancel() }
    }

    /** Enqueues [action] after [timeMillis]; on refusal cancels [context]'s job and returns null. */
    private fun schedule(timeMillis: Long, context: CoroutineContext, action: Runnable): DelayedTask? {
        return try {
            scheduler.enqueue(Task(action), Duration.ofMillis(timeMillis.coerceAtLeast(0)))
        } catch (refused: RejectedExecutionException) {
            context.cancel(refusal(refused))
            null
        } catch (refused: IllegalStateException) {
            context.cancel(refusal(refused))
            null
        }
    }

    private fun runRefused(context: CoroutineContext, block: Runnable, cause: Exception) {
        context.cancel(refusal(cause))
        // Dispatchers.IO is the fallback kotlinx itself uses for a rejected executor dispatch: its
        // threads exist anyway, and unlike an unconfined call it cannot recurse into this dispatch.
        Dispatchers.IO.dispatch(context, block)
    }

    private fun refusal(cause: Exception): CancellationException =
        CancellationException("$this refused a task: ${cause.message}", cause)

    /**
     * Two MarlDispatchers are equal when they run on the same scheduler, so `withContext` between
     * them does not dispatch needlessly.
     *
     * @param other the object to compare with.
     * @return whether [other] is a MarlDispatcher over the same [scheduler].
     */
    override fun equals(other: Any?): Boolean = other is MarlDispatcher && other.scheduler === scheduler

    /** Returns the identity hash of [scheduler], consistent with [equals]. */
    override fun hashCode(): Int = System.identityHashCode(scheduler)

    /** Returns a description naming the scheduler. */
    override fun toString(): String = "MarlDispatcher[$scheduler]"

    /** The handle of a timeout that was never set because the scheduler refused it. */
    private object NoTimeout : DisposableHandle {
        override fun dispose() {}
    }
}
