package org.marl4j.kotlin

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.yield
import org.awaitility.Awaitility.await
import kotlinx.coroutines.withContext
import kotlin.concurrent.thread
import java.util.concurrent.atomic.AtomicReference
import java.util.concurrent.TimeUnit
import java.util.concurrent.CountDownLatch
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.CsvSource
import org.marl4j.Event
import org.marl4j.Fiber
import org.marl4j.Scheduler
import org.marl4j.Task
import org.marl4j.TaskErrors
import org.marl4j.TestSchedulers
import java.time.Duration
import java.util.Collections
import java.util.concurrent.CompletableFuture
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import kotlin.coroutines.EmptyCoroutineContext

/**
 * A step that ends while others wait in a limitedParallelism view runs the oldest of them itself,
 * up to [LimitedMarlDispatcher.BATCH] steps in one scheduler task: about one task per step, the
 * limit kept for nested views, the order kept, exceptions reported and no place leaked, and other
 * tasks of the scheduler still get a turn.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LimitedMarlDispatcherBatchTest {

    /** A view of [scheduler]'s dispatcher: "1", "2" (limits), "2/1" (a view of 1 of a view of 2), "3/2". */
    private fun view(scheduler: Scheduler, which: String): LimitedMarlDispatcher {
        var view: CoroutineDispatcher = scheduler.asCoroutineDispatcher()
        for (limit in which.split("/")) {
            view = view.limitedParallelism(limit.toInt())
        }
        return view as LimitedMarlDispatcher
    }

    /** The limit a view built by [view] keeps: its tightest. */
    private fun limitOf(which: String): Int = which.split("/").minOf { it.toInt() }

    /**
     * Every place is held by a step blocked on a fiber wait while [STEPS] steps start, find no place
     * and wait; then the places are freed. Each waiting step cost one task to start; handing each on
     * as a task of its own costs a second one (2 tasks per step before batching), running them in
     * the freed places costs one more task per [LimitedMarlDispatcher.BATCH] steps.
     */
    @ParameterizedTest(name = "{0} workers, view {1}")
    @CsvSource("0,1", "0,2", "0,2/1", "1,1", "1,2", "1,3/2", "2,1", "2,2/1", "4,1", "4,2", "4,3/2")
    fun aContendedView_runsAboutOneSchedulerTaskPerStep(workers: Int, which: String) {
        val errors = TaskErrors()
        val limit = limitOf(which)
        val ran = AtomicInteger()
        val allWaited = AtomicBoolean()
        val scheduler = Scheduler(errors.config(workers))
        scheduler.use {
            scheduler.bind() // with no workers, this thread runs the steps while it waits below
            val view = view(scheduler, which)
            val release = Event(Event.Mode.MANUAL)
            val done = CompletableFuture<Unit>()
            val step = Runnable {
                if (ran.incrementAndGet() == STEPS + limit) {
                    done.complete(Unit)
                }
            }
            repeat(limit) { view.dispatch(EmptyCoroutineContext, Runnable { release.await(); step.run() }) }
            if (workers > 0) {
                // Worker threads may start tasks out of order: let the blocked steps take every place
                // first. With no workers, this thread runs the tasks later, in order.
                await().atMost(TestSchedulers.PATIENCE).until { view.placesTaken() == limit }
            }
            repeat(STEPS) { view.dispatch(EmptyCoroutineContext, step) }
            val releaser = TestSchedulers.startThread("releaser") {
                try {
                    await().atMost(TestSchedulers.PATIENCE).pollInterval(Duration.ofMillis(1))
                        .until { view.waitingSteps() == STEPS }
                    allWaited.set(true)
                } finally {
                    release.signal()
                }
            }
            TestSchedulers.get(done)
            TaskErrors.join(releaser)
        } // after close, the counters are exact
        assertTrue(allWaited.get(), "not every step waited: the view was not contended")
        val steps = STEPS + limit
        val tasks = scheduler.stats().tasksRun
        assertTrue(tasks < 1.2 * steps, "$tasks scheduler tasks for $steps steps: ${tasks.toDouble() / steps} a step")
        errors.assertNone()
    }

    /**
     * The load of the measurement that found two tasks a step: coroutines on a view, each yielding
     * after a short step, on worker threads that contend for the view's places. Every step is one
     * dispatch through the view (a coroutine's start and each resumption after a yield).
     */
    @ParameterizedTest(name = "{0} workers, limit {1}")
    @CsvSource("2,1", "4,1", "4,2")
    fun coroutinesOnAContendedView_runAboutOneSchedulerTaskPerStep(workers: Int, limit: Int) {
        val scheduler = Scheduler(TestSchedulers.config(workers))
        scheduler.use {
            val view = scheduler.asCoroutineDispatcher().limitedParallelism(limit)
            runBlocking {
                List(COROUTINES) {
                    launch(view) {
                        repeat(YIELDS) {
                            repeat(SPINS) { Thread.onSpinWait() } // long enough for other workers to contend
                            yield()
                        }
                    }
                }.joinAll()
            }
        } // after close, the counters are exact
        val steps = COROUTINES * (YIELDS + 1)
        val tasks = scheduler.stats().tasksRun
        assertTrue(tasks < 1.2 * steps, "$tasks scheduler tasks for $steps steps: ${tasks.toDouble() / steps} a step")
    }

    /**
     * A task queued on the scheduler while a view of 1 has a backlog of [BACKLOG] waiting steps runs
     * after at most one batch of them, not after the whole backlog: on one thread, where that task
     * has no other worker to run it.
     */
    @ParameterizedTest(name = "{0} workers, view {1}")
    @CsvSource("0,1", "0,2/1", "1,1", "1,2/1")
    fun aRootTaskQueuedBehindABacklog_runsAfterOneBatch_notAfterTheBacklog(workers: Int, which: String) {
        val ran = AtomicInteger()
        val ranBeforeTheRootTask = AtomicInteger(-1)
        val waitingWhenQueued = AtomicInteger(-1)
        TestSchedulers.withBoundScheduler(workers) { scheduler ->
            val view = view(scheduler, which)
            val release = Event(Event.Mode.MANUAL)
            val done = CompletableFuture<Unit>()
            view.dispatch(EmptyCoroutineContext, Runnable { release.await(); ran.incrementAndGet() })
            repeat(BACKLOG) {
                view.dispatch(EmptyCoroutineContext, Runnable {
                    if (ran.incrementAndGet() == BACKLOG + 1) {
                        done.complete(Unit)
                    }
                })
            }
            // One thread runs the tasks, in order: this one once every step above has started (and
            // waits). It queues the root task, then frees the place: the backlog drains after it.
            scheduler.enqueue(Task {
                waitingWhenQueued.set(view.waitingSteps())
                scheduler.enqueue(Task { ranBeforeTheRootTask.set(ran.get()) })
                release.signal()
            })
            TestSchedulers.get(done)
        }
        assertEquals(BACKLOG, waitingWhenQueued.get(), "the backlog was not waiting in the view")
        val before = ranBeforeTheRootTask.get()
        assertTrue(before in 0..BACKLOG, "the root task ran after the whole backlog of ${BACKLOG + 1} steps")
        assertTrue(before <= LimitedMarlDispatcher.BATCH,
            "the root task ran after $before of ${BACKLOG + 1} steps, not within a batch of ${LimitedMarlDispatcher.BATCH}")
    }

    /**
     * Steps that started waiting in a view of 1 one after another run in that order, whichever
     * threads run them in batches or as handed-on tasks; a step that throws in a batch is reported
     * to the scheduler's handler, ends that batch only, and leaks no place.
     */
    @ParameterizedTest(name = "{0} workers, view {1}")
    @CsvSource("0,1", "0,2/1", "1,1", "1,2/1", "2,1", "2,2/1", "4,1", "4,2/1")
    fun waitingStepsRunInTheOrderTheyStartedWaiting_andOneThatThrowsLeaksNoPlace(workers: Int, which: String) {
        val errors = TaskErrors()
        val order = Collections.synchronizedList(ArrayList<Int>())
        val running = AtomicInteger()
        val most = AtomicInteger()
        Scheduler(errors.config(workers)).use { scheduler ->
            if (workers == 0) {
                scheduler.bind()
            }
            val view = view(scheduler, which)
            val release = Event(Event.Mode.MANUAL)
            val done = CompletableFuture<Unit>()
            fun step(index: Int) = Runnable {
                most.accumulateAndGet(running.incrementAndGet(), ::maxOf)
                order.add(index)
                running.decrementAndGet()
                if (index == ORDERED) {
                    done.complete(Unit)
                }
                if (index % THROWS_EVERY == 0) {
                    throw UnsupportedOperationException("step $index failed")
                }
            }
            // A feeder on a fiber dispatches each step once the one before waits in the view, so they
            // start waiting in the order they were dispatched, on any number of workers.
            TestSchedulers.runOnFiber(scheduler) {
                view.dispatch(EmptyCoroutineContext, Runnable { release.await(); step(0).run() })
                yieldUntil { view.placesTaken() == 1 }
                for (index in 1..ORDERED) {
                    view.dispatch(EmptyCoroutineContext, step(index))
                    yieldUntil { view.waitingSteps() == index }
                }
                release.signal()
            }
            TestSchedulers.get(done)
            await().atMost(TestSchedulers.PATIENCE).until { view.placesTaken() == 0 && view.waitingSteps() == 0 }
        }
        assertEquals((0..ORDERED).toList(), order.toList())
        assertEquals(1, most.get(), "two steps of a view of 1 ran at once")
        val thrown = (0..ORDERED).filter { it % THROWS_EVERY == 0 }.map { "step $it failed" }
        assertEquals(thrown.toSet(), errors.errors().map { it.message }.toSet())
        assertEquals(thrown.size, errors.errors().size, "each exception reported once")
    }

    /**
     * Two views of 2 of one view of 3, and steps on all three: the steps of each inner view, and all
     * steps together, stay within their limits while batches run steps in places of both levels; a
     * step yields its fiber (holding its places) so that others find them taken even on one thread.
     * Some steps throw; afterwards every place is free and every exception was reported once.
     */
    @ParameterizedTest(name = "{0} workers")
    @CsvSource("0", "1", "2", "4")
    fun nestedViewsSharingAnOuterView_keepBothLimits_throughBatchesAndExceptions(workers: Int) {
        val errors = TaskErrors()
        val total = AtomicInteger()
        val mostTotal = AtomicInteger()
        val running = List(2) { AtomicInteger() }
        val most = List(2) { AtomicInteger() }
        val finished = AtomicInteger()
        val throwing = (0 until NESTED_STEPS).count { it % THROWS_EVERY == 0 }
        Scheduler(errors.config(workers)).use { scheduler ->
            scheduler.bind() // with no workers, this thread runs the steps while it waits below
            val outer = scheduler.asCoroutineDispatcher().limitedParallelism(3) as LimitedMarlDispatcher
            val inner = List(2) { outer.limitedParallelism(2) as LimitedMarlDispatcher }
            val done = CompletableFuture<Unit>()
            for (index in 0 until NESTED_STEPS) {
                val which = index % 3 // 0 and 1: an inner view; 2: the outer view itself
                val target = if (which < 2) inner[which] else outer
                target.dispatch(EmptyCoroutineContext, Runnable {
                    mostTotal.accumulateAndGet(total.incrementAndGet(), ::maxOf)
                    if (which < 2) {
                        most[which].accumulateAndGet(running[which].incrementAndGet(), ::maxOf)
                    }
                    Fiber.yield()
                    if (which < 2) {
                        running[which].decrementAndGet()
                    }
                    total.decrementAndGet()
                    if (finished.incrementAndGet() == NESTED_STEPS) {
                        done.complete(Unit)
                    }
                    if (index % THROWS_EVERY == 0) {
                        throw UnsupportedOperationException("step $index failed")
                    }
                })
            }
            TestSchedulers.get(done)
            await().atMost(TestSchedulers.PATIENCE).until {
                (inner + outer).all { it.placesTaken() == 0 && it.waitingSteps() == 0 }
            }
            await().atMost(TestSchedulers.PATIENCE).until { errors.errors().size >= throwing }
        }
        assertTrue(mostTotal.get() <= 3, "${mostTotal.get()} steps at once in a view of 3")
        most.forEach { assertTrue(it.get() <= 2, "${it.get()} steps at once in a view of 2") }
        assertEquals(throwing, errors.errors().size, errors.errors().take(3).toString())
    }

    private companion object {
        /** Steps that wait behind a blocked view in the task count test. */
        const val STEPS = 2_000

        /** Coroutines of the coroutine load. */
        const val COROUTINES = 50

        /** Yields of each coroutine of the coroutine load. */
        const val YIELDS = 100

        /** Spin-waits in each step of the coroutine load. */
        const val SPINS = 50

        /** Steps waiting in a view when a root task is queued behind them. */
        const val BACKLOG = 1_000

        /** Steps the order test queues one by one, after the one that holds the place. */
        const val ORDERED = 200

        /** Steps the nested views test runs. */
        const val NESTED_STEPS = 3_000

        /** Every this many steps, one throws. */
        const val THROWS_EVERY = 7
    }

    @Test
    fun onAZeroWorkerSchedulerAWaitingStepOfAnotherBoundThreadsRunSuspendingRunsOnThatThreadNotInTheBatch() {
        val scheduler = Scheduler(Scheduler.Config().setWorkerThreadCount(0))
        try {
            val view = scheduler.asCoroutineDispatcher().limitedParallelism(1) as LimitedMarlDispatcher
            val holding = CountDownLatch(1)
            val release = Event(Event.Mode.MANUAL)
            val ranOn = AtomicReference<Thread>()
            val failures = Collections.synchronizedList(ArrayList<Throwable>())
            fun bound(name: String, body: suspend () -> Unit) = thread(name = name) {
                scheduler.bind()
                try {
                    runSuspending { body() }
                } catch (t: Throwable) {
                    failures.add(t)
                } finally {
                    scheduler.unbind()
                }
            }
            val holder = bound("holder") { withContext(view) { holding.countDown(); release.await() } }
            assertTrue(holding.await(TestSchedulers.PATIENCE.toMillis(), TimeUnit.MILLISECONDS))
            val waiter = bound("waiter") { withContext(view) { ranOn.set(workerThread()) } }
            await().atMost(TestSchedulers.PATIENCE).until { view.waitingSteps() == 1 }
            release.signal() // the holder's step ends with the waiter's step waiting for its place
            holder.join(TestSchedulers.PATIENCE.toMillis())
            waiter.join(TestSchedulers.PATIENCE.toMillis())
            assertEquals(listOf<Throwable>(), failures)
            // runSuspending's coroutine stays on its own bound thread, as a step resumed from
            // another thread does: the holder hands the place on rather than running it itself.
            assertSame(waiter, ranOn.get())
        } finally {
            scheduler.close()
        }
    }

}
