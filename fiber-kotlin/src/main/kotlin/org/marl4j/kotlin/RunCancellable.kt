package org.marl4j.kotlin

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Job
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.ensureActive
import org.marl4j.Fiber
import org.marl4j.FiberCancellation
import org.marl4j.FiberCancelledException
import kotlin.coroutines.CoroutineContext

/**
 * Runs the fiber-blocking [block] on the calling coroutine's fiber and returns its result, ending
 * the block's marl4j waits if the coroutine is cancelled meanwhile: kotlinx's `runInterruptible`
 * for fiber waits, which interrupts do not reach.
 *
 * A coroutine on a [MarlDispatcher] may call fiber-blocking code (`Futures.await(stage)`,
 * `WaitGroup.await()`, any marl4j wait): it suspends the fiber, not the worker thread, but it does
 * not notice that the coroutine was cancelled, and waits until its condition holds, possibly for
 * ever. Inside `runCancellable`, a cancellation of the coroutine's job (`withTimeout`,
 * `job.cancel()`, its scope cancelled) while [block] runs cancels the block's waits, as
 * [FiberCancellation.cancel] does: the wait it is suspended in, and every later one until the block
 * ends, throws [FiberCancelledException], so the block unwinds and its `finally` blocks run. Then
 * `runCancellable` throws the coroutine's own [CancellationException] (so `withTimeout` throws its
 * `TimeoutCancellationException` and `withTimeoutOrNull` returns null), as `runInterruptible` turns
 * the interrupt into the job's cancellation.
 *
 * ```kotlin
 * val page = withTimeout(5.seconds) {
 *     runCancellable { Futures.await(client.fetch(url)) }  // the wait ends when the timeout fires
 * }
 * ```
 *
 * Cancellation is checked on entry and on exit, as `withContext` does: a coroutine already cancelled
 * does not run [block], and a result the block returns after the coroutine was cancelled is dropped
 * for the coroutine's [CancellationException]. A [FiberCancelledException] this call did not cause
 * (a [org.marl4j.Scheduler.close] with a timeout, a [FiberCancellation] opened around this call)
 * propagates unchanged, and so does any other exception the block throws, even one it throws
 * instead of the [FiberCancelledException] it caught.
 *
 * Off a fiber (`Dispatchers.IO`, `Dispatchers.Default`, a plain thread, a coroutine without a
 * [Job]) the block simply runs: there, marl4j's waits block the thread and, like
 * `CompletableFuture.join()`, do not answer interrupts, so nothing can end them early; use
 * `runInterruptible` for thread-blocking code there.
 *
 * Cost: nothing for coroutines that do not call it. A call on a fiber opens a [FiberCancellation]
 * and attaches a child [Job] to the coroutine's job for as long as [block] runs; the job's
 * cancellation reaches the fiber through that child's completion handler, on the cancelling
 * thread, with no dispatch. Nothing is left attached once this call returns.
 *
 * @param block the fiber-blocking code to run, on the calling coroutine's fiber.
 * @return what [block] returns.
 * @throws CancellationException the coroutine's own, if it was cancelled before or while [block] ran.
 * @throws Throwable whatever else [block] threw.
 */
public suspend fun <T> runCancellable(block: () -> T): T {
    val context = currentCoroutineContext()
    context.ensureActive()
    val job = context[Job]
    val result = if (job == null || Fiber.current() == null) block() else runOnFiber(context, job, block)
    context.ensureActive()
    return result
}

/**
 * Runs [block] on the calling fiber inside a [FiberCancellation] that is cancelled when [job] is.
 * Nothing here suspends the caller, so the scope is opened and closed on one fiber, as
 * [FiberCancellation.close] requires.
 */
private fun <T> runOnFiber(context: CoroutineContext, job: Job, block: () -> T): T {
    val cancellation = FiberCancellation.open()
    // A plain child Job, not a coroutine: cancelling the parent completes it at once, and its
    // completion handler runs on the cancelling thread, inside that cancel call. So nothing is
    // dispatched to reach the fiber, not even to a kotlinx unconfined loop that a fiber blocked in
    // Dispatchers.Unconfined code may hold busy on this worker thread.
    val watcher = Job(job)
    watcher.invokeOnCompletion { cause -> if (cause != null) cancellation.cancel() }
    try {
        return block()
    } catch (cancelled: FiberCancelledException) {
        // Only the parent's cancellation cancels the watcher (complete() below ends it normally,
        // after the close), so our scope was cancelled only if the job is cancelling: ensureActive
        // then throws the job's own exception, the one withTimeout recognises as its timeout.
        if (cancellation.isCancelled) {
            context.ensureActive()
        }
        throw cancelled
    } finally {
        cancellation.close()
        watcher.complete() // detaches it from the job, which would otherwise wait for it for ever
    }
}
