package org.marl4j;

import java.util.concurrent.locks.Lock;

/**
 * A FIFO of {@link Waiter}s, linked through the waiters themselves so a waiter that times out
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
}
