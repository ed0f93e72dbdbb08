package org.marl4j.kotlin

import kotlinx.coroutines.suspendCancellableCoroutine
import org.marl4j.Event
import org.marl4j.Scheduler
import org.marl4j.Task
import org.marl4j.Ticket
import org.marl4j.WaitGroup
import java.util.concurrent.RejectedExecutionException
import kotlin.coroutines.ContinuationInterceptor
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.coroutineContext
import kotlin.coroutines.resume

/**
 * Suspends the calling coroutine until this wait group's count is zero, without blocking its
 * thread; returns at once if it already is.
 *
 * No fiber or thread waits: the coroutine registers a one-shot [WaitGroup.onZero] callback that
 * resumes it (through its dispatcher) from the [WaitGroup.done] that brings the count to zero.
 * Cancellable: a cancelled waiter resumes at once with the [kotlinx.coroutines.CancellationException]
 * and withdraws its callback, so it leaves nothing behind on the wait group. `withTimeout` works
 * around it.
 */
public suspend fun WaitGroup.awaitSuspending() {
    if (count() == 0) {
        return
    }
    suspendCancellableCoroutine { continuation ->
        val registration = onZero { continuation.resume(Unit) }
        continuation.invokeOnCancellation { registration.cancel() }
    }
}

/**
 * Suspends the calling coroutine until this event is signalled, without blocking its thread, and
 * then consumes the signal as [Event.await] does (an [Event.Mode.AUTO] event is cleared).
 *
 * No fiber or thread waits: the coroutine registers a one-shot [Event.onSignal] callback that
 * resumes it (through its dispatcher) from the [Event.signal] that releases it; an AUTO signal
 * releases exactly one waiter. Cancellable: a cancelled waiter withdraws its callback and so never
 * consumes a signal; if the signal reached its callback in the same instant the waiter was
 * cancelled, the callback raises the signal again for the next waiter. `withTimeout` works around it.
 *
 * The callback runs on the thread that signals; on a dispatcher that needs no dispatch
 * ([kotlinx.coroutines.Dispatchers.Unconfined]) the coroutine therefore continues inside that
 * [Event.signal] call, and a fiber-blocking call it makes before its next suspension holds up the
 * signaller.
 */
public suspend fun Event.awaitSuspending() {
    if (test()) {
        return
    }
    val handBack: ((Throwable, Unit, CoroutineContext) -> Unit)? =
        if (mode() == Event.Mode.AUTO) { _, _, _ -> signal() } else null
    suspendCancellableCoroutine { continuation ->
        // resume(value, onCancellation) calls onCancellation instead when the waiter was cancelled
        // meanwhile (or is cancelled before it runs again): the AUTO signal then goes back.
        val registration = onSignal { continuation.resume(Unit, handBack) }
        continuation.invokeOnCancellation { registration.cancel() }
    }
}

/**
 * Suspends the calling coroutine until this ticket is called, without blocking its thread; returns
 * at once if it already is.
 *
 * The ticket resumes its waiting coroutines from one [Ticket.onCall] callback, registered on the
 * first waiter's marl4j scheduler when it starts waiting, however many coroutines wait for it.
 * Cancellable: a cancelled waiter resumes at once and withdraws itself, so it leaves nothing behind
 * (a ticket awaited in a `withTimeout` loop does not grow). If the first waiter runs on no marl4j
 * scheduler, or on one that cannot take the callback (it is closed, or it has no worker threads and
 * the waiter runs on a thread not bound to it), a virtual thread waits for the ticket instead (and
 * stays parked until the ticket is called, even if every waiter is cancelled).
 */
public suspend fun Ticket.awaitSuspending() {
    if (isCalled()) {
        return
    }
    val host = hostScheduler()
    suspendCancellableCoroutine { continuation ->
        val (waiters, first) = TicketWaiters.of(this)
        if (!waiters.add(continuation)) {
            continuation.resume(Unit) // called since the check above
            return@suspendCancellableCoroutine
        }
        continuation.invokeOnCancellation { waiters.remove(continuation) }
        if (!first) {
            return@suspendCancellableCoroutine // the first waiter registered the callback
        }
        if (host == null || !registerOn(host, waiters)) {
            // No marl4j scheduler will run the callback: a virtual thread waits for the ticket.
            Thread.ofVirtual().name("marl4j-ticket-await").start { await(); waiters.run() }
        }
    }
}

/**
 * Registers [waiters] as this ticket's [Ticket.onCall] callback on [host]: at once if this thread
 * is bound to [host], else from a task of [host], since onCall needs a thread bound to its
 * scheduler (a virtual thread, which has none, would throw). Returns false if [host] refuses that
 * task: it is closing (a coroutine unwinding on `Dispatchers.IO` after a refusal), or it has no
 * worker threads and this thread is not bound to it.
 */
private fun Ticket.registerOn(host: Scheduler, waiters: TicketWaiters): Boolean {
    if (Scheduler.get() === host) {
        onCall(waiters)
        return true
    }
    return try {
        host.enqueue(Task { onCall(waiters) })
        true
    } catch (refused: RejectedExecutionException) {
        false
    } catch (notBound: IllegalStateException) {
        false
    }
}

/**
 * The marl4j scheduler to run a ticket's callback on: the scheduler of the coroutine's
 * [MarlDispatcher] or of a `limitedParallelism` view of one, else the scheduler of the calling
 * thread when it has worker threads (a zero-worker scheduler's tasks run only while its bound
 * thread waits in marl4j, which a thread running other coroutines need not do), else null.
 */
private suspend fun hostScheduler(): Scheduler? {
    when (val dispatcher = coroutineContext[ContinuationInterceptor]) {
        is MarlDispatcher -> return dispatcher.scheduler
        is LimitedMarlDispatcher -> return dispatcher.scheduler
        is NamedLimitedMarlDispatcher -> return dispatcher.scheduler
    }
    val bound = Scheduler.get() ?: return null
    return if (bound.config().workerThreadCount > 0) bound else null
}
