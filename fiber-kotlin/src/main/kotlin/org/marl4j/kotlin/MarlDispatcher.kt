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
 * exist. Meanwhile its worker thread runs other coroutines' steps, which share the thread's
 * `ThreadLocal`s with it: they see the value a `ThreadContextElement` of the waiting coroutine set,
 * and a fiber-blocking call inside `Dispatchers.Unconfined` code leaves kotlinx's per-thread
 * unconfined loop busy, so other unconfined steps on that thread wait for it to resume.
 *
 * Rejection: once the scheduler is closed, [dispatch] cannot enqueue. The block is then not
 * dropped: the coroutine's job is cancelled with the [RejectedExecutionException] as its cause and
 * the block runs on [Dispatchers.IO], where it observes the cancellation and unwinds, as kotlinx's
 * own executor-backed dispatchers do. A `delay` or `withTimeout` the scheduler refuses cancels the
 * job the same way; a `delay` also cancels its own continuation, so a coroutine with no job (one
 * started by `startCoroutine`) resumes at once with that [CancellationException] instead of never.
 *
 * Zero worker threads: such a scheduler runs its tasks on the threads bound to it, and only those
 * threads (and its own tasks) may enqueue them. A coroutine that [runSuspending] started on a bound
 * thread (with its children and `withContext` blocks) may still be resumed from any other thread
 * (a `withContext(Dispatchers.IO)` returning, a `Deferred` completed elsewhere): the step is handed
 * to the waiting bound thread, which runs it, for as long as that call waits; through a
 * [limitedParallelism] view too. So is a `delay` or `withTimeout` such a coroutine starts while it
 * runs on another thread (started there with `CoroutineStart.UNDISPATCHED`): the bound thread sets
 * its timer. Otherwise a dispatch from a thread not bound to the scheduler is
 * refused as above, with the scheduler's [IllegalStateException] as the cause. On the bound thread
 * itself, enter coroutines with [runSuspending], never `runBlocking(dispatcher)`: `runBlocking`
 * parks the thread outside marl4j, so the step it dispatched to that thread never runs, and it
 * waits for ever.
 *
 * Views: [limitedParallelism] returns a view of this dispatcher's own (not kotlinx's generic one):
 * at most that many of its steps run at once, on this scheduler's fibers, `delay` and
 * `withTimeout` use this dispatcher's timers, and a view dispatches each step here at once, from
 * the thread that resumes it and with its coroutine's context, so what holds above for a step
 * holds for a step through a view: handed to the waiting bound thread, or refused (its coroutine
 * cancelled, its step unwinding on [Dispatchers.IO]) just as on this dispatcher. A step that finds
 * every place taken waits; a step that ends runs the waiting ones in its place, oldest first, up to
 * 16 in one task (then it hands the place on as a new task, so other tasks get a turn), so a busy
 * view costs about one scheduler task per step, as this dispatcher does.
 *
 * A cancelled `delay` cancels its delayed task, so it neither runs nor holds up
 * [Scheduler.close]. A `delay` or `withTimeout` still pending when [Scheduler.close] with a timeout
 * gives up cancels its coroutine's job (the close drops its timer, which would otherwise never fire),
 * so the coroutine unwinds on [Dispatchers.IO], as a refused step does, instead of waiting for ever.
 *
 * @property scheduler the scheduler whose workers run this dispatcher's coroutines.
 */
@OptIn(InternalCoroutinesApi::class)
public class MarlDispatcher internal constructor(public val scheduler: Scheduler) : CoroutineDispatcher(), Delay {

    /** Whether only bound threads may enqueue: then a [runSuspending] call's inbox may take a dispatch. */
    private val zeroWorkers = scheduler.config().workerThreadCount == 0

    /**
     * The inbox of the [runSuspending] call that [context]'s coroutine belongs to, if that call
     * waits on a bound thread of this scheduler other than the one running the caller (only a
     * scheduler with no worker threads has such calls): its steps run there, not here. Null
     * otherwise. "Running the caller" is the caller's worker thread, not its current thread: on
     * VIRTUAL_THREADS another fiber of the bound thread is a virtual thread of its own, yet it
     * may enqueue there.
     */
    private fun foreignInbox(context: CoroutineContext): BoundThreadInbox? {
        if (!zeroWorkers) {
            return null
        }
        val inbox = context[BoundThreadInbox] ?: return null
        return if (inbox.scheduler === scheduler && inbox.owner !== BoundThreadInbox.currentWorkerThread()) inbox else null
    }

    /**
     * Whether a step of a coroutine with [context] may run on the calling thread, which runs tasks
     * of this scheduler: unless [dispatch] would send it to another bound thread ([foreignInbox]).
     */
    internal fun runsHere(context: CoroutineContext): Boolean = foreignInbox(context) == null

    /**
     * Enqueues [block] as a task of [scheduler]. If the scheduler refuses it (it is closed, or it has
     * no worker threads and the calling thread is not bound to it), cancels the job of [context]
     * with the refusal as the cause and runs [block] on [Dispatchers.IO] so it observes that.
     *
     * @param context the context of the coroutine being resumed.
     * @param block the coroutine's next step.
     */
    override fun dispatch(context: CoroutineContext, block: Runnable) {
        if (foreignInbox(context)?.offer(context, block) == true) {
            return // the bound thread waiting in runSuspending enqueues it
        }
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
     * scheduler's deadline heap. Cancelling the continuation cancels the delayed task. If the
     * scheduler refuses the delayed task, or a bounded [Scheduler.close] drops it, cancels the
     * coroutine's job and the continuation, which then resumes at once with that cancellation.
     *
     * @param timeMillis how long to wait, in milliseconds.
     * @param continuation the suspended `delay` call to resume.
     */
    @OptIn(ExperimentalCoroutinesApi::class)
    override fun scheduleResumeAfterDelay(timeMillis: Long, continuation: CancellableContinuation<Unit>) {
        val inbox = foreignInbox(continuation.context)
        if (inbox != null && inbox.offer(continuation.context, Runnable { scheduleResumeAfterDelay(timeMillis, continuation) })) {
            return // armed by the bound thread waiting in runSuspending, the only one that may enqueue
        }
        // Resume undispatched: the delayed task already runs on a fiber of this scheduler, so a
        // second dispatch would only cost another trip through a queue.
        val delayed = schedule(timeMillis, { with(continuation) { resumeUndispatched(Unit) } }) { refusal ->
            continuation.context.cancel(refusal)
            // Cancelling the job cancels this continuation with it, but a coroutine with no job
            // (started by startCoroutine) would never resume: cancel the continuation itself too.
            continuation.cancel(refusal)
        } ?: return
        continuation.invokeOnCancellation { delayed.cancel() }
        // A bounded close that gives up drops the task, which would leave the coroutine suspended
        // for ever: end its delay the way a refusal does, as the close ends its fibers' waits.
        delayed.onDrop {
            val dropped = dropped(timeMillis)
            continuation.context.cancel(dropped)
            continuation.cancel(dropped)
        }
    }

    /**
     * Runs [block] after [timeMillis] milliseconds, from a delayed task in the scheduler's deadline
     * heap: the timer `withTimeout` uses. Disposing the returned handle cancels the delayed task.
     * If the scheduler refuses the delayed task, or a bounded [Scheduler.close] drops it, cancels
     * the job of [context] instead.
     *
     * @param timeMillis how long to wait, in milliseconds.
     * @param block what to run when the time is up.
     * @param context the context of the coroutine that asked for the timeout.
     * @return a handle whose `dispose()` cancels the timeout.
     */
    override fun invokeOnTimeout(timeMillis: Long, block: Runnable, context: CoroutineContext): DisposableHandle {
        val inbox = foreignInbox(context)
        if (inbox != null) {
            val handed = HandedTimeout()
            if (inbox.offer(context, Runnable { handed.arm { invokeOnTimeout(timeMillis, block, context) } })) {
                return handed // armed by the bound thread waiting in runSuspending, as a delay is
            }
        }
        // withTimeout always has a job of its own in the context, so cancelling it is enough.
        val delayed = schedule(timeMillis, block) { refusal -> context.cancel(refusal) } ?: return NoTimeout
        // Dropped by a bounded close, the timeout would never fire, and a body waiting for something
        // that never comes would wait for ever: cancel it instead, as a refused timeout is.
        delayed.onDrop { context.cancel(dropped(timeMillis)) }
        return DisposableHandle { delayed.cancel() }
    }

    private fun dropped(timeMillis: Long): CancellationException = CancellationException(
        "$this: Scheduler.close(timeout) gave up and dropped the pending timer of a delay or timeout of " +
            "$timeMillis ms, so the coroutine is cancelled instead of waiting for ever; close() without a " +
            "timeout waits for such timers, and cancelling the coroutines before closing ends them sooner",
    )

    /** Enqueues [action] after [timeMillis]; if the scheduler refuses, passes [refused] the refusal and returns null. */
    private fun schedule(timeMillis: Long, action: Runnable, refused: (CancellationException) -> Unit): DelayedTask? {
        val cause: Exception = try {
            return scheduler.enqueue(Task(action), Duration.ofMillis(timeMillis.coerceAtLeast(0)))
        } catch (rejected: RejectedExecutionException) {
            rejected
        } catch (notBound: IllegalStateException) {
            notBound
        }
        refused(refusal(cause))
        return null
    }

    /**
     * Returns a view of this dispatcher that runs at most [parallelism] of its coroutines' steps at
     * once, on this dispatcher's scheduler and with its timers. Unlike kotlinx's generic views, it
     * dispatches each step here at once, from the thread that resumes it and with its coroutine's
     * context, so each step is accepted or refused as on this dispatcher: on a scheduler with no
     * worker threads a step resumed from another thread still reaches the bound thread waiting in
     * [runSuspending], and after [Scheduler.close] a refused step's coroutine is cancelled.
     *
     * Steps start in the order they were dispatched, so a view of 1 is a serial queue, as kotlinx's
     * views are. One difference from them follows from the per-step dispatch: a refused step
     * unwinds on `Dispatchers.IO` at once, outside the view's limit.
     *
     * @param parallelism how many steps may run at once; at least 1.
     * @param name a name for the view, shown by its `toString`, or null.
     * @return the view.
     * @throws IllegalArgumentException if [parallelism] is less than 1.
     */
    override fun limitedParallelism(parallelism: Int, name: String?): CoroutineDispatcher {
        require(parallelism >= 1) { "parallelism must be at least 1, got $parallelism" }
        return LimitedMarlDispatcher(this, null, parallelism, name)
    }

    private fun runRefused(context: CoroutineContext, block: Runnable, cause: Exception) {
        // The refusal is built here, on the refused thread, whose name its message gives.
        refuse(context, block, refusal(cause))
    }

    /**
     * Refuses [block] for good: cancels the job of [context] with [refusal] and runs [block] on
     * [Dispatchers.IO], where it observes that. A step that came through a `limitedParallelism`
     * view runs there unwrapped, and gives back the view's place if it had been handed one.
     *
     * @param context the context [block] was dispatched with.
     * @param block the step that cannot run on the scheduler.
     * @param refusal the cancellation to cancel its job with.
     */
    internal fun refuse(context: CoroutineContext, block: Runnable, refusal: CancellationException) {
        context.cancel(refusal)
        // Dispatchers.IO is the fallback kotlinx itself uses for a rejected executor dispatch: its
        // threads exist anyway, and unlike an unconfined call it cannot recurse into this dispatch.
        Dispatchers.IO.dispatch(context, LimitedMarlDispatcher.unwrapRefused(block))
    }

    private fun refusal(cause: Exception): CancellationException {
        // The scheduler's own message for a thread not bound to it advises bind(): right for code
        // that enqueues, wrong for a coroutine resumed by a thread it does not own (an IO thread).
        val why = if (cause is IllegalStateException && zeroWorkers) {
            "thread ${Thread.currentThread().name} is not bound to $scheduler, which has no worker threads: " +
                "its coroutines run only on its bound threads, and only those may dispatch to them (another " +
                "thread may resume a coroutine only while the runSuspending call that started it on a bound " +
                "thread is waiting for it); give the scheduler worker threads to resume its coroutines from " +
                "any thread"
        } else {
            cause.message
        }
        return CancellationException("$this refused a task: $why", cause)
    }

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

    /**
     * HandedTimeout is the handle of a timeout that the bound thread waiting in [runSuspending] sets
     * later, because the thread asking for it may not enqueue (a coroutine of that call running
     * here undispatched, started with `CoroutineStart.UNDISPATCHED`): disposed before it is set,
     * it is never set.
     */
    private class HandedTimeout : DisposableHandle {
        private val lock = Any()

        /** Whether [dispose] was called. Guarded by [lock]. */
        private var disposed = false

        /** The timeout once set, until disposed. Guarded by [lock]. */
        private var armed: DisposableHandle? = null

        /** Sets the timeout with [set], on the bound thread, unless it was disposed meanwhile. */
        fun arm(set: () -> DisposableHandle) {
            if (synchronized(lock) { disposed }) {
                return
            }
            val handle = set()
            // Disposed while it was being set: the dispose found nothing to dispose, so do it here.
            val late = synchronized(lock) {
                if (!disposed) {
                    armed = handle
                }
                disposed
            }
            if (late) {
                handle.dispose()
            }
        }

        override fun dispose() {
            val handle = synchronized(lock) {
                disposed = true
                armed.also { armed = null }
            }
            handle?.dispose()
        }
    }

    /** The handle of a timeout that was never set because the scheduler refused it. */
    private object NoTimeout : DisposableHandle {
        override fun dispose() {}
    }
}
