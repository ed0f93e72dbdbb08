package org.marl4j

import kotlinx.coroutines.Job
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.async
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.launch
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.withTimeoutOrNull
import kotlinx.coroutines.yield
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource
import org.marl4j.kotlin.asCoroutineDispatcher
import org.marl4j.kotlin.awaitSuspending
import org.marl4j.kotlin.onScheduler
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicIntegerArray

/**
 * awaitSuspending on Event and WaitGroup waits through a one-shot callback (Event.onSignal,
 * WaitGroup.onZero): no fiber or thread per waiter, and a cancelled waiter withdraws its callback.
 * In package org.marl4j to read the primitives' package-visible callback counts.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AwaitSuspendingRegistrationTest {

    // Not with zero workers: the bound thread alone takes ~20 s over it on this 2-core box.
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = [1, 4])
    fun hundredThousandCancelledWaitersLeaveNothingOnALongLivedEvent(workers: Int) = onScheduler(workers) { scheduler ->
        val event = Event(Event.Mode.AUTO)
        val wg = WaitGroup(1)
        withContext(scheduler.asCoroutineDispatcher()) {
            val waiters = List(WAITERS) { i -> launch { if (i % 2 == 0) event.awaitSuspending() else wg.awaitSuspending() } }
            eventually { event.callbackCount() + wg.callbackCount() == WAITERS }
            waiters.forEach { it.cancel() }
            waiters.joinAll()
        }
        assertEquals(0, event.callbackCount(), "cancelled waiters left callbacks on the event")
        assertEquals(0, wg.callbackCount(), "cancelled waiters left callbacks on the wait group")
        event.signal()
        assertTrue(event.isSignalled(), "no cancelled waiter consumed the signal")
    }

    @Test
    fun inVirtualTimeCancelledWaitersLeaveNothing() = runTest {
        val event = Event(Event.Mode.AUTO)
        val waiters = List(VT) { launch { event.awaitSuspending() } }
        yield()
        assertEquals(VT, event.callbackCount())
        waiters.forEach { it.cancel() }
        waiters.joinAll()
        assertEquals(0, event.callbackCount())
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = [0, 1, 2])
    fun withTimeoutWithdrawsTheCallbackAndLeavesTheSignal(workers: Int) = onScheduler(workers) { scheduler ->
        val event = Event(Event.Mode.AUTO)
        val wg = WaitGroup(1)
        withContext(scheduler.asCoroutineDispatcher()) {
            assertThrows<TimeoutCancellationException> { withTimeout(10) { event.awaitSuspending() } }
            assertThrows<TimeoutCancellationException> { withTimeout(10) { wg.awaitSuspending() } }
            assertEquals(0, event.callbackCount())
            assertEquals(0, wg.callbackCount())
            event.signal()
            assertTrue(event.isSignalled())
            val waiting = async { withTimeoutOrNull(TestSchedulers.PATIENCE.toMillis()) { wg.awaitSuspending(); "zero" } }
            eventually { wg.callbackCount() == 1 }
            wg.done()
            assertEquals("zero", waiting.await(), "a waiter under withTimeout still resumes when released")
        }
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = [0, 1, 2, 4])
    fun autoFairnessNWaitersNSignalsEachResumedOnce(workers: Int) = onScheduler(workers) { scheduler ->
        val n = 1_000
        val event = Event(Event.Mode.AUTO)
        val resumed = AtomicIntegerArray(n)
        withContext(scheduler.asCoroutineDispatcher()) {
            val waiters = List(n) { i -> launch { event.awaitSuspending(); resumed.incrementAndGet(i) } }
            eventually { event.callbackCount() == n }
            List(n) { launch { event.signal() } }.joinAll() // concurrent signals: none is lost to another
            waiters.joinAll()
        }
        assertEquals(List(n) { 1 }, List(n) { resumed.get(it) }, "each waiter resumed exactly once")
        assertFalse(event.isSignalled(), "every signal was consumed by one waiter")
    }

    @Test
    fun withOneWorkerWaitersHoldNoFiberAndAnotherCoroutineRuns() = onScheduler(1) { scheduler ->
        val event = Event(Event.Mode.MANUAL)
        val wg = WaitGroup(1)
        val ran = AtomicInteger()
        withContext(scheduler.asCoroutineDispatcher()) {
            val waiters = List(1_000) { i -> launch { if (i % 2 == 0) event.awaitSuspending() else wg.awaitSuspending(); ran.incrementAndGet() } }
            eventually { event.callbackCount() + wg.callbackCount() == 1_000 }
            // Only the test thread's own fiber (waiting in onScheduler's runSuspending) is blocked:
            // a helper fiber per waiter would show here.
            assertTrue(scheduler.stats().fibersBlocked() <= 1, "blocked fibers: ${scheduler.suspendedFibers()}")
            val other = async { "ran while they wait" } // the one worker thread is free
            assertEquals("ran while they wait", other.await())
            assertEquals(0, ran.get())
            event.signal()
            wg.done()
            waiters.joinAll()
        }
        assertEquals(1_000, ran.get())
    }

    /**
     * Cancelling a waiter while its AUTO signal arrives: either the waiter's awaitSuspending returns
     * normally having consumed the signal, or it throws and the signal is still there for the next one.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = [1, 2])
    fun cancelRacingSignalNeverLosesTheSignal(workers: Int) = onScheduler(workers) { scheduler ->
        val event = Event(Event.Mode.AUTO)
        withContext(scheduler.asCoroutineDispatcher()) {
            repeat(if (TestSchedulers.stress()) 20_000 else 2_000) { round ->
                val consumed = java.util.concurrent.atomic.AtomicBoolean()
                val waiter: Job = launch { event.awaitSuspending(); consumed.set(true) }
                eventually { event.callbackCount() == 1 }
                val signaller = launch { event.signal() }
                waiter.cancelAndJoin()
                signaller.join()
                // (Job.isCancelled is no witness: a job cancelled just after its wait returned ends cancelled too.)
                assertEquals(!consumed.get(), event.test(),
                        "round $round: the waiter ${if (consumed.get()) "consumed the signal, yet it is still raised" else "did not return, yet the signal is gone"}")
            }
        }
    }

    private suspend fun eventually(condition: () -> Boolean) {
        val met = withTimeoutOrNull(TestSchedulers.PATIENCE.toMillis()) {
            while (!condition()) {
                delay(1)
            }
        }
        assertNotNull(met, "condition not met within ${TestSchedulers.PATIENCE}")
    }

    private companion object {
        const val WAITERS = 100_000

        /** Fewer in virtual time: kotlinx-coroutines-test's scheduler takes ~2 ms per waiter here. */
        const val VT = 1_000
    }
}
