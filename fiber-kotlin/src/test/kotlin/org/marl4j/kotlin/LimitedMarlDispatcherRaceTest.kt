package org.marl4j.kotlin

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.CsvSource
import org.junit.jupiter.params.provider.ValueSource
import org.marl4j.Event
import org.marl4j.Fiber
import org.marl4j.Scheduler
import org.marl4j.Task
import org.marl4j.TaskErrors
import org.marl4j.TestSchedulers
import java.util.concurrent.CompletableFuture
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicIntegerArray
import kotlin.coroutines.EmptyCoroutineContext

/**
 * Races of the batching limitedParallelism view: fiber waits in the middle of a batch, a root that
 * refuses at random (hand-offs included), a close racing batches of nested views, and `delay`
 * through an alias.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LimitedMarlDispatcherRaceTest {

    /** The views "1", "2" (limits), "2/1" (a view of 1 of a view of 2) of [scheduler]'s dispatcher, outermost first. */
    private fun views(scheduler: Scheduler, which: String): List<LimitedMarlDispatcher> {
        var view: CoroutineDispatcher = scheduler.asCoroutineDispatcher()
        return which.split("/").map { limit ->
            view = view.limitedParallelism(limit.toInt())
            view as LimitedMarlDispatcher
        }
    }

    private fun limitOf(which: String): Int = which.split("/").minOf { it.toInt() }

    /**
     * Steps that block their fiber in the middle of a batch (on an Event a root task signals, or a
     * yield) while other fibers of the same worker run the view's other steps: the batch goes on
     * on its own fiber afterwards; the limit holds, each step runs once, and no place is left taken.
     */
    @ParameterizedTest(name = "{0} workers, view {1}")
    @CsvSource("0,1", "0,2/1", "1,1", "1,2", "1,2/1", "2,1", "2,2/1", "4,1", "4,2", "4,3/2")
    fun stepsThatBlockTheirFiberMidBatch_keepTheLimit_runOnce_andLeakNoPlace(workers: Int, which: String) {
        val errors = TaskErrors()
        val limit = limitOf(which)
        val runs = AtomicIntegerArray(STEPS)
        val running = AtomicInteger()
        val most = AtomicInteger()
        val finished = AtomicInteger()
        Scheduler(errors.config(workers)).use { scheduler ->
            scheduler.bind() // with no workers, this thread runs the steps while it waits below
            val levels = views(scheduler, which)
            val view = levels.last()
            val done = CompletableFuture<Unit>()
            fun step(index: Int): Runnable = Runnable {
                runs.incrementAndGet(index)
                most.accumulateAndGet(running.incrementAndGet(), ::maxOf)
                when (index % 4) {
                    0 -> {
                        // Suspends this fiber holding the place; a root task wakes it.
                        val wake = Event(Event.Mode.MANUAL)
                        scheduler.enqueue(Task { wake.signal() })
                        wake.await()
                    }
                    1 -> Fiber.yield()
                    2 -> if (index + 1 < STEPS) view.dispatch(EmptyCoroutineContext, step(index + 1)) // more while holding
                    else -> {}
                }
                running.decrementAndGet()
                if (finished.incrementAndGet() == STEPS) {
                    done.complete(Unit)
                }
                if (index % 13 == 0) {
                    throw UnsupportedOperationException("step $index failed")
                }
            }
            for (index in 0 until STEPS) {
                if (index % 4 != 3) { // index % 4 == 3 is dispatched by step index - 1, while it runs
                    view.dispatch(EmptyCoroutineContext, step(index))
                }
            }
            TestSchedulers.get(done)
            await().atMost(TestSchedulers.PATIENCE).until { levels.all { it.placesTaken() == 0 && it.waitingSteps() == 0 } }
        }
        assertTrue(most.get() <= limit, "${most.get()} steps at once in a view of $limit")
        assertEquals((0 until STEPS).map { 1 }, (0 until STEPS).map { runs.get(it) }, "each step runs once")
        assertEquals((0 until STEPS).count { it % 13 == 0 }, errors.errors().size)
    }

    /**
     * The scheduler closes while steps of nested views run in batches, wait, throw and dispatch
     * more, from its own threads and from a foreign thread (whose steps close refuses: they run on
     * Dispatchers.IO, a raw Runnable having no job to cancel): every step runs exactly once, and
     * afterwards no place is taken and no step waits.
     */
    @ParameterizedTest(name = "{0} workers, view {1}")
    @CsvSource("0,1", "0,2/1", "1,1", "1,2/1", "2,1", "2,2/1", "4,2", "4,3/2")
    fun aCloseRacingBatches_runsOrRefusesEachStepOnce_andLeaksNoPlace(workers: Int, which: String) {
        val errors = TaskErrors()
        val runs = AtomicIntegerArray(STEPS)
        val scheduler = Scheduler(errors.config(workers))
        val levels = views(scheduler, which)
        val view = levels.last()
        val fed = AtomicInteger()
        fun step(index: Int): Runnable = Runnable {
            runs.incrementAndGet(index)
            val onScheduler = Fiber.current() != null
            if (onScheduler && index % 5 == 0) {
                Fiber.yield()
            }
            if (index % 3 == 0 && index + 1 < STEPS) {
                view.dispatch(EmptyCoroutineContext, step(index + 1)) // refused off the scheduler once closed
            }
            if (onScheduler && index % 11 == 0) {
                throw UnsupportedOperationException("step $index failed")
            }
        }
        // Steps 0 .. STEPS/2 from the bound test thread, the rest from a foreign thread racing close.
        val feeder = TestSchedulers.startThread("feeder") {
            for (index in STEPS / 2 until STEPS) {
                if (index % 3 != 1) { // index % 3 == 1 is dispatched by step index - 1
                    view.dispatch(EmptyCoroutineContext, step(index))
                }
                fed.incrementAndGet()
            }
        }
        scheduler.use {
            scheduler.bind()
            for (index in 0 until STEPS / 2) {
                if (index % 3 != 1) {
                    view.dispatch(EmptyCoroutineContext, step(index))
                }
            }
            yieldUntil { fed.get() >= STEPS / 8 }
        } // close unbinds (running what is left here) while the feeder still dispatches
        TaskErrors.join(feeder)
        // Steps refused after close run on Dispatchers.IO: wait for them.
        await().atMost(TestSchedulers.PATIENCE).until { (0 until STEPS).all { runs.get(it) >= 1 } }
        assertEquals((0 until STEPS).map { 1 }, (0 until STEPS).map { runs.get(it) }, "each step runs once")
        levels.forEach {
            assertEquals(0, it.placesTaken(), "a place leaked in $it")
            assertEquals(0, it.waitingSteps(), "a step was left waiting in $it")
        }
    }

    /**
     * A coroutine on an alias of a view of 1 resumes from `delay` through the view: while another
     * step holds the only place, the resumption waits for it.
     */
    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = [0, 1, 2, 4])
    fun aDelayThroughAnAlias_resumesThroughTheView(workers: Int) {
        val holding = AtomicBoolean()
        val resumed = AtomicBoolean()
        val resumedWhileHeld = AtomicBoolean()
        onScheduler(workers) { scheduler ->
            val view = scheduler.asCoroutineDispatcher().limitedParallelism(1) as LimitedMarlDispatcher
            val alias = view.limitedParallelism(4, "alias")
            val delayed = launch(alias, CoroutineStart.UNDISPATCHED) {
                delay(20)
                resumedWhileHeld.set(holding.get())
                resumed.set(true)
            }
            view.dispatch(EmptyCoroutineContext, Runnable {
                holding.set(true)
                // Holds the place until the delay's resumption waits for it (or, if the timer was
                // quicker than this step, until it has run).
                yieldUntil { view.waitingSteps() == 1 || resumed.get() }
                holding.set(false)
            })
            delayed.join()
        }
        assertTrue(resumed.get())
        assertFalse(resumedWhileHeld.get(), "the delay's resumption ran while another step held the only place")
    }

    /**
     * A root whose queue refuses enqueues at random, hand-offs included, while steps of nested views
     * run in batches, fiber-wait, throw and dispatch more: each step runs exactly once (on the
     * scheduler, or refused onto Dispatchers.IO), the steps that run on the scheduler keep the limit,
     * and afterwards no place is taken and no step waits.
     */
    @ParameterizedTest(name = "{0} workers, view {1}")
    @CsvSource("0,1", "0,2/1", "1,1", "1,2/1", "2,1", "2,2/1", "4,2", "4,3/2")
    fun aRootThatRefusesAtRandom_handOffsIncluded_losesNoStep_runsNoneTwice_andLeaksNoPlace(workers: Int, which: String) {
        val errors = TaskErrors()
        val limit = limitOf(which)
        val runs = AtomicIntegerArray(STEPS)
        val running = AtomicInteger()
        val most = AtomicInteger()
        // While on, the root's queue refuses about one enqueue in 8, as a bounded queue under load does.
        val full = AtomicBoolean()
        val policy = {
            RefusingPolicy {
                if (full.get() && java.util.concurrent.ThreadLocalRandom.current().nextInt(8) == 0) IllegalStateException("Queue full") else null
            }
        }
        Scheduler(errors.config(workers).setSchedulingPolicy(policy)).use { scheduler ->
            scheduler.bind()
            val levels = views(scheduler, which)
            val view = levels.last()
            val finished = AtomicInteger()
            val done = CompletableFuture<Unit>()
            // No Fiber.yield here: the policy would refuse the yielding fiber's own requeue too.
            fun step(index: Int): Runnable = Runnable {
                runs.incrementAndGet(index)
                val onScheduler = Fiber.current() != null
                if (index % 3 == 0 && index + 1 < STEPS) {
                    view.dispatch(EmptyCoroutineContext, step(index + 1)) // while holding the place
                }
                if (onScheduler) {
                    most.accumulateAndGet(running.incrementAndGet(), ::maxOf)
                    repeat(SPINS) { Thread.onSpinWait() }
                    running.decrementAndGet()
                }
                if (finished.incrementAndGet() == STEPS) {
                    done.complete(Unit)
                }
                if (onScheduler && index % 11 == 0) {
                    throw UnsupportedOperationException("step $index failed")
                }
            }
            full.set(true)
            try {
                for (index in 0 until STEPS) {
                    if (index % 3 != 1) {
                        view.dispatch(EmptyCoroutineContext, step(index))
                    }
                }
                TestSchedulers.get(done)
            } finally {
                full.set(false)
            }
            yieldUntil { levels.all { it.placesTaken() == 0 && it.waitingSteps() == 0 } }
        }
        assertEquals((0 until STEPS).map { 1 }, (0 until STEPS).map { runs.get(it) }, "each step runs once")
        assertTrue(most.get() <= limit, "${most.get()} steps at once on the scheduler in a view of $limit")
    }

    private companion object {
        /** Steps each test runs. */
        const val STEPS = 2_000

        /** Spin-waits in each step of the refusing-root test, so that steps overlap on several workers. */
        const val SPINS = 200
    }
}
