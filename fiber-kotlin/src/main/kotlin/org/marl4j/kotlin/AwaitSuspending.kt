package org.marl4j.kotlin

import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.suspendCancellableCoroutine
import org.marl4j.Event
import org.marl4j.Registration
import org.marl4j.Scheduler
import org.marl4j.Task
import org.marl4j.Ticket
import org.marl4j.WaitGroup
import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.atomic.AtomicReference
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
 * The coroutine registers a [Ticket.onCall] callback on its marl4j scheduler that resumes it.
 * Cancellable: a cancelled waiter resumes at once and withdraws its callback, so it leaves nothing
 * behind (a ticket awaited in a `withTimeout` loop does not grow). If the coroutine runs on no
 * marl4j scheduler, or on one that cannot take the registration (it is closed, or it has no worker
 * threads and the coroutine runs on a thread not bound to it), one virtual thread per ticket waits
 * for it instead, on behalf of every such waiter: a cancelled waiter withdraws from it at once, and
 * the virtual thread stays parked until the ticket is called.
 */
public suspend fun Ticket.awaitSuspending() {
    if (isCalled()) {
        return
    }
    val host = hostScheduler()
    suspendCancellableCoroutine { continuation ->
        val resume = Runnable { continuation.resume(Unit) } // ignored once the waiter is cancelled
        if (host == null || !registerOn(host, resume, continuation)) {
            awaitOnVirtualThread(resume, continuation)
        }
    }
}

/**
 * The waiters of tickets that no marl4j scheduler can call back, by ticket; guarded by itself.
 * One virtual thread per ticket waits for it (a plain thread's wait cannot be withdrawn), so
 * cancelled waiters leave the set, not a parked thread each.
 */
private val offSchedulerWaiters = HashMap<Ticket, MutableSet<Runnable>>()

/** Resumes [waiter] (through [resume]) once this ticket is called, from the ticket's one waiting virtual thread. */
private fun Ticket.awaitOnVirtualThread(resume: Runnable, waiter: CancellableContinuation<Unit>) {
    val ticket = this
    synchronized(offSchedulerWaiters) {
        offSchedulerWaiters.getOrPut(ticket) {
            Thread.ofVirtual().name("marl4j-ticket-await").start {
                ticket.await()
                val called = synchronized(offSchedulerWaiters) { offSchedulerWaiters.remove(ticket) }
                called?.forEach { it.run() }
            }
            LinkedHashSet()
        }.add(resume)
    }
    waiter.invokeOnCancellation { synchronized(offSchedulerWaiters) { offSchedulerWaiters[ticket]?.remove(resume) } }
}

/** What a waiter's registration slot holds once the waiter was cancelled. */
private object Withdrawn

/**
 * Registers [resume] as an [Ticket.onCall] callback on [host], withdrawn if [waiter] is cancelled:
 * at once if this thread is bound to [host], else from a task of [host], since onCall needs a
 * thread bound to its scheduler (a virtual thread, which has none, would throw). Returns false if
 * [host] refuses that task: it is closing (a coroutine unwinding on `Dispatchers.IO` after a
 * refusal), or it has no worker threads and this thread is not bound to it.
 */
private fun Ticket.registerOn(host: Scheduler, resume: Runnable, waiter: CancellableContinuation<Unit>): Boolean {
    if (Scheduler.get() === host) {
        val registration = onCall(resume)
        waiter.invokeOnCancellation { registration.cancel() }
        return true
    }
    // The registration is made later, by the task: whichever of it and a cancellation comes
    // second withdraws it.
    val slot = AtomicReference<Any?>(null)
    val register = Task {
        val registration = onCall(resume)
        if (!slot.compareAndSet(null, registration)) {
            registration.cancel()
        }
    }
    try {
        host.enqueue(register)
    } catch (refused: RejectedExecutionException) {
        return false
    } catch (notBound: IllegalStateException) {
        return false
    }
    waiter.invokeOnCancellation { (slot.getAndSet(Withdrawn) as? Registration)?.cancel() }
    return true
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
