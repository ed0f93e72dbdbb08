package org.marl4j.kotlin

import kotlinx.coroutines.Delay
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.delay
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertNotSame
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource
import org.marl4j.Event
import org.marl4j.Fiber
import org.marl4j.Scheduler
import org.marl4j.TestSchedulers
import java.util.concurrent.CompletableFuture
import java.util.concurrent.atomic.AtomicInteger
import kotlin.coroutines.EmptyCoroutineContext

/** A view's `limitedParallelism(n, name)` that adds no limit returns an alias of the view: same limit, same queue, its own name. */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class NamedLimitedMarlDispatcherTest {

    @OptIn(InternalCoroutinesApi::class)
    @Test
    fun anAliasIsNamed_andIsAnotherNameForTheView() {
        Scheduler(TestSchedulers.config(1)).use { scheduler ->
            val view = scheduler.asCoroutineDispatcher().limitedParallelism(2)
            val alias = view.limitedParallelism(2, "db")
            assertInstanceOf(NamedLimitedMarlDispatcher::class.java, alias)
            assertNotSame(view, alias)
            assertEquals("db", alias.toString())
            assertEquals("wide", view.limitedParallelism(9, "wide").toString())
            assertInstanceOf(NamedLimitedMarlDispatcher::class.java, view.limitedParallelism(9, "wide"))
            assertTrue(alias.isDispatchNeeded(EmptyCoroutineContext))
            assertInstanceOf(Delay::class.java, alias)
        }
    }

    @Test
    fun anAliasesLimitedParallelism_answersAsTheViews() {
        Scheduler(TestSchedulers.config(1)).use { scheduler ->
            val view = scheduler.asCoroutineDispatcher().limitedParallelism(2)
            val alias = view.limitedParallelism(2, "db")
            assertSame(view, alias.limitedParallelism(2))
            assertSame(view, alias.limitedParallelism(7))
            val renamed = alias.limitedParallelism(3, "other")
            assertInstanceOf(NamedLimitedMarlDispatcher::class.java, renamed)
            assertEquals("other", renamed.toString())
            val narrower = alias.limitedParallelism(1)
            assertInstanceOf(LimitedMarlDispatcher::class.java, narrower)
            assertEquals(view.limitedParallelism(1).toString(), narrower.toString(), "a view of the view, not of the alias")
            assertEquals("narrow", alias.limitedParallelism(1, "narrow").toString())
            assertThrows<IllegalArgumentException> { alias.limitedParallelism(0) }
            assertThrows<IllegalArgumentException> { alias.limitedParallelism(0, "none") }
        }
    }

    /**
     * With limit 1: a step on the alias holds the view's one place, so a step on the view and one on
     * the alias wait in the view's queue behind it; then steps dispatched alternately to both,
     * yielding their fibers while they run, never run two at once.
     */
    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = [0, 1, 2, 4])
    fun stepsThroughTheAliasAndThroughTheView_shareOneLimitAndOneQueue(workers: Int) {
        val running = AtomicInteger()
        val most = AtomicInteger()
        val finished = AtomicInteger()
        val waitedTogether = AtomicInteger(-1)
        TestSchedulers.withBoundScheduler(workers) { scheduler ->
            val view = scheduler.asCoroutineDispatcher().limitedParallelism(1) as LimitedMarlDispatcher
            val alias = view.limitedParallelism(4, "alias")
            val done = CompletableFuture<Unit>()
            val total = STEPS + 3
            val step = Runnable {
                most.accumulateAndGet(running.incrementAndGet(), ::maxOf)
                Fiber.yield() // holding the place: other steps start meanwhile and must wait
                running.decrementAndGet()
                if (finished.incrementAndGet() == total) {
                    done.complete(Unit)
                }
            }
            val release = Event(Event.Mode.MANUAL)
            TestSchedulers.runOnFiber(scheduler) {
                alias.dispatch(EmptyCoroutineContext, Runnable { release.await(); step.run() })
                yieldUntil { view.placesTaken() == 1 }
                view.dispatch(EmptyCoroutineContext, step)
                alias.dispatch(EmptyCoroutineContext, step)
                yieldUntil { view.waitingSteps() == 2 }
                waitedTogether.set(view.waitingSteps())
                release.signal()
            }
            repeat(STEPS) { index ->
                (if (index % 2 == 0) alias else view).dispatch(EmptyCoroutineContext, step)
            }
            TestSchedulers.get(done)
        }
        assertEquals(2, waitedTogether.get(), "the alias's step and the view's waited in one queue")
        assertEquals(1, most.get(), "a step on the alias and one on the view ran at once")
    }

    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = [0, 2])
    fun delayAndWithTimeoutOnAnAlias_useTheSchedulersTimers(workers: Int) = onScheduler(workers) { scheduler ->
        val alias = scheduler.asCoroutineDispatcher().limitedParallelism(1).limitedParallelism(1, "timed")
        withContext(alias) {
            delay(1)
            assertSame(scheduler, Scheduler.get())
            withTimeout(TestSchedulers.PATIENCE.toMillis()) { delay(1) }
            assertSame(scheduler, Scheduler.get())
        }
        assertFalse(defaultExecutorRunning(), "$DEFAULT_EXECUTOR was started")
    }

    private companion object {
        /** Steps dispatched alternately through the alias and the view. */
        const val STEPS = 400
    }
}
