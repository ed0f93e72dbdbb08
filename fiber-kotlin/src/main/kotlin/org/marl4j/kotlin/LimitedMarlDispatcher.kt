package org.marl4j.kotlin

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Delay
import kotlinx.coroutines.InternalCoroutinesApi
import kotlin.coroutines.CoroutineContext

/**
 * LimitedMarlDispatcher is the view [MarlDispatcher.limitedParallelism] returns: it runs the steps
 * dispatched to it on [root]'s scheduler, at most [parallelism] of them at once.
 *
 * Every step is dispatched to [root] at once, on the thread that dispatches it and with its own
 * context, wrapped in a [Step]: so the root accepts or refuses each step exactly as it would the
 * step itself (on a scheduler without worker threads, a step resumed from another thread reaches
 * the bound thread waiting in [runSuspending] through the [BoundThreadInbox] in its context; a
 * step from a thread the root refuses is refused, its coroutine cancelled, on that thread). The
 * limit is kept where steps run: a [Step] that starts while every place is taken waits in
 * [waiting], holding no thread, and a step that ends hands its place to the oldest waiting one,
 * which it dispatches again from its own thread (a thread of the scheduler, which the root
 * accepts). kotlinx's own views instead queue the steps and dispatch workers with a context of
 * their own, in which no inbox can be found and no job can be cancelled.
 *
 * A view of a view dispatches its steps through the outer view, so both limits hold. `delay` and
 * `withTimeout` use [root]'s timers; the resumption after a `delay` is dispatched through this
 * view, so it counts against the limit.
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

    /** Steps that started while every place was taken, oldest first; none holds a place. Guarded by [lock]. */
    private val waiting = ArrayDeque<Step>()

    /** Places taken: steps running, or handed a place and on their way to run. Guarded by [lock]. */
    private var places = 0

    /**
     * Dispatches [block] to the root (through the outer view, if any) on this thread, wrapped so
     * that it runs only while a place is free. A refusal is the root's, for this step alone.
     *
     * @param context the context of the coroutine being resumed.
     * @param block the coroutine's next step.
     */
    override fun dispatch(context: CoroutineContext, block: Runnable) {
        forward(Step(context, block))
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

    private fun forward(step: Step) {
        if (outer != null) {
            outer.dispatch(step.context, step)
        } else {
            root.dispatch(step.context, step)
        }
    }

    /** Takes a place for [step], or queues it to wait for one; returns whether it may run now. */
    private fun takePlaceOrWait(step: Step): Boolean = synchronized(lock) {
        if (places < parallelism && waiting.isEmpty()) {
            places++
            true
        } else {
            waiting.addLast(step)
            false
        }
    }

    /**
     * Gives back the place of a step that has ended (or was refused): to the oldest waiting step,
     * which is dispatched again from this thread, or to nobody. If the root refuses that dispatch
     * (its refusal gives the place back through [unwrapRefused]) or it throws (a scheduling
     * policy's exception: that step is refused with it), the place goes on to the next waiting
     * step, in this loop rather than by recursion: a policy that refuses every hand-off must not
     * take one stack frame per waiting step.
     */
    internal fun releasePlace() {
        var view: LimitedMarlDispatcher? = this
        var pending: ArrayDeque<LimitedMarlDispatcher>? = null
        while (view != null) {
            val next = view.takeNextOrFree()
            if (next != null) {
                val queue = pending ?: ArrayDeque<LimitedMarlDispatcher>().also { pending = it }
                HANDING_ON.set(queue) // a refusal of this hand-off queues its release here
                try {
                    view.handOn(next, queue)
                } finally {
                    HANDING_ON.remove()
                }
            }
            view = pending?.removeFirstOrNull()
        }
    }

    /** Removes the oldest waiting step, to hand it this place; frees the place if none waits. */
    private fun takeNextOrFree(): Step? = synchronized(lock) {
        val oldest = waiting.removeFirstOrNull()
        if (oldest == null) {
            places--
        }
        oldest
    }

    /** Dispatches [next], which now holds a place; if that throws, refuses it and queues the place on. */
    private fun handOn(next: Step, queue: ArrayDeque<LimitedMarlDispatcher>) {
        next.holdsPlace = true // published to the thread that runs it by the dispatch below
        try {
            forward(next)
        } catch (thrown: Throwable) {
            next.holdsPlace = false
            queue.addLast(this)
            root.refuse(next.context, next.block, refusalOf(thrown))
        }
    }

    /**
     * Step is one dispatched step on its way through the root: when the scheduler runs it, it takes
     * a place (or waits for one), runs the step, and gives the place back.
     *
     * @property context the context the step was dispatched with.
     * @property block the coroutine's step (or an inner view's [Step]).
     */
    internal inner class Step(val context: CoroutineContext, val block: Runnable) : Runnable {
        /** Set when a step that ended handed this one its place; read by the thread that runs it. */
        @Volatile
        var holdsPlace = false

        /** The view this step counts against. */
        val view: LimitedMarlDispatcher get() = this@LimitedMarlDispatcher

        override fun run() {
            if (!holdsPlace && !takePlaceOrWait(this)) {
                return // waits in the view: a step that ends dispatches it again
            }
            try {
                block.run()
            } finally {
                releasePlace()
            }
        }
    }

    internal companion object {
        /** Set while a thread hands a place on in [releasePlace]: the views whose places a refusal gave back meanwhile. */
        private val HANDING_ON = ThreadLocal<ArrayDeque<LimitedMarlDispatcher>>()

        /**
         * Unwraps what the root refuses to the coroutine's own step, giving back the place of each
         * view's [Step] that was handed one: a refused step must not keep a place it will never use.
         */
        fun unwrapRefused(block: Runnable): Runnable {
            var current = block
            while (current is LimitedMarlDispatcher.Step) {
                val step = current
                current = step.block
                if (step.holdsPlace) {
                    step.holdsPlace = false
                    val handing = HANDING_ON.get()
                    if (handing != null) {
                        handing.addLast(step.view) // refused inside a hand-off: that loop gives the place on
                    } else {
                        step.view.releasePlace()
                    }
                }
            }
            return current
        }

        private fun refusalOf(thrown: Throwable): kotlinx.coroutines.CancellationException =
            thrown as? kotlinx.coroutines.CancellationException
                ?: kotlinx.coroutines.CancellationException("the scheduler could not take a step handed a place in " +
                    "a limitedParallelism view: ${thrown.message}", thrown)
    }
}
