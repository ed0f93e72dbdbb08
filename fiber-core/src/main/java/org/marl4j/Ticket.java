package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.marl4j.WaitQueue.Waiter;

/**
 * Ticket serially orders work that otherwise runs concurrently: marl's {@code marl::Ticket}.
 * Tickets are taken from a {@link Queue}; the order they are taken in is the order they are
 * called. The first ticket of a queue is called at once; each later one is called when every
 * ticket before it is {@link #done()}.
 *
 * <pre>{@code
 * Ticket.Queue queue = new Ticket.Queue();
 * for (Chunk chunk : chunks) {
 *     Ticket ticket = queue.take();
 *     Marl.schedule(() -> {
 *         Result r = compute(chunk);   // runs concurrently
 *         ticket.await();              // waits for this ticket's turn
 *         output.write(r);             // runs in take() order, one at a time
 *         ticket.done();               // calls the next ticket
 *     });
 * }
 * }</pre>
 *
 * <p>A ticket is waiting, called, or finished. Unlike marl, where dropping the last reference to a
 * ticket finishes it, a Java ticket must be finished explicitly with {@link #done()}; a ticket that
 * is never finished holds up every ticket after it.
 */
public final class Ticket {

    /** Queue hands out tickets in the order they will be called. Thread-safe. */
    public static final class Queue {
        /** Guards every ticket's links, called flag, waiters and callbacks. */
        private final ReentrantLock lock = new ReentrantLock();
        /** The most recently taken unfinished ticket; guarded by lock. */
        @GuardedBy("lock")
        private Ticket tail;

        /** Queue() creates an empty queue: its first ticket is called at once. */
        public Queue() {}

        /**
         * take() returns a new ticket, behind every ticket taken before it.
         *
         * @return the new ticket
         */
        public Ticket take() {
            Ticket ticket = new Ticket(this);
            append(ticket, ticket);
            return ticket;
        }

        /**
         * take(count, consumer) takes {@code count} consecutive tickets, handing each to {@code
         * consumer} in call order.
         *
         * <p>If {@code consumer} throws, the exception reaches the caller, and the ticket it threw on
         * and those it never received leave the line (as if finished), so the tickets behind them
         * are still called; the tickets it received before keep their places.
         *
         * @param count how many tickets to take
         * @param consumer receives each ticket, in call order
         * @throws IllegalArgumentException if count is negative
         */
        @SuppressWarnings("GuardedBy") // links new tickets that no other thread sees before append()
        public void take(int count, Consumer<Ticket> consumer) {
            if (count < 0) {
                throw new IllegalArgumentException("ticket count must not be negative, was " + count);
            }
            Objects.requireNonNull(consumer, "consumer must not be null");
            if (count == 0) {
                return;
            }
            Ticket[] tickets = new Ticket[count];
            for (int i = 0; i < count; i++) {
                tickets[i] = new Ticket(this);
                if (i > 0) {
                    tickets[i - 1].next = tickets[i];
                    tickets[i].prev = tickets[i - 1];
                }
            }
            append(tickets[0], tickets[count - 1]);
            int handedOut = 0;
            try {
                for (Ticket ticket : tickets) {
                    consumer.accept(ticket);
                    handedOut++;
                }
            } catch (RuntimeException | Error e) {
                // Nobody holds the rest to finish them: the line behind them would wait forever.
                for (int i = handedOut; i < count; i++) {
                    try {
                        tickets[i].done();
                    } catch (RuntimeException | Error refused) {
                        e.addSuppressed(refused);
                    }
                }
                throw e;
            }
        }

        /** Links the chain first..last at the back; calls first if the queue was empty. */
        @SuppressWarnings("GuardedBy") // lock, held here, is the lock that first.queue.lock and tail.queue.lock name
        private void append(Ticket first, Ticket last) {
            lock.lock();
            try {
                first.prev = tail;
                if (tail != null) {
                    tail.next = first;
                } else {
                    first.called = true; // a new ticket has no waiters or callback yet
                }
                tail = last;
            } finally {
                lock.unlock();
            }
        }
    }

    private final Queue queue;
    private final AtomicBoolean done = new AtomicBoolean();
    // Guarded by queue.lock.
    @GuardedBy("queue.lock")
    private Ticket prev;
    @GuardedBy("queue.lock")
    private Ticket next;
    @GuardedBy("queue.lock")
    private boolean called;
    @GuardedBy("queue.lock")
    private final WaitQueue waiters = new WaitQueue();
    /** The onCall callbacks waiting for this ticket to be called; made at the first. Guarded by queue.lock. */
    @GuardedBy("queue.lock")
    private CallbackQueue onCall;
    /** The scheduler of the last onCall registration, which runs them all. Guarded by queue.lock. */
    @GuardedBy("queue.lock")
    private Scheduler onCallScheduler;

    private Ticket(Queue queue) {
        this.queue = queue;
    }

    /** await() blocks until this ticket is called. */
    public void await() {
        queue.lock.lock();
        try {
            while (!called) {
                waiters.await(queue.lock, false, 0);
            }
        } finally {
            queue.lock.unlock();
        }
    }

    /**
     * isCalled() returns whether this ticket has been called (it may also be done).
     *
     * @return whether the ticket was called
     */
    public boolean isCalled() {
        queue.lock.lock();
        try {
            return called;
        } finally {
            queue.lock.unlock();
        }
    }

    /**
     * done() finishes this ticket; if every ticket before it is finished, the next ticket is called.
     * Calling done() again does nothing. A ticket may be finished before it is called: it then just
     * leaves the line.
     *
     * <p>done() either does all of it or nothing: the next ticket's {@link #onCall} callback is
     * enqueued before anything changes, so if its scheduler refuses it (it is closed), done() throws
     * and this ticket stays unfinished, the next one uncalled, and the callback registered.
     *
     * @throws java.util.concurrent.RejectedExecutionException if the next ticket is called now and
     *     the scheduler of its {@code onCall} callback is closed (nothing changed: see above)
     * @throws IllegalStateException if that scheduler refuses the callback for another reason (it
     *     has no worker threads and this thread is not bound to it; nothing changed)
     */
    @SuppressWarnings("GuardedBy") // queue.lock, held here, is the lock that prev, next and callNext's queue.lock name
    public void done() {
        if (done.getAndSet(true)) {
            return;
        }
        Waiter waiters = null;
        queue.lock.lock();
        try {
            Ticket callNext = prev == null && next != null ? next : null;
            if (callNext != null) {
                // Hand the callback over first, so a refusal leaves the line as it was. Enqueue under
                // queue.lock is safe: no worker lock is held while a ticket's lock is taken.
                try {
                    callNext.enqueueOnCall();
                } catch (RuntimeException | Error refused) {
                    done.set(false);
                    throw refused;
                }
            }
            if (queue.tail == this) {
                queue.tail = prev;
            }
            if (prev != null) {
                prev.next = next;
            }
            if (next != null) {
                next.prev = prev;
            }
            prev = null;
            next = null;
            if (callNext != null) {
                callNext.called = true;
                waiters = callNext.waiters.pollAll();
            }
        } finally {
            queue.lock.unlock();
        }
        WaitQueue.wakeChain(waiters);
    }

    /**
     * onCall(callback) schedules {@code callback} as a task, on the scheduler bound to the calling
     * thread, when this ticket is called (at once if it already is). Several callbacks registered
     * before the call run in registration order in one task, on the scheduler of the last
     * registration, side by side however many there are; one that throws is reported to that
     * scheduler's handler and does not stop the others.
     *
     * @param callback the code to run when the ticket is called
     * @return a handle whose {@link Registration#cancel()} withdraws the callback until its task has
     *     started (so cancelled registrations leave nothing behind on a ticket awaited for long); a
     *     spent handle if the ticket was already called
     * @throws IllegalStateException if no scheduler is bound to the calling thread
     */
    public Registration onCall(Runnable callback) {
        Objects.requireNonNull(callback, "callback must not be null");
        Scheduler scheduler = Scheduler.get();
        if (scheduler == null) {
            throw new IllegalStateException("Ticket.onCall() schedules its callback as a task, so it needs a "
                    + "scheduler bound to thread " + Thread.currentThread().getName() + ": call scheduler.bind() first");
        }
        queue.lock.lock();
        try {
            if (!called) {
                CallbackQueue callbacks = onCall;
                if (callbacks == null) {
                    callbacks = new CallbackQueue();
                    onCall = callbacks;
                }
                Registration registration = new Registration(queue.lock, callbacks, callback);
                callbacks.add(registration);
                onCallScheduler = scheduler;
                return registration;
            }
        } finally {
            queue.lock.unlock();
        }
        scheduler.enqueue(new Task(callback));
        return new Registration(queue.lock, null, callback);
    }

    /**
     * Called with queue.lock held, before this ticket is marked called: hands its callbacks to their
     * scheduler, as one task that takes them when it runs (a registration cancelled meanwhile is
     * skipped). Nothing to hand over if every registration was cancelled.
     */
    @GuardedBy("queue.lock")
    private void enqueueOnCall() {
        CallbackQueue callbacks = onCall;
        if (called || callbacks == null || callbacks.isEmpty()) {
            return;
        }
        onCallScheduler.enqueue(new Task(() -> runOnCall(callbacks))); // may throw: then nothing has changed
        onCall = null;
        onCallScheduler = null;
    }

    /** runOnCall(callbacks) runs the callbacks not cancelled by now, in registration order; the task of enqueueOnCall. */
    private void runOnCall(CallbackQueue callbacks) {
        Registration chain;
        queue.lock.lock();
        try {
            chain = callbacks.pollAll();
        } finally {
            queue.lock.unlock();
        }
        CallbackQueue.runChain(chain);
    }

    @Override
    public String toString() {
        return "Ticket[" + (done.get() ? "finished" : isCalled() ? "called" : "waiting") + "]";
    }
}
