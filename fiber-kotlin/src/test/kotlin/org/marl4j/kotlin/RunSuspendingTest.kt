package org.marl4j.kotlin

import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.assertThrows
import org.marl4j.Event
import org.marl4j.Fiber
import org.marl4j.ForEachWorkerCount
import org.marl4j.Scheduler
import org.marl4j.Task
import org.marl4j.TestSchedulers
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
            Thread.currentThread()
        }
        assertTrue(thread.name.startsWith(scheduler.config().threadNamePrefix))
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
            val caller = Thread.currentThread()
            assertNotNull(Fiber.current())
            val ran = runSuspending {
                delay(1)
                assertSame(caller, Thread.currentThread())
                Scheduler.get()
            }
            assertSame(scheduler, ran)
        }
}
