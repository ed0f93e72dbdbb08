package org.marl4j.kotlin

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.cancel
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.isActive
import kotlinx.coroutines.job
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.withTimeoutOrNull
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.assertThrows
import org.marl4j.Event
import org.marl4j.Fiber
import org.marl4j.FiberCancellation
import org.marl4j.FiberCancelledException
import org.marl4j.ForEachWorkerCount
import org.marl4j.Scheduler
import org.marl4j.Task
import org.marl4j.TaskErrors
import org.marl4j.TestSchedulers
import org.marl4j.futures.Futures
import java.io.IOException
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference

/**
 * runCancellable ends the fiber waits of its block when the coroutine is cancelled. The futures
 * the blocks wait for complete by themselves after [GUARD_SECONDS], so that without the feature a
 * test fails on its "promptly" check instead of hanging.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RunCancellableTest {

    @ForEachWorkerCount
    fun withTimeout_endsAFiberWaitInside_promptly_withItsTimeoutCancellationException(workers: Int) =
        onCheckedScheduler(workers) {
            val blockEntered = Event(Event.Mode.MANUAL)
            val otherRan = AtomicBoolean()
            // Released while the block waits: with one worker (or none, on the bound thread), it
            // can run only if the block's wait left the thread free.
            val other = launch { blockEntered.awaitSuspending(); otherRan.set(true) }
            var otherRanWhileBlocked = false
            val started = System.nanoTime()
            assertThrows<TimeoutCancellationException> {
                withTimeout(200) {
                    runCancellable {
                        blockEntered.signal()
                        try {
                            Futures.await(tooLate())
                        } finally {
                            otherRanWhileBlocked = otherRan.get()
                        }
                    }
                }
            }
            assertPrompt(started)
            assertTrue(otherRanWhileBlocked, "another coroutine ran while the block waited")
            other.join()
        }

    @ForEachWorkerCount
    fun jobCancel_fromAnotherThread_endsTheWait_withTheJobsCancellationException(workers: Int) =
        onCheckedScheduler(workers) {
            val entered = CountDownLatch(1)
            val insideBlock = AtomicReference<Throwable>()
            val thrown = AtomicReference<Throwable>()
            val job = launch {
                recordingThrown(thrown) {
                    runCancellable {
                        entered.countDown()
                        recordingThrown(insideBlock) { Futures.await(tooLate()) }
                    }
                }
            }
            val cause = CancellationException("stopped from another thread")
            val started = System.nanoTime()
            val canceller = startThreadOnceEntered(entered) { job.cancel(cause) }
            job.join()
            assertPrompt(started)
            TaskErrors.join(canceller)
            assertInstanceOf(FiberCancelledException::class.java, insideBlock.get(), "the block's wait was cancelled")
            assertSame(cause, thrown.get(), "runCancellable ends with the job's own CancellationException")
        }

    @ForEachWorkerCount
    fun insideUnconfinedCode_aCancellationFromTheSameThread_stillEndsTheWait(workers: Int) = onCheckedScheduler(workers) {
        val entered = Event(Event.Mode.MANUAL)
        val started = System.nanoTime()
        // withContext(Unconfined) runs its block in kotlinx's unconfined loop on the worker thread,
        // which stays busy while the block's fiber waits: a cancellation that had to be dispatched
        // through that loop (an unconfined watcher coroutine's resume) would queue behind the wait.
        val job = launch {
            withContext(Dispatchers.Unconfined) {
                runCancellable {
                    entered.signal()
                    Futures.await(tooLate())
                }
            }
        }
        // With one worker (or none) the canceller runs on the waiting block's thread.
        launch { entered.awaitSuspending(); job.cancel() }
        job.join()
        assertPrompt(started)
    }

    @ForEachWorkerCount
    fun withTimeoutOrNull_returnsNull_andTheFibersLaterWaitsWork(workers: Int) = onCheckedScheduler(workers) { scheduler ->
        var blockFiber: Fiber? = null
        val started = System.nanoTime()
        val result = withTimeoutOrNull(100) {
            runCancellable {
                blockFiber = Fiber.current()
                Futures.await(tooLate())
            }
        }
        assertPrompt(started)
        assertNull(result)
        assertSame(blockFiber, Fiber.current(), "runCancellable does not suspend: the coroutine is on the same fiber")
        assertEquals("next", Futures.await(completedByATask(scheduler, "next")), "a later wait of the fiber is not cancelled")
    }

    @ForEachWorkerCount
    fun aBlockThatReturns_returnsItsValue_andLeavesNothingBehind(workers: Int) = onCheckedScheduler(workers) { scheduler ->
        val later = AtomicReference<Any>()
        val job = launch {
            val value = runCancellable { Futures.await(completedByATask(scheduler, "value")) }
            assertEquals("value", value)
            val self = currentCoroutineContext().job
            assertEquals(listOf<Any>(), self.children.toList(), "nothing stays attached to the job")
            // Cancelling the job now must not reach the fiber's waits: the scope was closed.
            self.cancel()
            later.set(runCatching { Futures.await(completedByATask(scheduler, "later")) }.fold({ it }, { it }))
        }
        job.join()
        assertEquals("later", later.get())
    }

    @ForEachWorkerCount
    fun anExceptionFromTheBlock_propagatesUnchanged(workers: Int) = onCheckedScheduler(workers) { scheduler ->
        val failure = IllegalStateException("from the block")
        val thrown = assertThrows<IllegalStateException> {
            runCancellable<String> {
                Futures.await(completedByATask(scheduler, "first"))
                throw failure
            }
        }
        assertSame(failure, thrown)
        assertTrue(currentCoroutineContext().isActive)
    }

    @ForEachWorkerCount
    fun aBlockThatTurnsTheCancellationIntoAnotherException_throwsThat(workers: Int) = onCheckedScheduler(workers) {
        val entered = CountDownLatch(1)
        val thrown = AtomicReference<Throwable>()
        val job = launch {
            try {
                runCancellable {
                    entered.countDown()
                    try {
                        Futures.await(tooLate())
                    } catch (cancelled: FiberCancelledException) {
                        throw IOException("gave up", cancelled)
                    }
                }
            } catch (t: Throwable) {
                thrown.set(t)
            }
        }
        val canceller = startThreadOnceEntered(entered) { job.cancel() }
        job.join()
        TaskErrors.join(canceller)
        assertInstanceOf(IOException::class.java, thrown.get())
    }

    @ForEachWorkerCount
    fun aFiberCancelledExceptionFromAnOuterScope_propagatesUnchanged(workers: Int) = onCheckedScheduler(workers) {
        val entered = CountDownLatch(1)
        val insideBlock = AtomicReference<Throwable>()
        lateinit var canceller: Thread
        val outside = FiberCancellation.open().use { outer ->
            canceller = startThreadOnceEntered(entered) { outer.cancel() }
            runCatching {
                runCancellable {
                    entered.countDown()
                    recordingThrown(insideBlock) { Futures.await(tooLate()) }
                }
            }.exceptionOrNull()
        }
        // After the scope: inside it, a blocking JDK call such as this join is cancelled too.
        TaskErrors.join(canceller)
        assertInstanceOf(FiberCancelledException::class.java, outside)
        assertSame(insideBlock.get(), outside, "not turned into a coroutine cancellation")
        assertTrue(currentCoroutineContext().isActive)
    }

    @ForEachWorkerCount
    fun nested_cancellingTheOuterCoroutine_endsTheInnerBlocksWaitToo(workers: Int) = onCheckedScheduler(workers) {
        val entered = CountDownLatch(1)
        val inner = AtomicReference<Throwable>()
        val outer = AtomicReference<Throwable>()
        val job = launch {
            recordingThrown(outer) {
                runCancellable {
                    // runSuspending starts a coroutine on another fiber; this fiber waits for it.
                    runSuspending {
                        recordingThrown(inner) {
                            runCancellable {
                                entered.countDown()
                                Futures.await(tooLate())
                            }
                        }
                    }
                }
            }
        }
        val cause = CancellationException("outer cancelled")
        val started = System.nanoTime()
        val canceller = startThreadOnceEntered(entered) { job.cancel(cause) }
        job.join()
        // runSuspending does not wait for the coroutine it cancels: wait for it here, on the fiber.
        yieldUntil { inner.get() != null }
        assertPrompt(started)
        TaskErrors.join(canceller)
        assertSame(cause, outer.get())
        assertInstanceOf(CancellationException::class.java, inner.get())
    }

    @ForEachWorkerCount
    fun nested_anInnerTimeout_endsOnlyTheInnerBlock(workers: Int) = onCheckedScheduler(workers) { scheduler ->
        val result = runCancellable {
            val inner = runSuspending { withTimeoutOrNull(50) { runCancellable { Futures.await(tooLate()) } } }
            inner ?: Futures.await(completedByATask(scheduler, "outer went on"))
        }
        assertEquals("outer went on", result)
    }

    @Test
    fun offAFiber_theBlockSimplyRuns() = onCheckedScheduler(1) {
        val result = withContext(Dispatchers.IO) {
            runCancellable { Fiber.current() to Futures.await(CompletableFuture.supplyAsync { "off" }) }
        }
        assertEquals(null to "off", result)
    }

    @ForEachWorkerCount
    fun aCoroutineAlreadyCancelled_doesNotRunTheBlock(workers: Int) = onCheckedScheduler(workers) {
        val ran = AtomicBoolean()
        val thrown = AtomicReference<Throwable>()
        launch {
            cancel()
            thrown.set(runCatching { runCancellable { ran.set(true) } }.exceptionOrNull())
        }.join()
        assertFalse(ran.get())
        assertInstanceOf(CancellationException::class.java, thrown.get())
    }

    @ForEachWorkerCount
    fun stress_cancellationRacingCompletion_neverHangs_norLeaksACancellation(workers: Int) =
        onCheckedScheduler(workers) { scheduler ->
            val iterations = if (TestSchedulers.stress()) 5_000 else 300
            val cancelled = AtomicInteger()
            repeat(iterations) { i ->
                val future = CompletableFuture<Int>()
                val job = launch {
                    val got = try {
                        runCancellable { Futures.await(future) }
                    } catch (e: CancellationException) {
                        cancelled.incrementAndGet()
                        -1
                    }
                    assertTrue(got == i || got == -1, "got $got")
                    // Whichever won, the fiber's later waits work: no cancellation outlived the call.
                    assertEquals(i, Futures.await(completedByATask(scheduler, i)))
                }
                launch { future.complete(i) }
                launch(Dispatchers.Default) { job.cancel() }
                job.join()
            }
            assertTrue(cancelled.get() <= iterations)
        }

    private companion object {
        /** When the futures the blocks wait for complete by themselves, ending the wait of a broken test. */
        const val GUARD_SECONDS = 10L

        /** A future that completes only after [GUARD_SECONDS]: far later than any test should wait. */
        fun tooLate(): CompletableFuture<String> =
            CompletableFuture<String>().completeOnTimeout("too late", GUARD_SECONDS, TimeUnit.SECONDS)

        /** A future that a task of [scheduler] completes with [value]. */
        fun <T> completedByATask(scheduler: Scheduler, value: T): CompletableFuture<T> {
            val future = CompletableFuture<T>()
            scheduler.enqueue(Task { future.complete(value) })
            return future
        }

        /** Fails unless less than half of [GUARD_SECONDS] passed since [started] (System.nanoTime). */
        fun assertPrompt(started: Long) {
            val seconds = (System.nanoTime() - started) / 1e9
            assertTrue(seconds < GUARD_SECONDS / 2.0, "the wait ended only after $seconds s")
        }

        /**
         * Starts a plain thread (off the scheduler) that runs [action] once [entered] is counted
         * down, or after [TestSchedulers.PATIENCE] if it never is.
         */
        fun startThreadOnceEntered(entered: CountDownLatch, action: () -> Unit): Thread =
            TestSchedulers.startThread("canceller") {
                entered.await(TestSchedulers.PATIENCE.toMillis(), TimeUnit.MILLISECONDS)
                action()
            }

        /** Runs [block]; what it throws is set into [thrown], then rethrown. */
        inline fun <T> recordingThrown(thrown: AtomicReference<Throwable>, block: () -> T): T =
            try {
                block()
            } catch (t: Throwable) {
                thrown.set(t)
                throw t
            }

        /**
         * onScheduler that also fails if a task threw (a FiberCancellation left open is reported to
         * the scheduler's handler).
         */
        fun onCheckedScheduler(workers: Int, body: suspend CoroutineScope.(Scheduler) -> Unit) {
            TestSchedulers.withBoundScheduler(workers) { scheduler -> runSuspending { body(scheduler) } }
        }
    }
}
