package org.marl4j.kotlin

import kotlinx.coroutines.CoroutineScope
import org.marl4j.Fiber
import org.marl4j.ForwardingPolicy
import org.marl4j.Scheduler
import org.marl4j.Task
import org.marl4j.TestSchedulers

/** The name kotlinx gives its fallback timer thread, which this module must never start. */
internal const val DEFAULT_EXECUTOR = "kotlinx.coroutines.DefaultExecutor"

/**
 * onScheduler(workers) { scheduler -> ... } creates a scheduler with [workers] worker threads,
 * binds it to the test thread and runs [body] as a coroutine on its dispatcher through
 * [runSuspending] (with zero workers, every coroutine then runs on the test thread's fibers);
 * then closes it and checks no worker thread outlived it.
 */
internal fun onScheduler(workers: Int, body: suspend CoroutineScope.(Scheduler) -> Unit) {
    TestSchedulers.withBoundScheduler(workers) { scheduler -> runSuspending { body(scheduler) } }
}

/**
 * workerThread() is the platform thread whose worker runs the calling code: the fiber's worker
 * thread (or bound thread), else the calling thread. Tests that check where a step ran ("on the
 * bound thread", "on the one worker thread") compare this, not `Thread.currentThread()`: on
 * [org.marl4j.FiberEngine.VIRTUAL_THREADS] each fiber is a virtual thread of its own, carried by
 * its worker's thread, so two fibers of one worker have different current threads; on
 * [org.marl4j.FiberEngine.CONTINUATIONS] both are the same thread.
 */
internal fun workerThread(): Thread = Fiber.current()?.workerThread() ?: Thread.currentThread()

/** defaultExecutorRunning() is whether kotlinx's DefaultExecutor thread is alive. */
internal fun defaultExecutorRunning(): Boolean =
    Thread.getAllStackTraces().keys.any { it.isAlive && it.name == DEFAULT_EXECUTOR }

/** yieldUntil(condition) yields the calling fiber until [condition] holds, failing after [TestSchedulers.PATIENCE]. */
internal fun yieldUntil(condition: () -> Boolean) {
    val deadline = System.nanoTime() + TestSchedulers.PATIENCE.toNanos()
    while (!condition()) {
        check(System.nanoTime() - deadline < 0) { "condition not met within ${TestSchedulers.PATIENCE}" }
        Fiber.yield()
    }
}

/**
 * A FIFO scheduling policy whose enqueue throws what [refusal] returns for each task (as a full
 * bounded queue's add() does), or queues the task when it returns null. The closure keeps each
 * test's switch its own, with no state shared between tests.
 */
internal class RefusingPolicy(private val refusal: () -> Throwable?) : ForwardingPolicy() {
    override fun enqueued(task: Task) {
        refusal()?.let { throw it }
        super.enqueued(task)
    }
}
