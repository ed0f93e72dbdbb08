package org.marl4j.kotlin

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.withTimeoutOrNull
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
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource
import org.marl4j.Event
import org.marl4j.Fiber
import org.marl4j.FiberCancelledException
import org.marl4j.ForEachWorkerCount
import org.marl4j.Scheduler
import org.marl4j.Task
import org.marl4j.TestSchedulers
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean

@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RunSuspendingTest {

    @ForEachWorkerCount
    fun onAFiberItReturnsTheBlocksResult(workers: Int) = TestSchedulers.withScheduler(workers) { scheduler ->
        val result = TestSchedulers.runOnFiber(scheduler) {
            runSuspending {
                delay(5)
                assertSame(scheduler, Scheduler.get(), "the block runs on the caller's scheduler")
                41 + 1
            }
        }
        assertEquals(42, result)
    }

    @Test
    fun onAFiberItSuspendsOnlyTheFiberSoTheOnlyWorkerRunsOtherTasks() = TestSchedulers.withScheduler(1) { scheduler ->
        val released = Event(Event.Mode.MANUAL)
        val thread = TestSchedulers.runOnFiber(scheduler) {
            runSuspending {
                // Released by another task of the same single worker: possible only if
                // runSuspending left that worker's thread free.
                scheduler.enqueue(Task { released.signal() })
                released.awaitSuspending()
            }
            // The worker's own thread: on VIRTUAL_THREADS the current thread is the fiber's
            // virtual thread, whose name only happens to start with the worker's.
            workerThread()
        }
        assertTrue(thread.name.startsWith(scheduler.config().threadNamePrefix), "ran on ${thread.name}")
    }

    @ForEachWorkerCount
    fun itWaitsForTheBlocksChildren(workers: Int) = TestSchedulers.withScheduler(workers) { scheduler ->
        val childDone = AtomicBoolean()
        val sawChild = TestSchedulers.runOnFiber(scheduler) {
            runSuspending {
                launch {
                    delay(20)
                    childDone.set(true)
                }
            }
            childDone.get()
        }
        assertTrue(sawChild, "runSuspending returned before its child finished")
    }

    @ForEachWorkerCount
    fun aChildsExceptionIsThrownToTheCaller(workers: Int) = TestSchedulers.withScheduler(workers) { scheduler ->
        val thrown = TestSchedulers.runOnFiber(scheduler) {
            runCatching {
                runSuspending {
                    launch { throw IllegalStateException("child failed") }
                    delay(3_600_000) // cancelled by the child's failure
                }
            }.exceptionOrNull()
        }
        assertTrue(thrown is IllegalStateException && thrown.message == "child failed", "got $thrown")
    }

    @Test
    fun theBlocksExceptionIsThrownToTheCaller() = TestSchedulers.withScheduler(2) { scheduler ->
        val thrown = TestSchedulers.runOnFiber(scheduler) {
            runCatching { runSuspending { throw UnsupportedOperationException("no") } }.exceptionOrNull()
        }
        assertTrue(thrown is UnsupportedOperationException, "got $thrown")
    }

    @Test
    fun offAFiberItBehavesLikeRunBlocking() {
        assertNull(Fiber.current())
        val caller = Thread.currentThread()
        val childDone = AtomicBoolean()
        val result = runSuspending {
            assertSame(caller, Thread.currentThread(), "like runBlocking, the calling thread runs the block")
            launch { delay(5); childDone.set(true) }
            "ok"
        }
        assertEquals("ok", result)
        assertTrue(childDone.get())
        assertThrows<IllegalArgumentException> { runSuspending { throw IllegalArgumentException("bad") } }
    }

    @Test
    fun onABoundThreadOfAZeroWorkerSchedulerTheThreadRunsTheCoroutines() =
        TestSchedulers.withBoundScheduler(0) { scheduler ->
            val caller = workerThread()
            assertNotNull(Fiber.current())
            val ran = runSuspending {
                delay(1)
                assertSame(caller, workerThread())
                Scheduler.get()
            }
            assertSame(scheduler, ran)
        }

    @Test
    fun onABoundThreadOfAZeroWorkerSchedulerAStepResumedFromAnotherThreadRunsOnTheBoundThread() =
        TestSchedulers.withBoundScheduler(0) { scheduler ->
            val caller = workerThread()
            val fromIo = runSuspending {
                // The sibling runs only once this step has suspended in withContext (the bound
                // thread runs one step at a time), so the IO block returns to a suspended
                // coroutine: its resumption is dispatched from the IO thread.
                val suspended = CountDownLatch(1)
                launch { suspended.countDown() }
                val value = withContext(Dispatchers.IO) {
                    assertTrue(suspended.await(TestSchedulers.PATIENCE.toMillis(), TimeUnit.MILLISECONDS))
                    1
                }
                assertSame(caller, workerThread(), "resumed on the bound thread")
                value
            }
            assertEquals(1, fromIo)
            val fromAPlainThread = runSuspending {
                val deferred = CompletableDeferred<Int>()
                // As above: this child runs once the parent is suspended in await().
                launch { TestSchedulers.startThread("completer") { deferred.complete(2) } }
                val value = deferred.await()
                assertSame(caller, workerThread(), "resumed on the bound thread")
                value
            }
            assertEquals(2, fromAPlainThread)
            val throughTheSchedulersDispatcher = runSuspending {
                // A withContext to the same scheduler's dispatcher keeps the call's context.
                withContext(scheduler.asCoroutineDispatcher()) {
                    val deferred = CompletableDeferred<Int>()
                    launch { TestSchedulers.startThread("completer") { deferred.complete(3) } }
                    deferred.await()
                }
            }
            assertEquals(3, throughTheSchedulersDispatcher)
        }

    /**
     * runSuspending inside runSuspending on a bound thread of a zero-worker scheduler: each call has
     * its own inbox, and a step of either level that another thread resumes reaches the bound
     * thread while the calls wait, whichever of them waits innermost.
     */
    @Test
    fun nestedOnABoundThreadOfAZeroWorkerScheduler_bothLevelsAreResumedFromOtherThreads() =
        TestSchedulers.withBoundScheduler(0) { _ ->
            val caller = workerThread()
            val total = runSuspending {
                val outer = withContext(Dispatchers.IO) { 1 }
                assertSame(caller, workerThread())
                val inner = async {
                    runSuspending { // a coroutine's fiber waits here, on the same bound thread
                        val fromIo = withContext(Dispatchers.IO) { 2 }
                        assertSame(caller, workerThread())
                        delay(1)
                        withTimeout(TestSchedulers.PATIENCE.toMillis()) { withContext(Dispatchers.IO) { fromIo } }
                    }
                }
                // Resumed from an IO thread while the inner call may still be waiting.
                val late = withContext(Dispatchers.IO) { 3 }
                assertSame(caller, workerThread())
                outer + inner.await() + late
            }
            assertEquals(6, total)
        }

    /**
     * runSuspending called by coroutines that run on the scheduler's own dispatcher (re-entrant):
     * each waits on its fiber, so even one worker thread runs every inner coroutine meanwhile.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = [0, 1, 2, 4])
    fun calledFromCoroutinesOnTheDispatcher_eachWaitsOnItsFiber_andNoneDeadlocks(workers: Int) =
        onScheduler(workers) { _ ->
            val callers = 50
            val sum = List(callers) { index ->
                async {
                    runSuspending {
                        assertNotNull(Fiber.current())
                        withContext(Dispatchers.IO) { delay(1); index }
                    }
                }
            }.awaitAll().sum()
            assertEquals(callers * (callers - 1) / 2, sum)
        }

    /**
     * A child started undispatched on an IO thread runs there until it first suspends: a `delay` or
     * `withTimeout` it starts there must wait, as its dispatches from that thread do (handed to the
     * bound thread on a zero-worker scheduler), not be refused as from an unbound thread and cancel
     * it. The timeout disposed before the bound thread set it must not be set at all: close, at the
     * end, would wait an hour for it.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = [0, 1, 2, 4])
    fun aDelayOrTimeoutStartedUndispatchedOnAnotherThread_waitsAndTimesOut_insteadOfCancellingTheCoroutine(workers: Int) =
        TestSchedulers.withBoundScheduler(workers) { _ ->
            val results = runSuspending {
                val scope = this
                withContext(Dispatchers.IO) {
                    listOf(
                        scope.async(start = CoroutineStart.UNDISPATCHED) { delay(10); "delayed" },
                        scope.async(start = CoroutineStart.UNDISPATCHED) {
                            withTimeout(TestSchedulers.PATIENCE.toMillis()) { delay(10); "within the timeout" }
                        },
                        scope.async(start = CoroutineStart.UNDISPATCHED) {
                            withTimeoutOrNull(10) { awaitCancellation() } ?: "timed out"
                        },
                        scope.async(start = CoroutineStart.UNDISPATCHED) { withTimeout(3_600_000) { "never set" } },
                    )
                }.awaitAll()
            }
            assertEquals(listOf("delayed", "within the timeout", "timed out", "never set"), results)
        }

    @OptIn(DelicateCoroutinesApi::class)
    @Test
    fun onABoundThreadOfAZeroWorkerSchedulerACoroutineResumedAfterTheCallReturnedIsRefusedWithoutAdvisingBind() =
        TestSchedulers.withBoundScheduler(0) { _ ->
            val gate = CompletableDeferred<Unit>()
            val outlived = runSuspending {
                // Not a child (no Job), but with the rest of the call's context: it outlives the call,
                // whose thread no longer takes its steps. Started undispatched, it is suspended in
                // await() before the call returns.
                GlobalScope.launch(coroutineContext.minusKey(Job), CoroutineStart.UNDISPATCHED) {
                    gate.await()
                }
            }
            val resumer = TestSchedulers.startThread("resumer") { gate.complete(Unit) }
            resumer.join(TestSchedulers.PATIENCE.toMillis())
            assertFalse(resumer.isAlive)
            // The refused step was cancelled and unwound on Dispatchers.IO.
            val reason = TestSchedulers.get(CompletableFuture<Throwable>().also { reason ->
                outlived.invokeOnCompletion { reason.complete(it) }
            })
            val message = reason.message!!
            assertTrue(message.contains("thread resumer is not bound"), message)
            assertTrue(message.contains("worker threads"), message)
            assertFalse(message.contains("call bind()"), "the resuming thread cannot usefully bind: $message")
        }

    @ForEachWorkerCount
    fun aCancelledWaitCancelsTheCoroutineAndThrowsTheFibersException(workers: Int) {
        val scheduler = Scheduler(TestSchedulers.config(workers))
        val started = CountDownLatch(1)
        val coroutineCancelledWith = CompletableFuture<Throwable>()
        val callerGot = CompletableFuture<Throwable?>()
        val waiter = Runnable {
            try {
                runSuspending {
                    try {
                        started.countDown()
                        awaitCancellation()
                    } catch (e: CancellationException) {
                        coroutineCancelledWith.complete(e) // as a finally block would, it runs
                        throw e
                    }
                }
                callerGot.complete(null)
            } catch (e: Throwable) {
                callerGot.complete(e)
            }
        }
        if (workers == 0) {
            TestSchedulers.startThread("bound-waiter") { scheduler.bind().use { waiter.run() } }
        } else {
            scheduler.enqueue(Task(waiter))
        }
        assertTrue(started.await(TestSchedulers.PATIENCE.toMillis(), TimeUnit.MILLISECONDS))
        scheduler.close(Duration.ZERO) // gives up on the waiting fiber at once
        assertInstanceOf(FiberCancelledException::class.java, TestSchedulers.get(callerGot))
        val cancellation = TestSchedulers.get(coroutineCancelledWith)
        assertTrue(generateSequence(cancellation) { it.cause }.any { it is FiberCancelledException },
            "the coroutine was cancelled because its caller's wait was: $cancellation")
    }
}
