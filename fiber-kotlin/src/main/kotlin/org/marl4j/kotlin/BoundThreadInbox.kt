package org.marl4j.kotlin

import org.marl4j.Event
import org.marl4j.Fiber
import org.marl4j.Scheduler
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext

/**
 * BoundThreadInbox carries coroutine steps dispatched from other threads to the one thread that may
 * enqueue them: a thread bound to a scheduler with no worker threads, while it waits in
 * [runSuspending].
 *
 * Such a scheduler runs its tasks only on its bound threads and accepts them only from there, so a
 * coroutine that [runSuspending] started on a bound thread could not be resumed by another thread
 * (a `withContext(Dispatchers.IO)` returning, a `Deferred` completed elsewhere). Instead, the
 * inbox is an element of that call's coroutine context, so its children and `withContext` blocks
 * carry it too, and a [MarlDispatcher] of [scheduler] [offer]s a step dispatched from another
 * thread here and signals [wake]; the waiting fiber on the owner thread wakes, [drainInto] the
 * dispatcher (which, on the owner thread, enqueues onto the thread's own worker) and waits again.
 * A step through a `limitedParallelism` view comes the same way: the view ([LimitedMarlDispatcher])
 * dispatches each step here with its own context, inbox included.
 * Once the call is over, [close] refuses further offers, so a coroutine that outlives the call
 * falls back to the dispatcher's refusal rather than waiting in an inbox nobody drains.
 *
 * @property scheduler the zero-worker scheduler the owner is bound to.
 * @property owner the bound thread whose runSuspending drains this inbox: a worker thread, as
 *     [currentWorkerThread] names it, never a fiber's own virtual thread.
 * @property wake the owner's wake-up: an [Event.Mode.AUTO] event, signalled after each offer (and by
 *     runSuspending when its coroutine completes).
 */
internal class BoundThreadInbox(val scheduler: Scheduler, val owner: Thread, val wake: Event) :
    AbstractCoroutineContextElement(BoundThreadInbox) {

    /** The key of the inbox in a coroutine context. */
    companion object Key : CoroutineContext.Key<BoundThreadInbox> {
        /**
         * The thread whose worker runs the calling code: the fiber's worker thread (or bound
         * thread) on a fiber, else the calling thread. This, not `Thread.currentThread()`, says
         * whether code runs on an inbox's owner: on [org.marl4j.FiberEngine.VIRTUAL_THREADS] each
         * fiber is a virtual thread of its own, so two fibers of the bound thread's worker (the
         * one waiting in runSuspending and the one a coroutine step runs on) have different
         * current threads, though both may enqueue onto that worker.
         */
        fun currentWorkerThread(): Thread = Fiber.current()?.workerThread() ?: Thread.currentThread()
    }

    private val lock = Any()

    /** The steps offered and not yet drained, oldest first. Guarded by [lock]. */
    private val steps = ArrayDeque<Step>()

    /** Whether offers are still taken: false once [close] has begun. Guarded by [lock]. */
    private var open = true

    /**
     * offer(context, block) queues a step dispatched from a thread other than [owner] and wakes the
     * owner, unless the inbox is closed.
     *
     * @param context the context of the coroutine being resumed.
     * @param block the coroutine's next step.
     * @return false if the inbox is closed and the caller must refuse the step itself.
     */
    fun offer(context: CoroutineContext, block: Runnable): Boolean {
        synchronized(lock) {
            if (!open) {
                return false
            }
            steps.addLast(Step(context, block))
        }
        // After the step is queued: the owner, once woken, drains and so cannot miss it.
        wake.signal()
        return true
    }

    /**
     * drainInto(dispatcher) dispatches every queued step through [dispatcher], in the order they
     * were offered. Called only on [owner], where the dispatch enqueues onto the owner's worker.
     *
     * @param dispatcher the runSuspending call's dispatcher.
     */
    fun drainInto(dispatcher: MarlDispatcher) {
        check(currentWorkerThread() === owner) { "an inbox is drained only by its owner, ${owner.name}" }
        while (true) {
            // The dispatch runs outside the lock: it may refuse and start the step elsewhere.
            val step = synchronized(lock) { steps.removeFirstOrNull() } ?: return
            dispatcher.dispatch(step.context, step.block)
        }
    }

    /**
     * close(dispatcher) stops taking offers and hands the steps still queued to [dispatcher], on the
     * owner's worker: they run when the owner next waits in marl4j or unbinds, as any task of its
     * worker does. Called only on [owner], when its runSuspending call ends.
     *
     * @param dispatcher the runSuspending call's dispatcher.
     */
    fun close(dispatcher: MarlDispatcher) {
        synchronized(lock) {
            open = false
        }
        drainInto(dispatcher)
    }

    /** A coroutine step waiting for its owner. */
    private class Step(val context: CoroutineContext, val block: Runnable)
}
