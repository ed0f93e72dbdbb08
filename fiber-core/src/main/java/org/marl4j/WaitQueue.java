package org.marl4j;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

/**
 * A FIFO of {@link Waiter}s, the nodes of one wait each (below), linked through the waiters themselves so a waiter that times out
 * unlinks itself in O(1). Not thread-safe: each primitive guards its queue with its own lock.
 *
 * <p>A node is in the queue while its {@link Waiter#queuedIn} is the queue's {@code generation}.
 * {@link #pollAll()} detaches every node at once by starting a new generation: it does not visit
 * them, because a crowd of suspended fibers is spread over the heap and each visit is a cache miss
 * that cannot start before the previous one has ended (the next node's address is in it). The
 * notifier then visits each node once, outside the lock ({@link #wakeChain}), and a wait that ends
 * meanwhile sees its node is no longer queued, as if the notifier had unlinked it singly.
 */
final class WaitQueue {
    private Waiter head;
    private Waiter tail;
    private int size;
    /** Never 0, which marks a node in no queue. */
    private int generation;

    WaitQueue() {
        this(1);
    }

    /** WaitQueue(firstGeneration) starts at a given generation: for tests of its wrap-around. */
    WaitQueue(int firstGeneration) {
        if (firstGeneration <= 0) {
            throw new IllegalArgumentException("a generation is positive: " + firstGeneration);
        }
        this.generation = firstGeneration;
    }

    int size() {
        return size;
    }

    void add(Waiter waiter) {
        assert waiter.queuedIn == 0 : "a waiter node in two waits at once";
        waiter.queuedIn = generation;
        waiter.prev = tail;
        waiter.next = null;
        if (tail == null) {
            head = waiter;
        } else {
            tail.next = waiter;
        }
        tail = waiter;
        size++;
    }

    /** remove(waiter) unlinks the waiter if it is still queued; returns whether it was. */
    boolean remove(Waiter waiter) {
        if (waiter.queuedIn != generation) {
            return false;
        }
        waiter.queuedIn = 0;
        if (waiter.prev == null) {
            head = waiter.next;
        } else {
            waiter.prev.next = waiter.next;
        }
        if (waiter.next == null) {
            tail = waiter.prev;
        } else {
            waiter.next.prev = waiter.prev;
        }
        waiter.prev = null;
        waiter.next = null;
        size--;
        return true;
    }

    /**
     * await() queues a waiter for the calling fiber (or thread), waits until it is woken or the
     * deadline passes, and unlinks it again if it was not woken. {@code lock} must guard this queue
     * and be held by the caller; it is released while waiting. Returns whether it was woken.
     */
    boolean await(Lock lock, boolean timed, long deadline) {
        Waiter waiter = Waiter.reusableForCurrent(); // a fiber's own node: see Waiter
        add(waiter);
        boolean notified = false;
        try {
            notified = waiter.await(lock, timed, deadline);
        } finally {
            if (!notified) { // timed out, woken spuriously, or the wait threw
                leave(waiter);
            }
        }
        return notified;
    }

    /**
     * leave(waiter) ends a wait that will not use a notification: it unlinks the waiter or, if a
     * notifier has already taken it from the queue (its notification is on the way, or arrived as
     * the wait timed out or was refused, say by a bounded close), passes that notification on to
     * the next waiter, so that it is not swallowed: a freed Mutex, a signal meant for one waiter.
     * An extra wake-up costs the next waiter a re-check of its condition. Called with the lock that
     * guards this queue held; the wake takes only a worker lock, which is never held while a
     * primitive's lock is taken, so waking under it cannot deadlock. A waiter a notifier had taken
     * is told so ({@link Waiter#takenByNotifier()}): the notifier may still be writing to it, so a
     * fiber's own node is not reused until it has. Returns whether a notifier had taken it.
     */
    boolean leave(Waiter waiter) {
        if (remove(waiter)) {
            return false;
        }
        waiter.takenByNotifier();
        Waiter next = poll();
        if (next != null) {
            next.notifyWaiter();
        }
        return true;
    }

    /** poll() unlinks and returns the oldest waiter, or null. */
    Waiter poll() {
        Waiter first = head;
        if (first != null) {
            remove(first);
        }
        return first;
    }

    /**
     * pollAll() unlinks every waiter and returns the first of them, still chained through
     * {@code next}, for {@link #wakeChain}. O(1): the nodes leave the queue with its generation.
     */
    Waiter pollAll() {
        Waiter first = head;
        if (first != null) {
            head = null;
            tail = null;
            size = 0;
            generation = generation == Integer.MAX_VALUE ? 1 : generation + 1;
        }
        return first;
    }

    /**
     * wakeChain(first) wakes every waiter of a chain returned by pollAll(); call without the lock.
     * Every waiter is woken even if a wake throws (a scheduling policy's, on the waiter's own worker
     * thread): the first exception is rethrown once the whole chain has been visited, so no node is
     * left with the links and generation of a queue it has left.
     */
    static void wakeChain(Waiter first) {
        if (first == null) {
            return;
        }
        if (first.next == null) {
            first.prev = null;
            first.queuedIn = 0;
            first.notifyWaiter();
            return;
        }
        WakeBatch batch = new WakeBatch(); // a crowd: one inbox push per worker and run, not per fiber
        Throwable failure = null;
        try {
            Waiter w = first;
            while (w != null) {
                Waiter next = w.next;
                // Cleared before notified is set, which publishes them to the waiter's next wait. A
                // wait ending meanwhile reads queuedIn racily: either value says "not queued".
                w.prev = null;
                w.next = null;
                w.queuedIn = 0;
                Fiber fiber = w.fiber();
                try {
                    if (fiber == null || !batch.add(w, fiber)) {
                        w.notifyWaiter(); // on its own worker's thread a wake runs the policy, which may throw
                    }
                } catch (RuntimeException | Error t) { // notifyWaiter throws no checked exception
                    if (failure == null) {
                        failure = t;
                    } else {
                        failure.addSuppressed(t);
                    }
                }
                w = next;
            }
        } finally {
            batch.flush(); // a fiber claimed in a run and never pushed could never be woken again
        }
        if (failure instanceof Error e) {
            throw e;
        } else if (failure != null) {
            throw (RuntimeException) failure;
        }
    }

    /**
     * Waiter is one wait on a marl4j primitive by a fiber or, off the scheduler, by a plain thread: the node the
     * primitives keep in their {@link WaitQueue}s.
     *
     * <p>{@link #notifyWaiter()} sets {@link #notified} before it wakes the fiber or unparks the thread, and a
     * fiber checks the flag under its worker's lock before it suspends ({@link Worker#park}), so a
     * notification can never fall between a waiter's enqueue and its suspend.
     *
     * <p>A fiber's wait may be refused (the lock check, a cancelled scheduler, a fiber that is not the
     * running one): the refusal is thrown while no notifier can have picked the waiter yet, either
     * before it is queued ({@link #forCurrent(Lock)}) or while the lock that guards its queue is still
     * held ({@link #await}), so a refused wait never swallows a notification meant for another waiter.
     * A wait that ends without using a notification it was already given (it timed out as the
     * notifier took it, or a bounded close cancelled it) passes it on to the next waiter
     * ({@link WaitQueue#leave}).
     *
     * <p><b>One node per fiber.</b> A fiber is itself a Waiter ({@link Fiber} extends this class) and
     * uses itself as the node of its waits through {@link WaitQueue#await} and {@link Mutex}
     * ({@link #reusableForCurrent}): a suspended fiber then keeps no separate node alive. Only a wait
     * that runs no other wait while its node is queued may use it: a {@link ConditionVariable}'s wait
     * takes its lock again (a Mutex wait, perhaps) before it leaves its queue, so it takes a fresh node. The node may be reused only once no
     * notifier can still touch it. A notifier unlinks a node under the primitive's lock and later, after
     * releasing it, clears the links and sets {@code notified} last; so a node is free again when its
     * wait saw {@code notified}, or unlinked the node itself ({@link WaitQueue#remove} returned true).
     * Otherwise (the wait ended, by timeout or cancellation, after a notifier took the node, whose
     * notification is still on the way) the fiber marks its node taken, and its waits use a fresh
     * {@link FiberWaiter} until {@code notified} shows the notifier has finished with it.
     */
    abstract static class Waiter {
        volatile boolean notified;

        // WaitQueue links, written under the owning primitive's lock while the node is queued; a
        // notifier that detached a whole chain (WaitQueue.pollAll) clears them without it, before it
        // sets notified, whose read publishes them to the waiter's next wait.
        Waiter prev;
        Waiter next;
        /**
         * The generation of the {@link WaitQueue} this node was added to; 0 once it is in no queue. A
         * node counts as queued only while this matches its queue's current generation, so
         * {@link WaitQueue#pollAll()} unqueues a whole crowd by moving to the next generation, without
         * visiting each node under the lock; {@link WaitQueue#wakeChain} then sets 0 as it wakes each.
         * Compared only with the generation of the queue the node was added to.
         */
        int queuedIn;

        /** fiber() is the waiting fiber, or null when a plain thread waits. */
        abstract Fiber fiber();

        /** resume() makes the waiting fiber or thread re-check {@link #notified}, which is set already. */
        abstract void resume();

        /** forCurrent() creates a waiter for the calling fiber, or for the calling thread if it is on none. */
        static Waiter forCurrent() {
            Fiber fiber = Fiber.current();
            return fiber != null ? new FiberWaiter(fiber) : new ThreadWaiter(Thread.currentThread());
        }

        /**
         * reusableForCurrent() is {@link #forCurrent()}, except that a fiber gets its own node (itself)
         * when it is free. A wait that ends un-notified must leave its queue through
         * {@link WaitQueue#leave}, which tells the node if a notifier had already unlinked it.
         */
        static Waiter reusableForCurrent() {
            Fiber fiber = Fiber.current();
            return fiber != null ? fiber.waiterForWait() : new ThreadWaiter(Thread.currentThread());
        }

        /**
         * forCurrent(releasedByWait) is {@link #forCurrent()} for a primitive whose notifiers do not
         * take the lock the wait releases (a condition variable): it checks that the fiber may suspend
         * now, before the waiter is queued where a notifier could pick it.
         */
        static Waiter forCurrent(Lock releasedByWait) {
            Waiter waiter = forCurrent();
            Fiber fiber = waiter.fiber();
            if (fiber != null) {
                fiber.checkMaySuspend(releasedByWait);
            }
            return waiter;
        }

        /**
         * takenByNotifier() records that this wait ended un-notified after a notifier had unlinked the
         * node: the notifier may still write to it. Only a fiber's own node cares.
         */
        void takenByNotifier() {
        }

        /** notifyWaiter() notifies this waiter: sets {@link #notified}, then wakes its fiber or thread. */
        final void notifyWaiter() {
            notified = true;
            resume();
        }

        /**
         * await() releases {@code lock}, waits until woken or the deadline, and takes {@code lock} again.
         * Returns whether it was notified. Called with {@code lock} held, by the waiter's own fiber or thread.
         */
        boolean await(Lock lock, boolean timed, long deadline) {
            Fiber fiber = fiber();
            if (fiber != null) {
                // Still under lock, which notifiers of a queue-guarding lock need: a refusal here
                // leaves the waiter un-notified for the caller to unlink.
                fiber.checkMaySuspend(lock);
                FiberWaits.park(fiber, lock, this, timed, deadline);
                return notified;
            }
            lock.unlock();
            boolean interrupted = false;
            try {
                while (!notified) {
                    if (timed) {
                        long nanos = deadline - System.nanoTime();
                        if (nanos <= 0) {
                            break;
                        }
                        LockSupport.parkNanos(this, nanos);
                    } else {
                        LockSupport.park(this);
                    }
                    interrupted |= Thread.interrupted();
                }
            } finally {
                lock.lock();
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            return notified;
        }

        /** A node for one wait of a fiber whose own node is in use (or for primitives that allocate per wait). */
        static final class FiberWaiter extends Waiter {
            private final Fiber fiber;

            FiberWaiter(Fiber fiber) {
                this.fiber = fiber;
            }

            @Override
            Fiber fiber() {
                return fiber;
            }

            @Override
            void resume() {
                fiber.wake();
            }
        }

        /** A node for one wait of a plain thread, off the scheduler. */
        static final class ThreadWaiter extends Waiter {
            private final Thread thread;

            ThreadWaiter(Thread thread) {
                this.thread = thread;
            }

            @Override
            Fiber fiber() {
                return null;
            }

            @Override
            void resume() {
                LockSupport.unpark(thread);
            }
        }
    }
}
