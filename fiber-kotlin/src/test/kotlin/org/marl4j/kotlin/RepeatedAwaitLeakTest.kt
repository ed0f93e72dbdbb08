package org.marl4j.kotlin

import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Job
import kotlinx.coroutines.delay
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.withTimeoutOrNull
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.Arguments
import org.junit.jupiter.params.provider.MethodSource
import org.marl4j.Event
import org.marl4j.RetainedObjects
import org.marl4j.Scheduler
import org.marl4j.TestSchedulers
import org.marl4j.Ticket
import org.marl4j.WaitGroup
import org.marl4j.WaitRounds
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * Every wait of a coroutine bridged to marl4j that ends without its condition leaves nothing behind
 * on the long-lived waitable, on the long-lived job its coroutines belong to, nor in the scheduler
 * ([RetainedObjects]): thousands of [awaitSuspending] waits on an [Event], a [WaitGroup] and a
 * [Ticket], and of [runCancellable] fiber waits, ended by the coroutine's cancellation or by
 * `withTimeoutOrNull`; and thousands of [runSuspending] calls whose fiber wait a
 * [org.marl4j.FiberCancellation] or a bounded [Scheduler.close] ends, cancelling the coroutine in
 * it.
 *
 * A bounded close does not end an [awaitSuspending] wait: no fiber waits there, only a callback,
 * which stays registered until the coroutine is resumed or cancelled, as the coroutine itself
 * does (its cancellation is tested here).
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RepeatedAwaitLeakTest {

    /**
     * A long-lived waitable no round satisfies, and a coroutine's wait on it, which holds the
     * coroutine's fiber if [holdsFiber] (a fiber wait), else only registers a callback.
     */
    internal class Waiting(val root: Any, val holdsFiber: Boolean = false, val wait: suspend () -> Unit)

    /** The coroutine waits on marl4j: the suspending ones, and a fiber wait in [runCancellable]. */
    enum class Bridge {
        EVENT_AUTO {
            override fun make() = Event(Event.Mode.AUTO).let { Waiting(it) { it.awaitSuspending() } }
        },
        EVENT_MANUAL {
            override fun make() = Event(Event.Mode.MANUAL).let { Waiting(it) { it.awaitSuspending() } }
        },
        WAIT_GROUP {
            override fun make() = WaitGroup(1).let { Waiting(it) { it.awaitSuspending() } }
        },
        TICKET {
            override fun make(): Waiting {
                val queue = Ticket.Queue()
                val first = queue.take() // never done: the second is never called
                val second = queue.take()
                return Waiting(listOf(first, second)) { second.awaitSuspending() }
            }
        },
        /** The dispatcher's own timed wait: what it leaves would be in the scheduler, whose gauge sees it. */
        DELAY {
            override fun make() = Waiting(Any()) { delay(TimeUnit.HOURS.toMillis(1)) }
        },
        RUN_CANCELLABLE {
            override fun make() = Event(Event.Mode.AUTO).let { Waiting(it, holdsFiber = true) { runCancellable { it.await() } } }
        };

        internal abstract fun make(): Waiting
    }

    @ParameterizedTest(name = "{0}, {1} worker threads")
    @MethodSource("bridgesAndWorkers")
    fun cancelledWaits_leaveNothingBehind(bridge: Bridge, workers: Int) = TestSchedulers.withBoundScheduler(workers) { scheduler ->
        val waiting = bridge.make()
        val parent = Job()
        RetainedObjects.assertBoundedOverRounds(ROUNDS, { round ->
            runSuspending {
                // Each waiter is in its wait before it is cancelled, not in a coroutine that has not
                // begun it: a callback wait is registered when an undispatched launch returns, and a
                // fiber wait shows as one more suspended fiber.
                val blockedBefore = scheduler.stats().fibersBlocked()
                val start = if (waiting.holdsFiber) CoroutineStart.DEFAULT else CoroutineStart.UNDISPATCHED
                val waiters = List(WaitRounds.WAITERS) {
                    CoroutineScope(scheduler.asCoroutineDispatcher() + parent).launch(start = start) { waiting.wait() }
                }
                if (waiting.holdsFiber) {
                    WaitRounds.awaitBlocked(scheduler, blockedBefore + WaitRounds.WAITERS)
                }
                waiters.forEach { it.cancel() }
                waiters.joinAll()
                assertTrue(waiters.all { it.isCancelled }, "round $round: every waiter was cancelled")
            }
        }, *gauges(waiting, parent, scheduler, workers))
        assertEquals(0, parent.children.count(), "coroutines left on the parent job")
    }

    @ParameterizedTest(name = "{0}, {1} worker threads")
    @MethodSource("bridgesAndWorkers")
    fun timedOutWaits_leaveNothingBehind(bridge: Bridge, workers: Int) = TestSchedulers.withBoundScheduler(workers) { scheduler ->
        val waiting = bridge.make()
        val parent = Job()
        RetainedObjects.assertBoundedOverRounds(ROUNDS, { round ->
            val timedOut = AtomicInteger()
            runSuspending {
                List(WaitRounds.WAITERS) {
                    CoroutineScope(scheduler.asCoroutineDispatcher() + parent).launch {
                        if (withTimeoutOrNull(1) { waiting.wait() } == null) {
                            timedOut.incrementAndGet()
                        }
                    }
                }.joinAll()
            }
            assertEquals(WaitRounds.WAITERS, timedOut.get(), "round $round: every wait timed out")
        }, *gauges(waiting, parent, scheduler, workers))
        assertEquals(0, parent.children.count(), "coroutines left on the parent job")
    }

    /**
     * Off marl4j (a coroutine on a plain executor, no scheduler bound), the suspending waits have
     * no marl4j scheduler to run a callback on; a cancelled one must still leave nothing behind.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("suspendingBridges")
    fun cancelledWaitsOffMarl4j_leaveNothingBehind(bridge: Bridge) {
        val waiting = bridge.make()
        val parent = Job()
        val executor = Executors.newSingleThreadExecutor()
        try {
            val dispatcher = executor.asCoroutineDispatcher()
            RetainedObjects.assertBoundedOverRounds(ROUNDS, { round ->
                runBlocking(dispatcher) {
                    val waiters = List(WaitRounds.WAITERS) {
                        CoroutineScope(dispatcher + parent).launch(start = CoroutineStart.UNDISPATCHED) { waiting.wait() }
                    }
                    waiters.forEach { it.cancel() }
                    waiters.joinAll()
                    assertTrue(waiters.all { it.isCancelled }, "round $round: every waiter was cancelled")
                }
            }, RetainedObjects.Gauge.of("the waitable", waiting.root), RetainedObjects.Gauge.of("the parent job", parent))
        } finally {
            executor.shutdown()
        }
    }

    /**
     * Not a wait that ends without its condition, but the same leak if it happened: a wait that
     * ends in time under a long `withTimeout` must take its timer back from the scheduler at once,
     * not leave it there until the deadline.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @MethodSource("workers")
    fun waitsThatEndInTime_leaveNoTimeoutBehind(workers: Int) = TestSchedulers.withBoundScheduler(workers) { scheduler ->
        RetainedObjects.assertBoundedOverRounds(ROUNDS, { _ ->
            val zero = WaitGroup(1)
            runSuspending {
                val waiters = List(WaitRounds.WAITERS) {
                    launch(scheduler.asCoroutineDispatcher(), start = CoroutineStart.UNDISPATCHED) {
                        withTimeout(TimeUnit.HOURS.toMillis(1)) { zero.awaitSuspending() }
                    }
                }
                zero.done()
                waiters.joinAll()
            }
        }, WaitRounds.schedulerGauge(scheduler, workers))
    }

    @ParameterizedTest(name = "{0} worker threads")
    @MethodSource("workers")
    fun runSuspendingWaitsCancelledByFiberCancellation_leaveNothingBehind(workers: Int) =
        TestSchedulers.withBoundScheduler(workers) { scheduler ->
            val event = Event(Event.Mode.AUTO)
            RetainedObjects.assertBoundedOverRounds(ROUNDS,
                { WaitRounds.runCancelled(scheduler) { runSuspending { event.awaitSuspending() } } },
                RetainedObjects.Gauge.of("the event", event), WaitRounds.schedulerGauge(scheduler, workers))
        }

    @ParameterizedTest(name = "{0} worker threads")
    @MethodSource("workers")
    fun runSuspendingWaitsABoundedCloseCancelled_leaveNothingBehind(workers: Int) {
        val event = Event(Event.Mode.AUTO)
        RetainedObjects.assertBoundedOverRounds(CLOSE_ROUNDS,
            { WaitRounds.runClosed(workers) { runSuspending { event.awaitSuspending() } } },
            RetainedObjects.Gauge.of("the event", event))
    }

    private fun gauges(waiting: Waiting, parent: Job, scheduler: Scheduler, workers: Int) = arrayOf(
        RetainedObjects.Gauge.of("the waitable", waiting.root),
        RetainedObjects.Gauge.of("the parent job", parent),
        WaitRounds.schedulerGauge(scheduler, workers),
    )

    companion object {
        /** Rounds of [WaitRounds.WAITERS] waits on one scheduler: 3,200 waits. */
        private val ROUNDS = if (TestSchedulers.stress()) 2_000 else 200

        /** Rounds of a bounded close, each with a scheduler of its own: 800 waits. */
        private val CLOSE_ROUNDS = if (TestSchedulers.stress()) 500 else 50

        @JvmStatic
        fun bridgesAndWorkers(): List<Arguments> =
            Bridge.entries.flatMap { bridge -> WORKERS.map { Arguments.of(bridge, it) } }

        /** The waits that suspend a coroutine without a fiber (not a delay: off marl4j, that one is kotlinx's). */
        @JvmStatic
        fun suspendingBridges(): List<Bridge> = listOf(Bridge.EVENT_AUTO, Bridge.EVENT_MANUAL, Bridge.WAIT_GROUP, Bridge.TICKET)

        @JvmStatic
        fun workers(): List<Int> = WORKERS

        private val WORKERS = listOf(0, 1, 2, 8)
    }
}
