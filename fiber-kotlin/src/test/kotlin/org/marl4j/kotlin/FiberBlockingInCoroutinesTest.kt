package org.marl4j.kotlin

import kotlinx.coroutines.async
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.marl4j.Event
import org.marl4j.ForEachWorkerCount
import org.marl4j.WaitGroup
import org.marl4j.futures.Futures
import org.marl4j.reactive.Publishers
import reactor.core.publisher.Mono
import reactor.core.publisher.Sinks
import java.time.Duration
import java.util.concurrent.atomic.AtomicBoolean
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
            val waiterThread = async { wg.await(); workerThread() }
            val releaserThread = async { wg.done(); workerThread() }
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

    @Test
    fun publishersAwaitFirstOnASinkSuspendsTheFiberNotTheOnlyWorkerThread() = onScheduler(1) { scheduler ->
        val sink = Sinks.one<String>()
        withContext(scheduler.asCoroutineDispatcher()) {
            val waiter = async { Publishers.awaitFirst(sink.asMono()) to workerThread() }
            // The sink is emitted from another coroutine on the same, only, worker thread: if
            // awaitFirst held that thread, this would never run and the test would hang.
            val emitter = async { sink.tryEmitValue("first"); workerThread() }
            val (value, waiterThread) = waiter.await()
            assertEquals("first", value)
            assertSame(waiterThread, emitter.await(), "both ran on the one worker thread")
        }
    }

    @Test
    fun publishersAwaitFirstOnAMonoDelayLetsAnotherCoroutineRun() = onScheduler(1) { scheduler ->
        val waiterDone = AtomicBoolean()
        val subscribed = Event(Event.Mode.MANUAL)
        withContext(scheduler.asCoroutineDispatcher()) {
            val waiter = async {
                val tick = Mono.delay(Duration.ofMillis(500)).doOnSubscribe { subscribed.signal() }.map { "tick" }
                Publishers.awaitFirst(tick).also { waiterDone.set(true) }
            }
            // Runs once awaitFirst has subscribed. Had awaitFirst blocked the only worker thread,
            // this would run only after the waiter finished, and see waiterDone.
            val other = async { subscribed.awaitSuspending(); waiterDone.get() }
            assertFalse(other.await(), "another coroutine ran on the one worker thread while awaitFirst waited")
            assertEquals("tick", waiter.await())
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
