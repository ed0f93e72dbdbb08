package org.marl4j.examples

import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.withTimeoutOrNull
import org.marl4j.Event
import org.marl4j.Scheduler
import org.marl4j.Task
import org.marl4j.WaitGroup
import org.marl4j.futures.Futures
import org.marl4j.kotlin.asCoroutineDispatcher
import org.marl4j.kotlin.awaitSuspending
import org.marl4j.kotlin.runCancellable
import org.marl4j.kotlin.runSuspending
import java.util.concurrent.CompletableFuture

/**
 * KotlinExample runs Kotlin coroutines on a marl4j scheduler: a dispatcher whose `delay` uses
 * marl's timers, fiber-blocking calls inside coroutines (and cancelling them), suspending code
 * called from a fiber, and suspending waits on marl primitives. It finishes in well under a second.
 */
fun main() {
    dispatcher()
    fiberBlockingInCoroutines()
    runCancellableOnAFiber()
    runSuspendingOnAFiber()
    awaitSuspending()
}

private fun dispatcher() {
    // readme:begin kotlin-dispatcher
    Scheduler(Scheduler.Config.allCores()).use { scheduler ->
        val marl = scheduler.asCoroutineDispatcher()
        val squares = runBlocking(marl) {
            (1..10).map { i -> async { delay(10); i * i } }.awaitAll() // delay waits on marl's timers
        }
        println("Sum of squares: ${squares.sum()}")
    }
    // readme:end kotlin-dispatcher
}

private fun fiberBlockingInCoroutines() {
    // readme:begin kotlin-fiber-blocking
    // One worker thread: if a fiber-blocking wait held it, the releasing coroutine could never run.
    Scheduler(Scheduler.Config().setWorkerThreadCount(1)).use { scheduler ->
        runBlocking(scheduler.asCoroutineDispatcher()) {
            val ready = WaitGroup(1)
            launch {
                ready.await() // marl's own wait: suspends this coroutine's fiber, not the thread
                println("The waiting coroutine was released")
            }
            launch { ready.done() }
        }
    }
    // readme:end kotlin-fiber-blocking
}

private fun runCancellableOnAFiber() {
    Scheduler(Scheduler.Config().setWorkerThreadCount(1)).use { scheduler ->
        runBlocking(scheduler.asCoroutineDispatcher()) {
            // readme:begin kotlin-run-cancellable
            val reply = CompletableFuture<String>() // never completed
            val answer = withTimeoutOrNull(50) {
                runCancellable { Futures.await(reply) } // the timeout ends this fiber wait
            }
            println(answer ?: "No reply within 50 ms")
            // readme:end kotlin-run-cancellable
        }
    }
}

private fun runSuspendingOnAFiber() {
    Scheduler(Scheduler.Config.allCores()).use { scheduler ->
        // readme:begin kotlin-run-suspending
        val result = CompletableFuture<String>()
        scheduler.enqueue(Task {
            // A marl task (plain, non-suspending code on a fiber) calling suspending code:
            // only this fiber waits; the worker thread runs other tasks meanwhile.
            val greeting = runSuspending {
                delay(10)
                "Hello from a coroutine, called from a fiber"
            }
            result.complete(greeting)
        })
        println(result.join()) // Hello from a coroutine, called from a fiber
        // readme:end kotlin-run-suspending
    }
}

private fun awaitSuspending() {
    Scheduler(Scheduler.Config.allCores()).use { scheduler ->
        runBlocking(scheduler.asCoroutineDispatcher()) {
            // readme:begin kotlin-await-suspending
            val started = Event(Event.Mode.MANUAL)
            scheduler.enqueue(Task { started.signal() })    // signalled by a marl task
            started.awaitSuspending()                         // suspends the coroutine, never a thread
            try {
                withTimeout(20) { WaitGroup(1).awaitSuspending() } // never done: times out, cancellably
            } catch (timeout: TimeoutCancellationException) {
                println("Gave up waiting: ${timeout.message}")
            }
            // readme:end kotlin-await-suspending
            println("Done.")
        }
    }
}
