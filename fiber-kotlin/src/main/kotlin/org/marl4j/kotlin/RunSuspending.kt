package org.marl4j.kotlin

import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.async
import kotlinx.coroutines.runBlocking
import org.marl4j.Event
import org.marl4j.Fiber
import org.marl4j.Scheduler

/**
 * Runs the suspending [block] and returns its result, from code that is not suspending: the bridge
 * from fibers into coroutines.
 *
 * Called on a marl4j fiber (a task of a [Scheduler], or a thread bound to one), the block runs as a
 * coroutine on that scheduler's [MarlDispatcher] and only the calling *fiber* waits for it: the
 * worker thread goes on running other fibers meanwhile. Called anywhere else, it behaves exactly
 * like [runBlocking] and blocks the calling thread.
 *
 * Either way it is structured: [block] runs in its own [CoroutineScope], this returns only once
 * every child coroutine launched in that scope has finished, and an exception thrown by the block
 * or by a child is thrown here.
 *
 * ```kotlin
 * scheduler.enqueue(Task {
 *     val page = runSuspending { client.fetch(url) }   // suspends this fiber only
 *     render(page)
 * })
 * ```
 *
 * @param block the suspending code to run, with the new scope as its receiver.
 * @return what [block] returns.
 * @throws Throwable whatever [block] or one of its children threw.
 */
@OptIn(DelicateCoroutinesApi::class, ExperimentalCoroutinesApi::class)
public fun <T> runSuspending(block: suspend CoroutineScope.() -> T): T {
    if (Fiber.current() == null) {
        return runBlocking(block = block)
    }
    // Fiber.current() is non-null only on a worker or a bound thread, so a scheduler is bound here.
    val scheduler = Scheduler.get()
        ?: error("runSuspending found a fiber but no scheduler on thread ${Thread.currentThread().name}")
    val finished = Event(Event.Mode.MANUAL)
    // GlobalScope: the caller is not a coroutine, so there is no parent job to attach to; the
    // fiber below waits for the whole scope, which is what makes this call structured.
    val result = GlobalScope.async(scheduler.asCoroutineDispatcher(), block = block)
    result.invokeOnCompletion { finished.signal() }
    finished.await() // a fiber wait: the worker thread runs other fibers meanwhile
    return result.getCompleted()
}
