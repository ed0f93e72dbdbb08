package org.marl4j.kotlin

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.test.resetMain
import kotlinx.coroutines.test.setMain
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.job
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.withTimeoutOrNull
import kotlinx.coroutines.yield
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.api.assertTimeoutPreemptively
import org.marl4j.Fiber
import org.marl4j.ForEachWorkerCount
import org.marl4j.Scheduler
import org.marl4j.TestSchedulers
import java.util.concurrent.CompletableFuture
import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.atomic.AtomicInteger
import kotlin.coroutines.Continuation
import kotlin.coroutines.ContinuationInterceptor
import kotlin.coroutines.startCoroutine

@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class MarlDispatcherTest {

    @ForEachWorkerCount
    fun coroutinesRunOnFibersOfTheScheduler(workers: Int) = onScheduler(workers) { scheduler ->
        val dispatcher = scheduler.asCoroutineDispatcher()
        assertSame(dispatcher.scheduler, scheduler)
        withContext(dispatcher) {
            assertNotNull(Fiber.current(), "a coroutine step runs on a fiber")
            assertSame(scheduler, Scheduler.get())
            yield()
            assertNotNull(Fiber.current())
        }
    }

    @ForEachWorkerCount
    fun hundredThousandCoroutinesAllRun(workers: Int) = onScheduler(workers) { scheduler ->
        val ran = AtomicInteger()
        withContext(scheduler.asCoroutineDispatcher()) {
            repeat(100_000) { i ->
                launch {
                    if (i % 7 == 0) {
                        yield()
                    }
                    ran.incrementAndGet()
                }
            }
        }
        assertEquals(100_000, ran.get())
    }

    @ForEachWorkerCount
    fun delaysAndTimeoutsRunOnTheSchedulerWithoutDefaultExecutor(workers: Int) {
        onScheduler(workers) { scheduler ->
            withContext(scheduler.asCoroutineDispatcher()) {
                val resumed = AtomicInteger()
                coroutineScope {
                    repeat(1_000) {
                        launch {
                            delay(1L + it % 20)
                            assertSame(scheduler, Scheduler.get(), "delay resumes on the scheduler")
                            assertNotNull(Fiber.current())
                            resumed.incrementAndGet()
                        }
                    }
                }
                assertEquals(1_000, resumed.get())
                assertThrows<TimeoutCancellationException> { withTimeout(10) { awaitCancellation() } }
                assertSame(scheduler, Scheduler.get(), "a timeout resumes on the scheduler")
                assertEquals(42, withTimeout(TestSchedulers.PATIENCE.toMillis()) { delay(1); 42 })
                assertNull(withTimeoutOrNull(5) { delay(10_000); 1 })
            }
        }
        // Strict: no test of this module may start it (the runTest ones use virtual time, and
        // runBlocking's event loop keeps its own timers), so its absence here is meaningful.
        assertFalse(defaultExecutorRunning(), "$DEFAULT_EXECUTOR was started")
    }

    @ForEachWorkerCount
    fun extremeDelaysAndTimeouts_neitherOverflowNorWaitWhenNoTimeIsLeft(workers: Int) = onScheduler(workers) { scheduler ->
        withContext(scheduler.asCoroutineDispatcher()) {
            for (millis in longArrayOf(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0)) {
                delay(millis) // no time left: returns at once
                assertThrows<TimeoutCancellationException> { withTimeout(millis) { awaitCancellation() } }
                assertNull(withTimeoutOrNull(millis) { delay(1); 1 })
            }
            assertEquals(7, withTimeout(Long.MAX_VALUE) { delay(1); 7 })
            val sleeper = launch { delay(Long.MAX_VALUE) }
            val timed = launch { withTimeout(Long.MAX_VALUE) { awaitCancellation() } }
            yield()
            assertTrue(sleeper.isActive && timed.isActive, "a Long.MAX_VALUE delay or timeout does not end at once")
            sleeper.cancelAndJoin()
            timed.cancelAndJoin()
        }
    }

    @Test
    fun aCancelledDelayDoesNotHoldUpClose() {
        val scheduler = Scheduler(TestSchedulers.config(1))
        val dispatcher = scheduler.asCoroutineDispatcher()
        runBlocking {
            val sleeper = launch(dispatcher) { delay(3_600_000) }
            yield()
            sleeper.cancelAndJoin()
        }
        assertTimeoutPreemptively(TestSchedulers.PATIENCE) { scheduler.close() }
    }

    @Test
    fun aCancelledWithTimeoutDoesNotHoldUpClose() {
        val scheduler = Scheduler(TestSchedulers.config(2))
        runBlocking(scheduler.asCoroutineDispatcher()) {
            assertEquals(1, withTimeout(3_600_000) { 1 })
        }
        assertTimeoutPreemptively(TestSchedulers.PATIENCE) { scheduler.close() }
    }

    @Test
    fun aCoroutineThatDelaysInALoopIsCancelledByClose_insteadOfHoldingItOpen() {
        val scheduler = Scheduler(TestSchedulers.config(2))
        val ticks = AtomicInteger()
        val looper = kotlinx.coroutines.CoroutineScope(scheduler.asCoroutineDispatcher()).launch {
            while (true) {
                delay(5)
                ticks.incrementAndGet()
            }
        }
        org.awaitility.Awaitility.await().atMost(TestSchedulers.PATIENCE).until { ticks.get() >= 3 }
        // Once close() has begun no new delayed task is accepted, so the next delay is refused.
        assertTimeoutPreemptively(TestSchedulers.PATIENCE) { scheduler.close() }
        runBlocking { looper.join() }
        assertTrue(looper.isCancelled)
        assertInstanceOf(RejectedExecutionException::class.java, looper.rejection())
    }

    @ForEachWorkerCount
    fun limitedParallelismRunsAtMostThatManyAtOnce(workers: Int) = onScheduler(workers) { scheduler ->
        val limited = scheduler.asCoroutineDispatcher().limitedParallelism(2)
        val running = AtomicInteger()
        val most = AtomicInteger()
        val ran = AtomicInteger()
        withContext(limited) {
            repeat(2_000) {
                launch {
                    if (it % 10 == 0) {
                        delay(1) // the view keeps using the marl timers
                    }
                    val now = running.incrementAndGet()
                    most.accumulateAndGet(now, ::maxOf)
                    repeat(100) { Thread.onSpinWait() }
                    running.decrementAndGet()
                    ran.incrementAndGet()
                }
            }
        }
        assertEquals(2_000, ran.get())
        assertTrue(most.get() <= 2, "at most 2 at once, saw ${most.get()}")
    }

    @Test
    fun limitedParallelismBelowOneIsRefusedNamingTheValue_andAboveTheWorkerCountIsAccepted() = onScheduler(1) { scheduler ->
        val dispatcher = scheduler.asCoroutineDispatcher()
        for (bad in intArrayOf(0, -1, Int.MIN_VALUE)) {
            val thrown = assertThrows<IllegalArgumentException> { dispatcher.limitedParallelism(bad, "bad") }
            assertTrue(thrown.message!!.contains("at least 1, got $bad"), thrown.message)
        }
        // More places than worker threads limits nothing, as kotlinx's views over a smaller pool.
        val wide = dispatcher.limitedParallelism(1_000)
        assertEquals(1_000, List(100) { async(wide) { 10 } }.awaitAll().sum())
    }

    @OptIn(kotlinx.coroutines.ExperimentalCoroutinesApi::class)
    @Test
    fun asTheMainDispatcherOfATest_itRunsMainsStepsAndTimers() = onScheduler(1) { scheduler ->
        Dispatchers.setMain(scheduler.asCoroutineDispatcher())
        try {
            // kotlinx-coroutines-test's Main delegates dispatch and Delay to the dispatcher set.
            val ranOn = withContext(Dispatchers.Main) {
                delay(1)
                withTimeout(TestSchedulers.PATIENCE.toMillis()) { Scheduler.get() }
            }
            assertSame(scheduler, ranOn)
            assertThrows<TimeoutCancellationException> { withContext(Dispatchers.Main) { withTimeout(1) { awaitCancellation() } } }
        } finally {
            Dispatchers.resetMain()
        }
        assertFalse(defaultExecutorRunning(), "$DEFAULT_EXECUTOR was started")
    }

    @Test
    fun aDispatchAfterCloseCancelsTheJobWithTheRejection() {
        val scheduler = Scheduler(TestSchedulers.config(2))
        val dispatcher = scheduler.asCoroutineDispatcher()
        scheduler.close()
        runBlocking {
            val body = AtomicInteger()
            val job = launch(dispatcher) { body.incrementAndGet() }
            job.join()
            assertTrue(job.isCancelled)
            assertInstanceOf(RejectedExecutionException::class.java, job.rejection())
            assertEquals(0, body.get(), "a cancelled coroutine does not start its body")

            val thrown = assertThrows<CancellationException> {
                coroutineScope { withContext(dispatcher) { body.incrementAndGet() } }
            }
            assertInstanceOf(RejectedExecutionException::class.java, thrown.rejection())
        }
    }

    @Test
    fun aResumptionRejectedByACloseRunsAndObservesTheCancellation() {
        val scheduler = Scheduler(TestSchedulers.config(1))
        val dispatcher = scheduler.asCoroutineDispatcher()
        val gate = kotlinx.coroutines.CompletableDeferred<Unit>()
        val finallyRan = AtomicInteger()
        val job = kotlinx.coroutines.GlobalScope.launch(dispatcher, start = CoroutineStart.UNDISPATCHED) {
            try {
                gate.await() // suspended here while the scheduler closes
            } finally {
                finallyRan.incrementAndGet()
            }
        }
        scheduler.close()
        gate.complete(Unit) // resumes through the closed dispatcher
        runBlocking { job.join() }
        assertTrue(job.isCancelled)
        assertInstanceOf(RejectedExecutionException::class.java, job.rejection())
        assertEquals(1, finallyRan.get(), "the rejected step still ran, so finally blocks unwind")
    }

    @Test
    fun aDelayRefusedByAClosedSchedulerResumesACoroutineWithoutAJob() {
        val scheduler = Scheduler(TestSchedulers.config(1))
        scheduler.close()
        val outcome = CompletableFuture<Result<String>>()
        // startCoroutine: no Job in the context, so cancelling "the job" reaches nothing.
        suspend { delay(20); "resumed" }.startCoroutine(Continuation(scheduler.asCoroutineDispatcher()) { outcome.complete(it) })
        val thrown = TestSchedulers.get(outcome).exceptionOrNull()
        assertInstanceOf(CancellationException::class.java, thrown)
        assertInstanceOf(RejectedExecutionException::class.java, thrown!!.rejection())
    }

    @Test
    fun aZeroWorkerSchedulerRefusesDispatchesFromUnboundThreads() {
        val scheduler = Scheduler(TestSchedulers.config(0))
        try {
            runBlocking {
                val job = launch(scheduler.asCoroutineDispatcher()) { }
                job.join()
                assertInstanceOf(IllegalStateException::class.java, job.rejection())
            }
        } finally {
            scheduler.close()
        }
    }

    @Test
    fun theDispatcherIsTheCoroutinesInterceptor() = onScheduler(1) { scheduler ->
        assertInstanceOf(MarlDispatcher::class.java, coroutineContext[ContinuationInterceptor])
        assertTrue(scheduler.asCoroutineDispatcher().toString().contains(scheduler.toString()))
        assertTrue(coroutineContext.job.isActive)
        assertEquals(scheduler.asCoroutineDispatcher(), coroutineContext[ContinuationInterceptor])
        assertEquals(scheduler.asCoroutineDispatcher().hashCode(), scheduler.asCoroutineDispatcher().hashCode())
    }

    /** The first cause in the job's cancellation chain that is not itself a CancellationException. */
    @OptIn(InternalCoroutinesApi::class)
    private fun kotlinx.coroutines.Job.rejection(): Throwable? = getCancellationException().rejection()

    private fun Throwable.rejection(): Throwable? =
        generateSequence(this) { it.cause }.firstOrNull { it !is CancellationException }
}
