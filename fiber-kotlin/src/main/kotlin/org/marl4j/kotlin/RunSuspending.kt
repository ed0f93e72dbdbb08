package org.marl4j.kotlin

import kotlinx.coroutines.CancellationException
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
 * On a thread bound to a scheduler with no worker threads, that thread runs the coroutines, and a
 * coroutine step another thread resumes (`withContext(Dispatchers.IO) { ... }` returning, a
 * `Deferred` completed elsewhere) is handed to it while this call waits, as [runBlocking]'s event
 * loop takes them; a step of a coroutine on a `limitedParallelism` view of the scheduler's
 * dispatcher too.
 *
 * If the waiting fiber's wait is cancelled (a [org.marl4j.FiberCancellation] around the call is
 * cancelled, as `Future.cancel(true)` and a disposed Reactor task do, or [Scheduler.close] with a
 * timeout gives up: either throws a [org.marl4j.FiberCancelledException] from it), the coroutine
 * is cancelled, so its `finally`
 * blocks run on the scheduler, and the fiber's exception is thrown here without waiting for them,
 * as [runBlocking] does when its thread is interrupted.
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
 * @throws Throwable whatever [block] or one of its children threw, or what the fiber's wait threw.
 */
@OptIn(DelicateCoroutinesApi::class, ExperimentalCoroutinesApi::class)
public fun <T> runSuspending(block: suspend CoroutineScope.() -> T): T {
    if (Fiber.current() == null) {
        return runBlocking(block = block)
    }
    // Fiber.current() is non-null only on a worker or a bound thread, so a scheduler is bound here.
    val scheduler = Scheduler.get()
        ?: error("runSuspending found a fiber but no scheduler on thread ${Thread.currentThread().name}")
    val wake = Event(Event.Mode.AUTO)
    // Without worker threads only this thread may enqueue the coroutine's steps: the inbox brings it
    // those that other threads dispatch.
    val inbox = if (scheduler.config().workerThreadCount == 0) {
        BoundThreadInbox(scheduler, BoundThreadInbox.currentWorkerThread(), wake)
    } else {
        null
    }
    val dispatcher = scheduler.asCoroutineDispatcher()
    // GlobalScope: the caller is not a coroutine, so there is no parent job to attach to; the
    // fiber below waits for the whole scope, which is what makes this call structured.
    val result = GlobalScope.async(if (inbox == null) dispatcher else dispatcher + inbox, block = block)
    result.invokeOnCompletion { wake.signal() }
    try {
        while (!result.isCompleted) {
            wake.await() // a fiber wait: the worker thread runs other fibers (and the coroutine) meanwhile
            inbox?.drainInto(dispatcher)
        }
    } catch (stopped: Throwable) {
        // The fiber cannot wait any more (its scheduler's close gave up on it): leave nothing running
        // behind it. The cancellation is dispatched from here, so the coroutine unwinds on this
        // fiber's worker; every later wait of the fiber would throw at once, so it is not awaited.
        result.cancel(CancellationException("the fiber waiting in runSuspending stopped waiting: $stopped", stopped))
        throw stopped
    } finally {
        inbox?.close(dispatcher)
    }
    return result.getCompleted()
}
