package org.marl4j.kotlin

import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.suspendCancellableCoroutine
import org.marl4j.Event
import org.marl4j.Scheduler
import org.marl4j.Task
import org.marl4j.Ticket
import org.marl4j.WaitGroup
import java.time.Duration
import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.atomic.AtomicReference
import kotlin.coroutines.ContinuationInterceptor
import kotlin.coroutines.coroutineContext
import kotlin.coroutines.resume

/**
 * Suspends the calling coroutine until this wait group's count is zero, without blocking its
 * thread; returns at once if it already is.
 *
 * The wait itself is made by a helper: a task on the marl4j scheduler the coroutine runs on (its
 * [MarlDispatcher], or the scheduler of the calling worker thread), else a virtual thread. The
 * call is cancellable: a cancelled waiter resumes at once with the [kotlinx.coroutines.CancellationException],
 * and its helper stops waiting within [CANCEL_CHECK_INTERVAL]. `withTimeout` works around it.
 */
public suspend fun WaitGroup.awaitSuspending() {
    if (count() == 0) {
        return
    }
    awaitWithHelper({ timeout -> await(timeout) }, handBack = null)
}

/**
 * Suspends the calling coroutine until this event is signalled, without blocking its thread, and
 * then consumes the signal as [Event.await] does (an [Event.Mode.AUTO] event is cleared).
 *
 * The wait is made by a helper, as for [WaitGroup.awaitSuspending]. Cancellable: a cancelled
 * waiter never consumes a signal; if the helper took an AUTO signal in the same instant the waiter
 * was cancelled, it raises the signal again for the next waiter. `withTimeout` works around it.
 */
public suspend fun Event.awaitSuspending() {
    if (test()) {
        return
    }
    awaitWithHelper({ timeout -> await(timeout) }, handBack = if (mode() == Event.Mode.AUTO) this::signal else null)
}

/**
 * Suspends the calling coroutine until this ticket is called, without blocking its thread; returns
 * at once if it already is.
 *
 * The ticket resumes the coroutine from an [Ticket.onCall] callback registered on the coroutine's
 * marl4j scheduler. Cancellable: a cancelled waiter resumes at once and leaves behind only an
 * inert callback (it no longer references the coroutine), dropped when the ticket is called.
 * Off a marl4j scheduler there is no scheduler to run the callback, so a virtual thread waits
 * for the ticket instead (and stays parked until the ticket is called, even if the waiter is cancelled).
 */
public suspend fun Ticket.awaitSuspending() {
    if (isCalled()) {
        return
    }
    val host = hostScheduler()
    suspendCancellableCoroutine { continuation ->
        val waiter = AtomicReference<CancellableContinuation<Unit>?>(continuation)
        continuation.invokeOnCancellation { waiter.set(null) }
        val resume = Runnable { waiter.getAndSet(null)?.resume(Unit) }
        if (host == null) {
            Thread.ofVirtual().name("marl4j-ticket-await").start { await(); resume.run() }
        } else if (Scheduler.get() === host) {
            onCall(resume)
        } else {
            startHelper(host) { onCall(resume) }
        }
    }
}

/**
 * How often a helper blocked on a wait group or an event checks whether its waiter was cancelled,
 * so a cancelled waiter's helper is gone within this time. Long enough that thousands of waiters
 * cost a negligible number of wake-ups; short enough that cancellation does not hold up a
 * scheduler's close().
 */
internal val CANCEL_CHECK_INTERVAL: Duration = Duration.ofMillis(50)

/**
 * Suspends until [wait] (a timed fiber-blocking wait returning whether it succeeded) succeeds on a
 * helper. If the waiter is cancelled just as [wait] succeeds, [handBack] undoes what the wait consumed.
 */
private suspend fun awaitWithHelper(wait: (Duration) -> Boolean, handBack: (() -> Unit)?) {
    val host = hostScheduler()
    suspendCancellableCoroutine { continuation ->
        val helper = Runnable {
            while (continuation.isActive) {
                if (wait(CANCEL_CHECK_INTERVAL)) {
                    // resume(value, onCancellation) calls onCancellation instead if the waiter was
                    // cancelled meanwhile: the signal then goes back to the primitive.
                    continuation.resume(Unit) { _, _, _ -> handBack?.invoke() }
                    return@Runnable
                }
            }
        }
        if (host == null) {
            Thread.ofVirtual().name("marl4j-await").start(helper)
        } else {
            startHelper(host, helper)
        }
    }
}

/** Runs [helper] as a task of [host], or on a virtual thread if [host] refuses it (it is closing). */
private fun startHelper(host: Scheduler, helper: Runnable) {
    try {
        host.enqueue(Task(helper))
    } catch (refused: RejectedExecutionException) {
        Thread.ofVirtual().name("marl4j-await").start(helper)
    } catch (refused: IllegalStateException) {
        Thread.ofVirtual().name("marl4j-await").start(helper)
    }
}

/**
 * The marl4j scheduler to run a waiting helper on: the coroutine's [MarlDispatcher]'s, else the
 * scheduler of the calling thread when it has worker threads (a zero-worker scheduler's tasks run
 * only while its bound thread waits in marl4j, which a thread running other coroutines need not
 * do), else null.
 */
private suspend fun hostScheduler(): Scheduler? {
    val dispatcher = coroutineContext[ContinuationInterceptor]
    if (dispatcher is MarlDispatcher) {
        return dispatcher.scheduler
    }
    val bound = Scheduler.get() ?: return null
    return if (bound.config().workerThreadCount > 0) bound else null
}
