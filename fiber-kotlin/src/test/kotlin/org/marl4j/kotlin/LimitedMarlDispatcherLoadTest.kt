package org.marl4j.kotlin

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import kotlinx.coroutines.yield
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.CsvSource
import org.marl4j.Scheduler
import org.marl4j.TaskErrors
import org.marl4j.TestSchedulers
import java.util.concurrent.atomic.AtomicInteger
import kotlin.coroutines.EmptyCoroutineContext

/** limitedParallelism views under load: the limit with foreign resumes, tens of thousands of waiting steps, hand-offs the root refuses. */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LimitedMarlDispatcherLoadTest {

    /** Many steps parked behind one place when the bound thread unbinds at close: each hand-off must be accepted, iteratively. */
    @Test
    fun manyStepsWaitingAtClose_allRun_onAZeroWorkerScheduler() {
        val errors = TaskErrors()
        val ran = AtomicInteger()
        val n = 50_000
        Scheduler(errors.config(0)).use { scheduler ->
            scheduler.bind()
            val view = scheduler.asCoroutineDispatcher().limitedParallelism(1).limitedParallelism(1, "inner")
            repeat(n) { view.dispatch(EmptyCoroutineContext, Runnable { ran.incrementAndGet() }) }
        } // close unbinds: runs every step
        assertEquals(n, ran.get())
        assertTrue(errors.errors().isEmpty(), errors.errors().toString())
    }

    @ParameterizedTest(name = "{0} workers, view {1}")
    @CsvSource("0,1", "0,2/1", "2,1", "2,2", "2,2/1", "3,3/2")
    fun theLimitHolds_withStepsResumedFromForeignThreads(workers: Int, which: String) {
        val root = AtomicInteger()
        onScheduler(workers) { scheduler ->
            val d = scheduler.asCoroutineDispatcher()
            val parts = which.split("/").map { it.toInt() }
            var view: kotlinx.coroutines.CoroutineDispatcher = d
            for (p in parts) view = view.limitedParallelism(p)
            val limit = parts.min()
            val running = AtomicInteger()
            val max = AtomicInteger()
            val jobs = (1..50).map {
                launch(view) {
                    repeat(20) { i ->
                        val now = running.incrementAndGet()
                        max.accumulateAndGet(now, ::maxOf)
                        Thread.onSpinWait()
                        running.decrementAndGet()
                        if (i % 3 == 0) withContext(Dispatchers.IO) { } else yield()
                        root.incrementAndGet()
                    }
                }
            }
            jobs.joinAll()
            assertTrue(max.get() <= limit, "max ${max.get()} > $limit")
        }
        assertEquals(50 * 20, root.get())
    }

    /**
     * Many steps parked behind the view's one place, and the root refuses the hand-off (its policy
     * throws IllegalStateException, which MarlDispatcher.dispatch treats as a refusal): each step
     * must be refused once and run on Dispatchers.IO. releasePlace -> forward -> root.dispatch ->
     * refuse -> unwrapRefused -> releasePlace recurses once per parked step instead.
     */
    @Test
    fun handOffsTheRootRefuses_toManyWaitingSteps_refuseEachOnce_withoutRecursion() {
        val errors = TaskErrors()
        val ran = AtomicInteger()
        val n = 100_000
        val full = AtomicInteger() // how many more enqueues find the queue full
        val policy = { RefusingPolicy { if (full.getAndDecrement() > 0) IllegalStateException("Queue full") else null } }
        Scheduler(errors.config(0).setSchedulingPolicy(policy)).use { scheduler ->
            scheduler.bind()
            val view = scheduler.asCoroutineDispatcher().limitedParallelism(1)
            val release = org.marl4j.Event()
            view.dispatch(EmptyCoroutineContext, Runnable { release.await(); ran.incrementAndGet() })
            repeat(n - 1) { view.dispatch(EmptyCoroutineContext, Runnable { ran.incrementAndGet() }) }
            // Runs after every step above has started: the first waits for it, the others park; then
            // the queue is full for exactly the n - 1 hand-offs.
            scheduler.enqueue(org.marl4j.Task { full.set(n - 1); release.signal() })
        } // close unbinds: runs the tasks
        full.set(0)
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).until { ran.get() >= n }
        assertEquals(n, ran.get())
        assertTrue(errors.errors().none { generateSequence(it) { e -> e.cause }.any { e -> e is StackOverflowError } },
            errors.errors().take(3).toString())
    }
}
