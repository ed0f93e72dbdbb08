package org.marl4j.kotlin

import kotlinx.coroutines.async
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.marl4j.Event
import org.marl4j.ForEachWorkerCount
import org.marl4j.WaitGroup
import org.marl4j.futures.Futures
import java.util.concurrent.CompletableFuture

/**
 * Coroutines on a MarlDispatcher run on fibers, so fiber-blocking calls inside them suspend the
 * fiber, not the worker thread. With ONE worker thread, the waiter and the coroutine that releases
 * it share that thread: if the wait blocked the thread, these tests would hang.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class FiberBlockingInCoroutinesTest {

    @Test
    fun waitGroupAwaitSuspendsTheFiberNotTheOnlyWorkerThread() = onScheduler(1) { scheduler ->
        val wg = WaitGroup(1)
        withContext(scheduler.asCoroutineDispatcher()) {
            val waiterThread = async { wg.await(); Thread.currentThread() }
            val releaserThread = async { wg.done(); Thread.currentThread() }
            assertSame(waiterThread.await(), releaserThread.await(), "both ran on the one worker thread")
        }
    }

    @Test
    fun futuresAwaitSuspendsTheFiberNotTheOnlyWorkerThread() = onScheduler(1) { scheduler ->
        val future = CompletableFuture<String>()
        withContext(scheduler.asCoroutineDispatcher()) {
            val waiter = async { Futures.await(future) }
            launch { future.complete("done") }
            assertEquals("done", waiter.await())
        }
    }

    @ForEachWorkerCount
    fun manyCoroutinesWaitOnOneEventAtOnce(workers: Int) = onScheduler(workers) { scheduler ->
        val go = Event(Event.Mode.MANUAL)
        val wg = WaitGroup(200)
        withContext(scheduler.asCoroutineDispatcher()) {
            repeat(200) {
                launch {
                    go.await()
                    wg.done()
                }
            }
            launch { go.signal() }
        }
        assertEquals(0, wg.count())
    }
}
