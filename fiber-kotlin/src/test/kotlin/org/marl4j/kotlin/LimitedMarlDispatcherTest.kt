package org.marl4j.kotlin

import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.Job
import kotlinx.coroutines.asExecutor
import kotlinx.coroutines.delay
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.CsvSource
import org.junit.jupiter.params.provider.ValueSource
import org.marl4j.Event
import org.marl4j.Fiber
import org.marl4j.Scheduler
import org.marl4j.TaskErrors
import org.marl4j.TestSchedulers
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference
import kotlin.coroutines.ContinuationInterceptor
import kotlin.coroutines.EmptyCoroutineContext
import kotlin.coroutines.coroutineContext

@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LimitedMarlDispatcherTest {

    /** The views the zero-worker tests use: limits 1 and 2, and a view of 1 of a view of 2. */
    private fun view(scheduler: Scheduler, which: String): CoroutineDispatcher {
        val dispatcher = scheduler.asCoroutineDispatcher()
        return when (which) {
            "1" -> dispatcher.limitedParallelism(1)
            "2" -> dispatcher.limitedParallelism(2)
            "2/1" -> dispatcher.limitedParallelism(2).limitedParallelism(1)
            else -> error(which)
        }
    }

    @ParameterizedTest(name = "view {0}")
    @ValueSource(strings = ["1", "2", "2/1"])
    fun onABoundThreadOfAZeroWorkerSchedulerAStepResumedFromAnotherThreadThroughAViewRunsOnTheBoundThread(which: String) =
        TestSchedulers.withBoundScheduler(0) { scheduler ->
            val caller = workerThread()
            val results = runSuspending {
                val plain = coroutineContext[ContinuationInterceptor]!!
                withContext(view(scheduler, which)) {
                    // Launched on the plain dispatcher, so it runs only after the view's worker has
                    // run this step to its suspension and found nothing else queued: the bound thread
                    // runs one task at a time. The IO block then returns to a view with no worker
                    // running, so the IO thread itself must start one for the resumed step.
                    val suspended = CountDownLatch(1)
                    launch(plain) { suspended.countDown() }
                    val fromIo = withContext(Dispatchers.IO) {
                        assertTrue(suspended.await(TestSchedulers.PATIENCE.toMillis(), TimeUnit.MILLISECONDS))
                        1
                    }
                    assertSame(caller, workerThread(), "resumed from IO on the bound thread")
                    assertSame(scheduler, Scheduler.get())

                    val deferred = CompletableDeferred<Int>()
                    launch(plain) { TestSchedulers.startThread("completer") { deferred.complete(2) } }
                    val fromAPlainThread = deferred.await()
                    assertSame(caller, workerThread(), "resumed from a plain thread on the bound thread")

                    delay(1) // the view's timers are the scheduler's
                    assertSame(caller, workerThread())
                    listOf(fromIo, fromAPlainThread)
                }
            }
            assertEquals(listOf(1, 2), results)
            assertFalse(defaultExecutorRunning(), "$DEFAULT_EXECUTOR was started")
        }

    @ParameterizedTest(name = "{0} worker threads, limit {1}")
    @CsvSource("0, 1", "0, 2", "1, 1", "1, 2", "2, 1", "2, 2")
    fun theLimitHoldsForStepsResumedFromOtherThreads(workers: Int, limit: Int) =
        TestSchedulers.withBoundScheduler(workers) { scheduler ->
            val view = scheduler.asCoroutineDispatcher().limitedParallelism(limit)
            val running = AtomicInteger()
            val most = AtomicInteger()
            val ran = AtomicInteger()
            val offScheduler = AtomicInteger()
            val critical = {
                if (Scheduler.get() !== scheduler || Fiber.current() == null) {
                    offScheduler.incrementAndGet()
                }
                val now = running.incrementAndGet()
                most.accumulateAndGet(now, ::maxOf)
                repeat(100) { Thread.onSpinWait() }
                running.decrementAndGet()
            }
            runSuspending {
                val plain = coroutineContext[ContinuationInterceptor]!!
                val released = CountDownLatch(1)
                withContext(view) {
                    repeat(COROUTINES) { index ->
                        launch {
                            if (index == COROUTINES - 1) {
                                // The view runs its coroutines' first steps in order, so every other
                                // one is suspended in its IO block by now. On the plain dispatcher,
                                // this runs (with zero workers) only once the view's worker has put
                                // this step aside too: then every IO block returns at once, to a view
                                // with at most the workers of a finished turn left, so IO threads
                                // must start workers (with limit 1, always).
                                launch(plain) { released.countDown() }
                            }
                            withContext(Dispatchers.IO) {
                                assertTrue(released.await(TestSchedulers.PATIENCE.toMillis(), TimeUnit.MILLISECONDS))
                            }
                            critical()
                            if (index % 10 == 0) {
                                delay(1)
                            }
                            withContext(Dispatchers.IO) { Thread.onSpinWait() }
                            critical()
                            ran.incrementAndGet()
                        }
                    }
                }
            }
            assertEquals(COROUTINES, ran.get())
            assertEquals(0, offScheduler.get(), "steps ran off the scheduler's fibers")
            assertTrue(most.get() <= limit, "at most $limit at once, saw ${most.get()}")
        }

    @OptIn(DelicateCoroutinesApi::class)
    @Test
    fun onABoundThreadOfAZeroWorkerSchedulerAViewsCoroutineResumedAfterTheCallReturnedIsRefusedClearly() =
        TestSchedulers.withBoundScheduler(0) { scheduler ->
            val gate = CompletableDeferred<Unit>()
            val bodyFinished = AtomicInteger()
            val outlived = runSuspending {
                // As in RunSuspendingTest: not a child, so it outlives the call, and is suspended in
                // await() before the call returns; here it runs on a view.
                GlobalScope.launch(
                    coroutineContext.minusKey(Job) + scheduler.asCoroutineDispatcher().limitedParallelism(1),
                    CoroutineStart.UNDISPATCHED,
                ) {
                    gate.await()
                    bodyFinished.incrementAndGet()
                }
            }
            val resumer = TestSchedulers.startThread("resumer") { gate.complete(Unit) }
            TaskErrors.join(resumer)
            val reason = TestSchedulers.get(CompletableFuture<Throwable?>().also { reason ->
                outlived.invokeOnCompletion { reason.complete(it) }
            })
            assertNotNull(reason, "the refused coroutine was cancelled, not run to the end off the scheduler")
            val message = reason!!.message!!
            assertTrue(message.contains("thread resumer is not bound"), message)
            assertTrue(message.contains("worker threads"), message)
            assertInstanceOf(IllegalStateException::class.java, reason.rejection())
            assertEquals(0, bodyFinished.get(), "the refused step observed its cancellation")
        }

    @ParameterizedTest(name = "view {0}")
    @ValueSource(strings = ["1", "2", "2/1"])
    fun resumptionsRejectedByACloseThroughAViewAreAllCancelled(which: String) {
        val scheduler = Scheduler(TestSchedulers.config(1))
        val view = view(scheduler, which)
        val gate = CompletableDeferred<Unit>()
        val finallyRan = AtomicInteger()
        val bodyFinished = AtomicInteger()
        @OptIn(DelicateCoroutinesApi::class)
        val jobs = List(5) {
            GlobalScope.launch(view, start = CoroutineStart.UNDISPATCHED) {
                try {
                    gate.await() // suspended here while the scheduler closes
                    bodyFinished.incrementAndGet()
                } finally {
                    finallyRan.incrementAndGet()
                }
            }
        }
        scheduler.close()
        gate.complete(Unit) // resumes all five through the view of the closed dispatcher
        runBlocking { jobs.joinAll() }
        jobs.forEach { job ->
            assertTrue(job.isCancelled)
            assertInstanceOf(RejectedExecutionException::class.java, job.rejection())
        }
        assertEquals(5, finallyRan.get(), "every rejected step still ran, so finally blocks unwind")
        assertEquals(0, bodyFinished.get())
    }

    @ParameterizedTest(name = "view {0}")
    @ValueSource(strings = ["1", "2/1"])
    fun aStepThatThrowsIsReportedAsATasksExceptionAndTheViewGoesOn(which: String) {
        val errors = TaskErrors()
        Scheduler(errors.config(1)).use { scheduler ->
            val view = view(scheduler, which)
            val after = CountDownLatch(1)
            view.dispatch(EmptyCoroutineContext, Runnable { throw UnsupportedOperationException("step failed") })
            view.dispatch(EmptyCoroutineContext, Runnable { after.countDown() })
            assertTrue(after.await(TestSchedulers.PATIENCE.toMillis(), TimeUnit.MILLISECONDS), "the view went on")
            await().atMost(TestSchedulers.PATIENCE).until { errors.errors().isNotEmpty() }
            assertEquals("step failed", errors.errors().single().message)
        }
    }

    @Test
    fun aViewOfAViewKeepsTheTighterLimitAndANameOrThisView() {
        val scheduler = Scheduler(TestSchedulers.config(1))
        scheduler.use {
            val view = scheduler.asCoroutineDispatcher().limitedParallelism(2)
            assertSame(view, view.limitedParallelism(3))
            assertSame(view, view.limitedParallelism(2))
            assertEquals("narrow", view.limitedParallelism(1, "narrow").toString())
            assertTrue(view.toString().contains(scheduler.toString()), view.toString())
            assertThrows<IllegalArgumentException> { scheduler.asCoroutineDispatcher().limitedParallelism(0) }
            assertThrows<IllegalArgumentException> { view.limitedParallelism(0) }
        }
    }

    private companion object {
        /** How many coroutines the limit test runs through its view. */
        const val COROUTINES = 200

        /** How many steps the order tests dispatch one after another. */
        const val ORDERED_STEPS = 2_000
    }

    /** The first cause in the throwable's chain that is not itself a CancellationException. */
    private fun Throwable.rejection(): Throwable? =
        generateSequence(this) { it.cause }.firstOrNull { it !is kotlinx.coroutines.CancellationException }

    @OptIn(InternalCoroutinesApi::class)
    private fun Job.rejection(): Throwable? = getCancellationException().rejection()

    // ---------------------------------------------------------------- each step accepted or refused as by the root

    @Test
    fun aDispatchWhoseEnqueueThrows_failsThatDispatchOnly_andTheViewGoesOn() {
        val errors = TaskErrors()
        val throwOnce = AtomicBoolean()
        val policy = { RefusingPolicy { if (throwOnce.compareAndSet(true, false)) IllegalArgumentException("policy failed once") else null } }
        Scheduler(errors.config(1).setSchedulingPolicy(policy)).use { scheduler ->
            val view = scheduler.asCoroutineDispatcher().limitedParallelism(1)
            throwOnce.set(true)
            assertThrows<IllegalArgumentException> { view.dispatch(EmptyCoroutineContext, Runnable {}) }
            val ran = CountDownLatch(1)
            view.dispatch(EmptyCoroutineContext, Runnable { ran.countDown() })
            assertTrue(ran.await(10, TimeUnit.SECONDS), "the view's only place leaked: a later step never ran")
        }
    }

    @Test
    fun aStepFromABoundThread_runsThere_evenBehindAForeignStepTheRootRefused() =
        TestSchedulers.withBoundScheduler(0) { scheduler ->
            val view = scheduler.asCoroutineDispatcher().limitedParallelism(1)
            // Hold every Dispatchers.IO thread (64 by default), so the view hears of the refusal only
            // after the bound thread's step is queued behind the refused one.
            val ioThreads = 64
            val ioStarted = CountDownLatch(ioThreads)
            val ioRelease = CountDownLatch(1)
            repeat(ioThreads) {
                Dispatchers.IO.dispatch(EmptyCoroutineContext, Runnable { ioStarted.countDown(); ioRelease.await() })
            }
            assertTrue(ioStarted.await(30, TimeUnit.SECONDS))
            TaskErrors.join(TestSchedulers.startThread("foreign") {
                view.dispatch(EmptyCoroutineContext, Runnable {}) // refused: not bound, no inbox
            })
            val boundRanOn = AtomicReference<Thread>()
            val ran = Event()
            // From the bound thread: the root dispatcher would run this on this thread.
            view.dispatch(EmptyCoroutineContext, Runnable { boundRanOn.set(workerThread()); ran.signal() })
            ioRelease.countDown()
            assertTrue(ran.await(Duration.ofSeconds(30)))
            assertSame(workerThread(), boundRanOn.get(), "ran on ${boundRanOn.get()?.name}")
        }

    /** What the view must match: the root runs a step dispatched from the bound thread on that thread. */
    @Test
    fun theRootRunsABoundThreadsStepOnIt() =
        TestSchedulers.withBoundScheduler(0) { scheduler ->
            val boundRanOn = AtomicReference<Thread>()
            val ran = Event()
            scheduler.asCoroutineDispatcher().dispatch(EmptyCoroutineContext, Runnable { boundRanOn.set(workerThread()); ran.signal() })
            assertTrue(ran.await(Duration.ofSeconds(30)))
            assertSame(workerThread(), boundRanOn.get())
        }

    /** The root refuses a foreign thread's step with no inbox: so does a view, even with a step of its own queued on the bound thread. */
    @Test
    fun aForeignStepTheRootRefuses_isRefusedThroughAViewToo() =
        TestSchedulers.withBoundScheduler(0) { scheduler ->
            val view = scheduler.asCoroutineDispatcher().limitedParallelism(1)
            view.dispatch(EmptyCoroutineContext, Runnable {}) // from the bound thread: a worker queued here
            val foreignRanOn = AtomicReference<Thread>()
            val ran = Event()
            TaskErrors.join(TestSchedulers.startThread("foreign") {
                view.dispatch(EmptyCoroutineContext, Runnable { foreignRanOn.set(workerThread()); ran.signal() })
            })
            assertTrue(ran.await(Duration.ofSeconds(30)))
            assertTrue(foreignRanOn.get() !== workerThread(), "the view ran a step the root refuses, on the bound thread")
        }

    @ParameterizedTest(name = "{0} worker threads, view {1}")
    @CsvSource("1, 1", "2, 1", "4, 1", "2, 2/1", "4, 2/1")
    fun stepsDispatchedOneAfterAnotherToAViewOf1RunInThatOrder(workers: Int, which: String) {
        // Each step is a scheduler task at once, and on several workers the tasks start in any
        // order; the view still starts its steps in dispatch order, as kotlinx's views do.
        val order = java.util.Collections.synchronizedList(ArrayList<Int>())
        Scheduler(TestSchedulers.config(workers)).use { scheduler ->
            val executor = view(scheduler, which).asExecutor()
            val done = CompletableFuture<Unit>()
            for (index in 0 until ORDERED_STEPS) {
                executor.execute {
                    order.add(index)
                    if (order.size == ORDERED_STEPS) {
                        done.complete(Unit)
                    }
                }
            }
            TestSchedulers.get(done)
        }
        assertInOrder(order.toList())
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = [0, 1, 2, 4])
    fun coroutinesLaunchedOnAViewOf1RunTheirStepsInLaunchOrder(workers: Int) =
        TestSchedulers.withBoundScheduler(workers) { scheduler ->
            val view = scheduler.asCoroutineDispatcher().limitedParallelism(1)
            val order = ArrayList<Int>() // only touched by the view's steps, one at a time
            runSuspending {
                withContext(view) {
                    repeat(ORDERED_STEPS) { index -> launch { order.add(index) } }
                }
            }
            assertInOrder(order)
        }

    /** Fails naming the first step that ran out of dispatch order, and how many did. */
    private fun assertInOrder(order: List<Int>) {
        assertEquals(ORDERED_STEPS, order.size, "steps run")
        val late = order.indices.filter { order[it] != it }
        assertTrue(late.isEmpty()) {
            "${late.size} of $ORDERED_STEPS steps ran out of dispatch order, the first at position ${late.first()}: " +
                "step ${order[late.first()]}"
        }
    }

}
