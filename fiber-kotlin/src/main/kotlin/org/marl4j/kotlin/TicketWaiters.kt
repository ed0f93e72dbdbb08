package org.marl4j.kotlin

import kotlinx.coroutines.CancellableContinuation
import org.marl4j.Ticket
import java.util.WeakHashMap
import kotlin.coroutines.resume

/**
 * TicketWaiters is the set of coroutines waiting in [Ticket.awaitSuspending] for one ticket: the
 * ticket gets a single `onCall` callback (this), however many coroutines wait or give up waiting.
 *
 * [Ticket.onCall] keeps every callback registered on a ticket until it is called, and has no way
 * to withdraw one: one callback per waiter made a ticket awaited in a `withTimeout` loop grow
 * without bound (and, while fiber-core still nested them, overflow the stack when called). Here a
 * cancelled waiter [remove]s itself at once, and the one callback resumes the waiters left.
 *
 * ```kotlin
 * val (waiters, first) = TicketWaiters.of(ticket)
 * if (!waiters.add(continuation)) continuation.resume(Unit)   // already called
 * if (first) ticket.onCall(waiters)
 * ```
 */
internal class TicketWaiters : Runnable {

    private val lock = Any()

    /** The waiting coroutines, oldest first; null once the ticket was called. Guarded by [lock]. */
    private var waiting: LinkedHashSet<CancellableContinuation<Unit>>? = LinkedHashSet()

    /**
     * add(continuation) adds a waiter, unless the ticket was called already.
     *
     * @param continuation the suspended `awaitSuspending` call.
     * @return false if the ticket was called: the caller resumes it itself.
     */
    fun add(continuation: CancellableContinuation<Unit>): Boolean = synchronized(lock) {
        waiting?.add(continuation) != null
    }

    /**
     * remove(continuation) withdraws a cancelled waiter, so it leaves nothing behind.
     *
     * @param continuation the cancelled `awaitSuspending` call.
     */
    fun remove(continuation: CancellableContinuation<Unit>) {
        synchronized(lock) { waiting?.remove(continuation) }
    }

    /** Resumes every waiter: the ticket was called. Runs once, as the ticket's callback. */
    override fun run() {
        val called = synchronized(lock) { waiting.also { waiting = null } } ?: return
        // Outside the lock: a resumption dispatches, and a cancelled waiter ignores it.
        called.forEach { it.resume(Unit) }
    }

    companion object {
        /**
         * The waiters of each ticket awaited; weak, so a ticket dropped without being called is not
         * kept. An entry stays after its ticket was called (its [add] then answers false), until
         * the ticket is collected. Guarded by itself.
         */
        private val BY_TICKET = WeakHashMap<Ticket, TicketWaiters>()

        /**
         * of(ticket) returns the waiters of [ticket], and whether they are new: then the caller
         * registers them as the ticket's callback.
         *
         * @param ticket the ticket awaited.
         * @return the ticket's waiters, and true if this call created them.
         */
        fun of(ticket: Ticket): Pair<TicketWaiters, Boolean> = synchronized(BY_TICKET) {
            BY_TICKET[ticket]?.let { it to false } ?: TicketWaiters().let { BY_TICKET[ticket] = it; it to true }
        }
    }
}
