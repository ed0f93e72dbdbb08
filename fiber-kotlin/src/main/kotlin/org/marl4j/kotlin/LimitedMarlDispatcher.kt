package org.marl4j.kotlin

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Delay
import kotlinx.coroutines.InternalCoroutinesApi
import kotlin.coroutines.CoroutineContext

/**
 * LimitedMarlDispatcher is the view [MarlDispatcher.limitedParallelism] returns: it runs the steps
 * dispatched to it on [root]'s scheduler, at most [parallelism] of them at once, oldest first.
 *
 * Steps wait in the view's own queue; up to [parallelism] workers, each a task of the scheduler,
 * take them from it one after another. A worker is started by the dispatch of a step that finds
 * fewer workers than the limit, and it is dispatched *with that step's context* (its trigger), so
 * the root dispatcher sees what it would see for the step itself: on a scheduler without worker
 * threads, a step resumed from another thread reaches the bound thread waiting in [runSuspending]
 * through the [BoundThreadInbox] in its context, exactly as on the root dispatcher. (kotlinx's own
 * views dispatch their workers with a context of their own, in which no inbox can be found.)
 *
 * Limit: [workers] counts every worker from the moment it is decided until it retires, including
 * one still waiting in an inbox or in an outer view's queue, and a worker retires only when it
 * finds the queue empty under [lock]: so at most [parallelism] steps run at once, and no step is
 * left queued without a worker. A view of a view dispatches its workers to the outer view, so
 * both limits hold.
 *
 * Turns: a worker runs at most [STEPS_PER_TURN] steps, then hands its place to a new worker
 * dispatched behind the scheduler's other tasks. A step that throws ends the turn the same way,
 * and the exception then leaves the task, so the scheduler reports it as it reports any task's.
 *
 * Refusal: when the root refuses a worker (the scheduler is closed, or it has no worker threads
 * and the dispatching thread is neither bound to it nor has an open inbox to hand it to), the
 * refusal reaches [Worker.refused] on an IO thread: the trigger step, if still queued, is refused
 * as the root refuses a step (its job is cancelled and it unwinds on an IO thread), and the
 * worker's place goes to a new worker for what remains, started for the next step's context.
 *
 * `delay` and `withTimeout` use [root]'s timers; the resumption after a `delay` is dispatched
 * through this view, so it counts against the limit.
 *
 * One view shared by several threads bound to a zero-worker scheduler: a worker runs on the bound
 * thread it was handed to, steps of every thread's coroutines included, and holds its place until
 * that thread next waits in marl4j (or unbinds); so, as with any work queued on a bound thread,
 * the others' steps through the view wait for that thread.
 *
 * @property root the dispatcher whose scheduler runs the steps and whose timers this view uses.
 * @property outer the view this one is a view of, or null if it is a view of [root] itself.
 * @property parallelism how many steps may run at once; at least 1.
 * @property name the name given to [MarlDispatcher.limitedParallelism], shown by [toString].
 */
@OptIn(InternalCoroutinesApi::class)
internal class LimitedMarlDispatcher(
    private val root: MarlDispatcher,
    private val outer: LimitedMarlDispatcher?,
    private val parallelism: Int,
    private val name: String?,
) : CoroutineDispatcher(), Delay by root {

    private val lock = Any()

    /** The steps dispatched and not yet taken by a worker, oldest first. Guarded by [lock]. */
    private val steps = ArrayDeque<Step>()

    /** The workers decided on and not yet retired, at most [parallelism]. Guarded by [lock]. */
    private var workers = 0

    /**
     * Queues [block] and, if fewer than [parallelism] workers are running, starts one for it.
     *
     * @param context the context of the coroutine being resumed.
     * @param block the coroutine's next step.
     */
    override fun dispatch(context: CoroutineContext, block: Runnable) {
        val step = Step(context, block)
        val start = synchronized(lock) {
            steps.addLast(step)
            takePlace()
        }
        if (start) {
            startWorker(step)
        }
    }

    /**
     * Returns a view of this view, limited to [parallelism] as well as by this view's limit; this
     * view itself if that adds no limit and no name.
     *
     * @param parallelism how many steps the new view may run at once; at least 1.
     * @param name a name for the new view, shown by its `toString`, or null.
     * @return the view.
     */
    override fun limitedParallelism(parallelism: Int, name: String?): CoroutineDispatcher {
        require(parallelism >= 1) { "parallelism must be at least 1, got $parallelism" }
        if (parallelism >= this.parallelism && name == null) {
            return this
        }
        return LimitedMarlDispatcher(root, this, minOf(parallelism, this.parallelism), name)
    }

    /** Returns [name], or a description naming [root] (or [outer]) and the limit. */
    override fun toString(): String = name ?: "${outer ?: root}.limitedParallelism($parallelism)"

    /** Counts one more worker if the limit allows it; returns whether it did. Called with [lock] held. */
    private fun takePlace(): Boolean {
        if (workers == parallelism) {
            return false
        }
        workers++
        return true
    }

    /**
     * Returns the oldest step, for a worker that keeps its place to start for; retires the worker
     * and returns null if there is none. Called with [lock] held.
     */
    private fun nextTriggerOrRetire(): Step? {
        val next = steps.firstOrNull()
        if (next == null) {
            workers--
        }
        return next
    }

    /** Dispatches a new worker, already counted in [workers], with [trigger]'s context. */
    private fun startWorker(trigger: Step) {
        val worker = Worker(trigger)
        if (outer != null) {
            outer.dispatch(trigger.context, worker)
        } else {
            root.dispatch(trigger.context, worker) // a refusal comes back to worker.refused
        }
    }

    /**
     * Worker runs queued steps of the view, one after another, as one task of the scheduler (or
     * one step of an outer view).
     *
     * @property trigger the step whose dispatch started this worker; it may meanwhile have been
     *     taken by another worker. Only a refusal of this worker reads it.
     */
    inner class Worker(private val trigger: Step) : Runnable {

        /** Runs queued steps until the queue is empty or the turn is over. */
        override fun run() {
            repeat(STEPS_PER_TURN) {
                // Taking the last step and retiring happen under one lock with dispatch's check, so a
                // step queued meanwhile either is taken here or finds a free place and starts a worker.
                val step = synchronized(lock) { steps.removeFirstOrNull() ?: null.also { workers-- } } ?: return
                try {
                    step.block.run()
                } catch (thrown: Throwable) {
                    endTurn()
                    throw thrown
                }
            }
            endTurn()
        }

        /** Hands this worker's place to a new worker if steps remain, else retires it. */
        private fun endTurn() {
            val next = synchronized(lock) { nextTriggerOrRetire() } ?: return
            startWorker(next)
        }

        /**
         * refused(refusal) is how the root reports that it would not run this worker; called on an
         * IO thread. Refuses [trigger] if no worker took it meanwhile, then hands this worker's place
         * to a new worker for the steps that remain, or retires it.
         *
         * @param refusal the cancellation the root built for the refusal, naming the thread it refused.
         */
        fun refused(refusal: CancellationException) {
            val (refusedStep, next) = synchronized(lock) {
                val stillQueued = steps.remove(trigger)
                (if (stillQueued) trigger else null) to nextTriggerOrRetire()
            }
            // Outside the lock: refusing a step cancels its job, whose handlers may dispatch to this view.
            refusedStep?.let { root.refuse(it.context, it.block, refusal) }
            next?.let { startWorker(it) }
        }
    }

    /** A dispatched step waiting in the view's queue. */
    internal class Step(val context: CoroutineContext, val block: Runnable)

    private companion object {
        /**
         * How many steps a worker runs before it lets the scheduler's other tasks go first: a busy
         * view must not hold a marl worker indefinitely. Not tuned by a benchmark; any small number
         * bounds the wait of the other tasks.
         */
        const val STEPS_PER_TURN = 16
    }
}
