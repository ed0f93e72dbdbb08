package org.marl4j.kotlin

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.Job
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.withTimeout
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.assertTimeoutPreemptively
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.Arguments
import org.junit.jupiter.params.provider.MethodSource
import org.junit.jupiter.params.provider.ValueSource
import org.marl4j.Scheduler
import org.marl4j.TestSchedulers
import java.time.Duration
import java.util.Collections
import java.util.concurrent.ThreadLocalRandom
import java.util.concurrent.atomic.AtomicInteger

/** MarlDispatcher's timers (`delay`, `withTimeout`) and a [Scheduler.close] that races or gives up on them. */
@Timeout(120)
class MarlDispatcherCloseTest {

    /** The coroutine waits that only the dispatcher's timer can end, and the dispatcher they run on. */
    enum class Wait(val on: (MarlDispatcher) -> CoroutineDispatcher, val body: suspend CoroutineScope.() -> Unit) {
        DELAY({ it }, { delay(3_600_000) }),
        TIMEOUT({ it }, { withTimeout(3_600_000) { CompletableDeferred<Unit>().await() } }),
        DELAY_ON_A_VIEW({ it.limitedParallelism(1) }, { delay(3_600_000) }),
    }

    @ParameterizedTest(name = "{0}, {1} worker threads")
    @MethodSource("waitsAndWorkers")
    fun aTimerABoundedCloseDrops_cancelsItsCoroutine_whichUnwinds_insteadOfWaitingForEver(wait: Wait, workers: Int) {
        val unwound = AtomicInteger()
        val jobs = onClosingScheduler(workers, Duration.ofMillis(20)) { dispatcher ->
            List(3) {
                // UNDISPATCHED: the timer is set before launch returns, so before the close begins.
                CoroutineScope(wait.on(dispatcher)).launch(start = CoroutineStart.UNDISPATCHED) {
                    try {
                        wait.body(this)
                    } finally {
                        unwound.incrementAndGet()
                    }
                }
            }
        }
        await().atMost(TestSchedulers.PATIENCE).until { jobs.all { it.isCompleted } }
        assertEquals(3, unwound.get(), "every coroutine's finally block ran")
        for (job in jobs) {
            assertTrue(job.isCancelled)
            val cause = job.cancellation()
            assertTrue(cause.message!!.contains("close(timeout) gave up"), cause.message)
        }
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = [0, 1, 2, 4])
    fun timersRacingABoundedClose_eachFireOrCancelTheirCoroutine_andNoneIsLost(workers: Int) {
        repeat(ROUNDS) {
            val jobs = onClosingScheduler(workers, Duration.ZERO) { dispatcher ->
                List(COROUTINES) { index ->
                    CoroutineScope(dispatcher).launch(start = CoroutineStart.UNDISPATCHED) {
                        val millis = ThreadLocalRandom.current().nextLong(3)
                        if (index % 2 == 0) {
                            delay(millis)
                        } else {
                            withTimeout(millis) { awaitCancellation() }
                        }
                    }
                }
            }
            await().atMost(TestSchedulers.PATIENCE).until { jobs.all { it.isCompleted } }
        }
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = [0, 2])
    fun aTimeoutWhoseScopeEndsOnAnotherThread_isDisposed_andDoesNotHoldUpClose(workers: Int) {
        val scheduler = Scheduler(TestSchedulers.config(workers))
        scheduler.bind()
        try {
            // The timeout's scope ends when its child on Dispatchers.IO does, so it is disposed there.
            assertEquals(1, runSuspending { withTimeout(3_600_000) { launch(Dispatchers.IO) { }; 1 } })
        } finally {
            scheduler.close() // on this thread, which it unbinds; an hour-long timer left pending would hold it
        }
    }

    private companion object {
        const val ROUNDS = 20
        const val COROUTINES = 100

        @JvmStatic
        fun waitsAndWorkers(): List<Arguments> =
            Wait.entries.flatMap { wait -> listOf(0, 1, 2, 4).map { Arguments.of(wait, it) } }

        /**
         * Creates a scheduler with [workers] worker threads (bound to the test thread when there are
         * none), starts coroutines with [start], then closes the scheduler with [timeout] and checks
         * that none failed with anything but a cancellation; returns their jobs.
         */
        fun onClosingScheduler(workers: Int, timeout: Duration, start: (MarlDispatcher) -> List<Job>): List<Job> {
            val scheduler = Scheduler(TestSchedulers.config(workers))
            val errors = Collections.synchronizedList(ArrayList<Throwable>())
            val jobs: List<Job>
            if (workers == 0) {
                scheduler.bind() // the only thread that may set the timers of a scheduler without workers
            }
            jobs = start(scheduler.asCoroutineDispatcher())
            jobs.forEach { job -> job.invokeOnCompletion { cause -> if (cause != null && cause !is CancellationException) errors.add(cause) } }
            if (workers == 0) {
                scheduler.close(timeout) // unbinds this thread first: it must run here
            } else {
                assertTimeoutPreemptively(TestSchedulers.PATIENCE) { scheduler.close(timeout) }
            }
            assertTrue(errors.isEmpty(), "no coroutine failed: $errors")
            return jobs
        }

        @OptIn(InternalCoroutinesApi::class)
        fun Job.cancellation(): CancellationException = getCancellationException()
    }
}
