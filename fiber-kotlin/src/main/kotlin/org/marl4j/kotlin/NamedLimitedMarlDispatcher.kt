package org.marl4j.kotlin

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Delay
import kotlinx.coroutines.InternalCoroutinesApi
import org.marl4j.Scheduler
import kotlin.coroutines.CoroutineContext

/**
 * NamedLimitedMarlDispatcher is another name for a [LimitedMarlDispatcher]: what the view's
 * `limitedParallelism(n, name)` returns when `n` adds no limit to the view's own (kotlinx's views
 * return such an alias too). Every step dispatched to it is dispatched to [view], so the two share
 * one limit and one queue of waiting steps; only [toString] differs.
 *
 * ```kotlin
 * val view = dispatcher.limitedParallelism(2)
 * val db = view.limitedParallelism(4, "db")   // still at most 2 at once, with the steps of view
 * ```
 *
 * @property view the view this is another name for, which runs and limits every step.
 * @property name the name given to `limitedParallelism`, shown by [toString].
 */
@OptIn(InternalCoroutinesApi::class)
internal class NamedLimitedMarlDispatcher(
    private val view: LimitedMarlDispatcher,
    private val name: String,
) : CoroutineDispatcher(), Delay by view {

    /** The scheduler that runs the steps: [view]'s. */
    val scheduler: Scheduler get() = view.scheduler

    /**
     * Dispatches [block] through [view], as a step of the view's own.
     *
     * @param context the context of the coroutine being resumed.
     * @param block the coroutine's next step.
     */
    override fun dispatch(context: CoroutineContext, block: Runnable) {
        view.dispatch(context, block)
    }

    /**
     * Returns what [view] answers, since every step here is a step of the view.
     *
     * @param context the context of the coroutine being resumed.
     * @return whether a step must be dispatched.
     */
    override fun isDispatchNeeded(context: CoroutineContext): Boolean = view.isDispatchNeeded(context)

    /**
     * Returns what [view]'s `limitedParallelism` returns: the view itself (or another alias of it) if
     * [parallelism] adds no limit to the view's, otherwise a view of the view.
     *
     * @param parallelism how many steps the new view may run at once; at least 1.
     * @param name a name for the new view, shown by its `toString`, or null.
     * @return the view.
     */
    override fun limitedParallelism(parallelism: Int, name: String?): CoroutineDispatcher =
        view.limitedParallelism(parallelism, name)

    /** Returns [name]. */
    override fun toString(): String = name
}
