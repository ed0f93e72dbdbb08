package org.marl4j.kotlin

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Delay
import kotlinx.coroutines.InternalCoroutinesApi
import org.marl4j.Scheduler
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
 * limit and the order are kept where steps run: steps start in the order they were dispatched
 * ([pending]), and a [Step] whose task runs while an older step has not started, or while every
 * place is taken, waits in [pending], holding no thread, until a step that ends (or the older
 * one, when it starts) hands it a place. kotlinx's own views instead queue the steps and dispatch
 * workers with a context of their own, in which no inbox can be found and no job can be cancelled.
 *
 * A step that ends while others wait keeps its place and runs the oldest waiting steps itself, on
 * its own thread, one after another, as kotlinx's workers loop over their queue: each of them was
 * already accepted by the root (it started as a [Step] on a thread of the root's scheduler and
 * found no place), so a contended view costs about one scheduler task per step, not two. After
 * [BATCH] steps in one task, it hands its place to the oldest waiting step by dispatching that
 * again from its own thread (a thread of the scheduler, which the root accepts), so that other
 * work on the scheduler gets a turn. It does the same for a step the root would not run on this
 * thread: on a scheduler without worker threads, one whose coroutine waits in [runSuspending] on
 * another bound thread, where the dispatch sends it. A step that throws ends the batch: its place
 * is handed on the same way and the exception leaves the task, to the scheduler's handler, as it
 * would from a task of the step's own.
 *
 * A view of a view dispatches its steps through the outer view, so both limits hold: an inner
 * step runs inside an outer [Step], and so does every step its batch runs, in the same outer place.
 * `delay` and `withTimeout` use [root]'s timers; the resumption after a `delay` is dispatched
 * through this view, so it counts against the limit.
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

    /** The scheduler that runs this view's steps: [root]'s. */
    val scheduler: Scheduler get() = root.scheduler

    private val lock = Any()

    /**
     * Steps dispatched and not yet started, in dispatch order: the order in which they take places.
     * A step whose task has run and found it could not start yet is [Step.arrived]: it waits here,
     * holding no thread, for a step that ends to hand it a place. A step the root refuses leaves
     * without starting ([forget]). Guarded by [lock].
     */
    private val pending = ArrayDeque<Step>()

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
        val step = Step(context, block)
        synchronized(lock) { pending.addLast(step) }
        try {
            forward(step)
        } catch (thrown: Throwable) {
            forget(step) // never dispatched: it must not hold up the steps behind it
            throw thrown
        }
    }

    /**
     * Returns a view of this view, limited to [parallelism] as well as by this view's limit. If that
     * adds no limit, returns this view itself, or, given a [name], an alias of it that shares its
     * limit and its waiting steps and differs only in its `toString` (as kotlinx's views do).
     *
     * @param parallelism how many steps the new view may run at once; at least 1.
     * @param name a name for the new view, shown by its `toString`, or null.
     * @return the view.
     */
    override fun limitedParallelism(parallelism: Int, name: String?): CoroutineDispatcher {
        require(parallelism >= 1) { "parallelism must be at least 1, got $parallelism" }
        if (parallelism >= this.parallelism) {
            return if (name == null) this else NamedLimitedMarlDispatcher(this, name)
        }
        return LimitedMarlDispatcher(root, this, parallelism, name)
    }

    /** Returns [name], or a description naming [root] (or [outer]) and the limit. */
    override fun toString(): String = name ?: "${outer ?: root}.limitedParallelism($parallelism)"

    /** How many places are taken now; a snapshot, for tests and diagnostics. */
    internal fun placesTaken(): Int = synchronized(lock) { places }

    /** How many steps wait for a place now; a snapshot, for tests and diagnostics. */
    internal fun waitingSteps(): Int = synchronized(lock) { pending.count { it.arrived } }

    private fun forward(step: Step) {
        if (outer != null) {
            outer.dispatch(step.context, step)
        } else {
            root.dispatch(step.context, step)
        }
    }

    /**
     * Takes a place for [step], whose task is running, if it is the oldest step not started and a
     * place is free; otherwise marks it arrived, to wait in [pending]. Returns [WAIT], [RUN], or
     * [RUN_AND_ADMIT] when places are left that arrived steps behind it may take
     * ([admitArrived]).
     */
    private fun startOrWait(step: Step): Int = synchronized(lock) {
        if (pending.firstOrNull() !== step || places >= parallelism) {
            step.arrived = true
            return WAIT
        }
        pending.removeFirst()
        places++
        if (mayAdmit()) RUN_AND_ADMIT else RUN
    }

    /** Takes a free place for the oldest step not started, if it has arrived, and returns it; else null. */
    private fun admitArrived(): Step? = synchronized(lock) {
        if (!mayAdmit()) {
            return null
        }
        places++
        pending.removeFirst()
    }

    /** Whether a place is free and the oldest step not started has arrived to take it. Needs [lock]. */
    private fun mayAdmit(): Boolean = places < parallelism && pending.firstOrNull()?.arrived == true

    /**
     * Removes [step], which the root refused or which could not be dispatched, from [pending]; if
     * that lets the arrived step behind it start, gives it a place, as a step that ends does.
     */
    private fun forget(step: Step) {
        val admit = synchronized(lock) {
            if (!pending.remove(step)) {
                return
            }
            if (mayAdmit()) {
                places++ // handed on below, as the place of a step that ended
                true
            } else {
                false
            }
        }
        if (admit) {
            val handing = HANDING_ON.get()
            if (handing != null) {
                handing.addLast(this) // refused inside a hand-off: that loop gives the place on
            } else {
                releasePlace()
            }
        }
    }

    /**
     * Runs [first], for which this thread holds a place, then, while steps wait, the oldest of
     * them in the same place, up to [BATCH] steps in all; then frees the place, or hands it to the
     * next waiting step through [passOn]. If a step throws, the place is given back the same way
     * ([releasePlace]) before the exception leaves.
     */
    private fun runHoldingPlace(first: Runnable) {
        var current = first
        var ran = 0
        var holding = true
        try {
            while (true) {
                current.run()
                // Under the lock, the place passes to the oldest waiting step or is freed: no step
                // can start waiting between the check and the release and be left behind.
                val next = takeNextOrFree()
                if (next == null) {
                    holding = false // freed
                    return
                }
                if (++ran >= BATCH || !root.runsHere(next.context)) {
                    holding = false // passes to next, dispatched as a task of its own
                    passOn(next)
                    return
                }
                // next started on a thread of the root's scheduler, so it was accepted there, and it
                // holds no place of its own: it runs here, in this one.
                current = next.block
            }
        } finally {
            if (holding) {
                releasePlace() // current threw: its place goes on, and the exception leaves the task
            }
        }
    }

    /**
     * Gives back the place of a step that has ended (or was refused): to the oldest waiting step,
     * which is dispatched again from this thread, or to nobody.
     */
    internal fun releasePlace() {
        val next = takeNextOrFree() ?: return
        passOn(next)
    }

    /**
     * Hands this view's place to [first], which has left [pending], by dispatching it from this
     * thread. If the root refuses that dispatch (its refusal gives the place back through
     * [unwrapRefused]) or it throws (a scheduling policy's exception: that step is refused with
     * it), the place goes on to the next waiting step, in this loop rather than by recursion: a
     * policy that refuses every hand-off must not take one stack frame per waiting step.
     */
    private fun passOn(first: Step) {
        var view = this
        var next: Step? = first
        val released = ArrayDeque<LimitedMarlDispatcher>()
        while (true) {
            if (next != null) {
                HANDING_ON.set(released) // a refusal of this hand-off queues its release here
                try {
                    view.handOn(next, released)
                } finally {
                    HANDING_ON.remove()
                }
            }
            view = released.removeFirstOrNull() ?: return
            next = view.takeNextOrFree()
        }
    }

    /**
     * Removes the oldest step not started, to hand it this place, if it has arrived; frees the place
     * if it has not (its task, when it runs, takes a free place) or if none is pending.
     */
    private fun takeNextOrFree(): Step? = synchronized(lock) {
        val oldest = pending.firstOrNull()
        if (oldest != null && oldest.arrived) {
            pending.removeFirst()
            oldest
        } else {
            places--
            null
        }
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

        /** Set when this step's task ran and it could not start: it waits in [pending]. Guarded by [lock]. */
        var arrived = false

        /** The view this step counts against. */
        val view: LimitedMarlDispatcher get() = this@LimitedMarlDispatcher

        override fun run() {
            if (holdsPlace) {
                runHoldingPlace(block)
                return
            }
            when (startOrWait(this)) {
                WAIT -> return // waits in the view: a step that ends runs it, or dispatches it again
                RUN_AND_ADMIT -> while (true) {
                    passOn(admitArrived() ?: break) // arrived behind this one, with a place free for each
                }
            }
            runHoldingPlace(block)
        }
    }

    internal companion object {
        /**
         * How many steps one scheduler task of a view runs at most, its own and waiting ones, before
         * it hands its place on as a new task: 16, kotlinx's own fairness bound for its views' workers
         * (and its JS dispatchers). It keeps a contended view within 1/16 (about 6%) more scheduler
         * tasks than its steps, while a task queued on the scheduler behind the view waits, on one
         * thread, for at most 16 of its steps per place. Nested views multiply it (an outer step's
         * batch may run inner steps that run batches of their own), as kotlinx's do.
         */
        const val BATCH = 16

        /** What [startOrWait] tells a step whose task runs: wait in [pending], run, or run and let others start. */
        private const val WAIT = 0
        private const val RUN = 1
        private const val RUN_AND_ADMIT = 2

        /** Set while a thread hands a place on in [passOn]: the views whose places a refusal gave back meanwhile. */
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
                step.view.forget(step) // refused before it started: the steps behind it go on
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
