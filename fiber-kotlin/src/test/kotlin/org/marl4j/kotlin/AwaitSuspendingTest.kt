package org.marl4j.kotlin

import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.async
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.withTimeoutOrNull
import kotlinx.coroutines.yield
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
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
import org.marl4j.ForEachWorkerCount
import org.marl4j.Scheduler
import org.marl4j.TestSchedulers
import org.marl4j.Ticket
import org.marl4j.WaitGroup

@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AwaitSuspendingTest {

    @ForEachWorkerCount
    fun waitGroupAwaitSuspendingReturnsWhenTheCountReachesZero(workers: Int) = onScheduler(workers) { scheduler ->
        val wg = WaitGroup(100)
        withContext(scheduler.asCoroutineDispatcher()) {
            val waiters = List(10) { async { wg.awaitSuspending(); wg.count() } }
            repeat(100) { launch { wg.done() } }
            assertEquals(List(10) { 0 }, waiters.map { it.await() })
        }
        wg.awaitSuspending() // already zero: returns at once
    }

    @ForEachWorkerCount
    fun eventAwaitSuspendingConsumesAnAutoSignal(workers: Int) = onScheduler(workers) { scheduler ->
        val event = Event(Event.Mode.AUTO)
        withContext(scheduler.asCoroutineDispatcher()) {
            val waiter = async { event.awaitSuspending(); "woken" }
            yield()
            event.signal()
            assertEquals("woken", waiter.await())
            assertFalse(event.isSignalled(), "the waiter consumed the AUTO signal")
            event.signal()
            event.awaitSuspending() // already signalled: consumes at once
            assertFalse(event.isSignalled())
        }
    }

    @ForEachWorkerCount
    fun ticketAwaitSuspendingReturnsInTicketOrder(workers: Int) = onScheduler(workers) { scheduler ->
        val queue = Ticket.Queue()
        val order = java.util.concurrent.ConcurrentLinkedQueue<Int>()
        withContext(scheduler.asCoroutineDispatcher()) {
            val tickets = List(20) { queue.take() }
            tickets.withIndex().reversed().forEach { (i, ticket) ->
                launch {
                    ticket.awaitSuspending()
                    order.add(i)
                    ticket.done()
                }
            }
        }
        assertEquals((0 until 20).toList(), order.toList())
    }

    @Test
    fun theWaitingCoroutineDoesNotHoldTheOnlyWorkerThread() = onScheduler(1) { scheduler ->
        val wg = WaitGroup(1)
        val event = Event(Event.Mode.MANUAL)
        val queue = Ticket.Queue()
        val first = queue.take()
        val second = queue.take()
        withContext(scheduler.asCoroutineDispatcher()) {
            val waiting = launch {
                wg.awaitSuspending()
                event.awaitSuspending()
                second.awaitSuspending()
            }
            launch { wg.done() }
            launch { event.signal() }
            launch { first.done() }
            waiting.join()
        }
    }

    @ForEachWorkerCount
    fun aCancelledEventWaiterNeverConsumesTheSignal(workers: Int) = onScheduler(workers) { scheduler ->
        val event = Event(Event.Mode.AUTO)
        withContext(scheduler.asCoroutineDispatcher()) {
            val cancelled = launch { event.awaitSuspending() }
            yield()
            cancelled.cancelAndJoin()
            event.signal()
            val next = async { event.awaitSuspending(); true }
            assertTrue(next.await(), "the signal reached the next waiter")
        }
        assertNoHelperLeft(scheduler)
    }

    @ForEachWorkerCount
    fun withTimeoutWorksAroundEveryAwaitSuspending(workers: Int) = onScheduler(workers) { scheduler ->
        val queue = Ticket.Queue()
        queue.take() // never done: the next ticket is never called
        val ticket = queue.take()
        withContext(scheduler.asCoroutineDispatcher()) {
            assertThrows<TimeoutCancellationException> { withTimeout(10) { WaitGroup(1).awaitSuspending() } }
            assertThrows<TimeoutCancellationException> { withTimeout(10) { Event().awaitSuspending() } }
            assertThrows<TimeoutCancellationException> { withTimeout(10) { ticket.awaitSuspending() } }
        }
        assertNoHelperLeft(scheduler)
    }

    /**
     * A ticket awaited in a loop of timeouts: a cancelled waiter must not leave an `onCall`
     * callback chained onto the ticket's, or the call would run them one nested frame each, and
     * 100,000 would overflow the stack and leave the waiters still there never resumed.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = [0, 1, 2, 4])
    fun aTicketWith100kCancelledWaiters_stillResumesEveryLiveWaiter_whenCalled(workers: Int) = onScheduler(workers) { scheduler ->
        val queue = Ticket.Queue()
        val first = queue.take()
        val second = queue.take()
        withContext(scheduler.asCoroutineDispatcher()) {
            repeat(100_000) {
                launch(start = CoroutineStart.UNDISPATCHED) { second.awaitSuspending() }.cancel()
            }
            val live = List(10) { launch(start = CoroutineStart.UNDISPATCHED) { second.awaitSuspending() } }
            first.done()
            val resumed = withTimeoutOrNull(TestSchedulers.PATIENCE.toMillis()) { live.forEach { it.join() } }
            live.forEach { it.cancel() } // if not resumed: let the scope end, and fail below
            assertNotNull(resumed, "the called ticket resumed its live waiters")
            assertTrue(live.none { it.isCancelled })
        }
    }

    /**
     * Cleanup after close: the coroutine unwinds on Dispatchers.IO, where its ticket wait cannot
     * register the callback on the closed scheduler. The fallback registered it from a virtual
     * thread instead, where onCall throws (no scheduler is bound there), so the wait never ended,
     * and neither did the NonCancellable cleanup. Now the wait ends when the ticket is called (its
     * resumption is refused too, so it ends cancelled, as every step after close does, and so does
     * the cleanup's join: what is checked is that both end).
     * (Zero workers does not apply: the launch from this unbound thread is refused before it starts.)
     */
    @OptIn(kotlinx.coroutines.DelicateCoroutinesApi::class)
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = [1, 2, 4])
    fun aTicketAwaitedInCleanupAfterClose_stopsWaitingWhenTheTicketIsCalled(workers: Int) {
        val scheduler = Scheduler(TestSchedulers.config(workers))
        val queue = Ticket.Queue()
        val first = queue.take()
        val second = queue.take()
        val gate = kotlinx.coroutines.CompletableDeferred<Unit>()
        val waiting = java.util.concurrent.atomic.AtomicBoolean()
        val waitEnded = java.util.concurrent.atomic.AtomicBoolean()
        val job = kotlinx.coroutines.GlobalScope.launch(scheduler.asCoroutineDispatcher()) {
            try {
                waiting.set(true)
                gate.await() // suspended here, holding no task, while the scheduler closes
            } finally {
                withContext(kotlinx.coroutines.NonCancellable) {
                    // Undispatched: the wait is registered before the ticket is called below.
                    val wait = async(start = CoroutineStart.UNDISPATCHED) { second.awaitSuspending() }
                    wait.invokeOnCompletion { waitEnded.set(true) }
                    first.done()
                    wait.join()
                }
            }
        }
        org.awaitility.Awaitility.await().atMost(TestSchedulers.PATIENCE).until { waiting.get() }
        scheduler.close()
        gate.complete(Unit) // its resumption is refused: cancelled, it unwinds on Dispatchers.IO
        org.awaitility.Awaitility.await().atMost(TestSchedulers.PATIENCE).until { job.isCompleted }
        assertTrue(waitEnded.get())
    }

    /**
     * On a zero-worker scheduler, a child of a waiting runSuspending call started undispatched on an
     * IO thread: the ticket's callback cannot be enqueued from there, so a virtual thread waits.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = [0, 1, 2, 4])
    fun aTicketAwaitedUndispatchedOnAnotherThread_returnsWhenTheTicketIsCalled(workers: Int) =
        TestSchedulers.withBoundScheduler(workers) { _ ->
            val queue = Ticket.Queue()
            val first = queue.take()
            val second = queue.take()
            val result = runSuspending {
                val scope = this
                val waiter = withContext(kotlinx.coroutines.Dispatchers.IO) {
                    scope.async(start = CoroutineStart.UNDISPATCHED) { second.awaitSuspending(); "called" }
                }
                first.done()
                withTimeoutOrNull(TestSchedulers.PATIENCE.toMillis()) { waiter.await() }.also { waiter.cancel() }
            }
            assertEquals("called", result)
        }

    /**
     * A ticket awaited through a `limitedParallelism` view (and an alias of one) registers its callback
     * on the view's scheduler, as on the dispatcher itself. Taking a view for "no marl4j
     * scheduler" would, with zero workers, leave a virtual thread parked until the ticket is called,
     * after its waiter was cancelled.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = [0, 1, 2, 4])
    fun aCancelledTicketWaiterOnAView_leavesNoVirtualThreadWaiting(workers: Int) = onScheduler(workers) { scheduler ->
        val queue = Ticket.Queue()
        queue.take() // never done: the tickets below are never called
        val before = ticketWaitingThreads() // left by other tests, waiting for tickets never called
        val view = scheduler.asCoroutineDispatcher().limitedParallelism(2)
        for (dispatcher in listOf(view, view.limitedParallelism(4, "alias"))) {
            val ticket = queue.take()
            withContext(dispatcher) {
                assertNull(withTimeoutOrNull(10) { ticket.awaitSuspending() })
            }
        }
        assertTrue(ticketWaitingThreads() <= before, "a virtual thread waits for a ticket")
    }

    /** How many virtual threads wait for a ticket in Ticket.awaitSuspending's stead. */
    private fun ticketWaitingThreads(): Int = threadDump().split("marl4j-ticket-await").size - 1

    /** A dump of every thread, virtual ones included (Thread.getAllStackTraces leaves them out). */
    private fun threadDump(): String {
        val file = java.nio.file.Files.createTempDirectory("marl4j-threads").resolve("threads.json")
        java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean::class.java)
            .dumpThreads(file.toString(), com.sun.management.HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON)
        return java.nio.file.Files.readString(file).also {
            java.nio.file.Files.delete(file)
            java.nio.file.Files.delete(file.parent)
        }
    }

    @Test
    fun aCancelledWaiterDoesNotHoldUpClose() {
        val scheduler = Scheduler(TestSchedulers.config(2))
        val wg = WaitGroup(1)
        kotlinx.coroutines.runBlocking(scheduler.asCoroutineDispatcher()) {
            val waiter = launch(start = CoroutineStart.DEFAULT) { wg.awaitSuspending() }
            yield()
            waiter.cancelAndJoin()
        }
        org.junit.jupiter.api.assertTimeoutPreemptively(TestSchedulers.PATIENCE) { scheduler.close() }
    }

    @Test
    fun inVirtualTimeAWaiterTimesOutAndLeavesTheSignal() = runTest {
        val event = Event(Event.Mode.AUTO)
        assertThrows<TimeoutCancellationException> { withTimeout(60_000) { event.awaitSuspending() } }
        event.signal()
        assertTrue(event.test(), "the signal was lost to a cancelled waiter")
    }

    @Test
    fun inVirtualTimeAWaiterIsResumedBySignal() = runTest {
        val wg = WaitGroup(1)
        val waiter = async { wg.awaitSuspending(); "done" }
        yield()
        wg.done()
        assertEquals("done", waiter.await())
        assertEquals(0, wg.count())
    }

    /**
     * Waits (as a coroutine, so a zero-worker scheduler's fibers keep running) until the only
     * blocked fiber is the test thread's main fiber, waiting in onScheduler's runSuspending: no
     * cancelled waiter leaves a fiber behind.
     */
    private suspend fun assertNoHelperLeft(scheduler: Scheduler) {
        val left = withTimeoutOrNull(TestSchedulers.PATIENCE.toMillis()) {
            while (scheduler.stats().fibersBlocked() > 1) {
                delay(5)
            }
        }
        assertNotNull(left) { "helpers still blocked: ${scheduler.suspendedFibers()}" }
    }
}
