package org.marl4j;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * LocalTaskRing holds the tasks a worker's own thread enqueued on that worker until someone holding
 * the worker lock moves them into the {@link SchedulingPolicy} ({@link Work#drainInbox()}), as the
 * {@link TaskInbox} does for other threads' tasks. A task a worker makes for itself (a coroutine
 * resuming its peer, a burst of launches) is the commonest enqueue there is, and it has exactly one
 * producer, so it needs no compare-and-set and no node: a bounded single-producer ring, pushed to
 * by the owner without the lock and emptied by any lock holder (the owner, or a thief about to
 * steal). Kept in an array rather than a linked chain, a burst queued here costs the collector a
 * few large arrays to copy rather than a million-node chain it can only follow one node at a time.
 *
 * <p>Memory ordering: the producer stores the slot, then publishes {@code tail} with a release
 * store; a consumer reads {@code tail} with an acquire load, clears the slots it takes, then
 * publishes {@code head} with a release store, which the producer reads (acquire) before it reuses
 * a slot. Full, {@link #offer} refuses and the owner takes its lock to empty the ring first
 * ({@link Work#enqueueOwn}), so its tasks keep their order.
 */
final class LocalTaskRing {
    /** Slots: enough that the owner takes its lock once per this many tasks of a burst. */
    static final int CAPACITY = 256;
    private static final int MASK = CAPACITY - 1;
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HEAD = lookup.findVarHandle(LocalTaskRing.class, "head", int.class);
            TAIL = lookup.findVarHandle(LocalTaskRing.class, "tail", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Task[] slots = new Task[CAPACITY];
    /** The next slot to take. Written by a lock holder (release), read by anyone. */
    @SuppressWarnings("unused") // accessed through HEAD
    private int head;
    /** The next slot to fill. Written by the producer only (release), read by anyone. */
    @SuppressWarnings("unused") // accessed through TAIL
    private int tail;
    /** The producer's last look at head: it reads the real one only when the ring seems full. */
    private int headSeen;

    /** offer(task) adds a task, or returns false if the ring is full. The worker's own thread only. */
    boolean offer(Task task) {
        int t = (int) TAIL.get(this);
        if (t - headSeen == CAPACITY) {
            headSeen = (int) HEAD.getAcquire(this);
            if (t - headSeen == CAPACITY) {
                return false;
            }
        }
        slots[t & MASK] = task;
        TAIL.setRelease(this, t + 1);
        return true;
    }

    /** poll() takes the oldest task, or returns null if the ring is empty. With the worker lock held. */
    Task poll() {
        int h = (int) HEAD.get(this);
        if (h == (int) TAIL.getAcquire(this)) {
            return null;
        }
        int slot = h & MASK;
        Task task = slots[slot];
        slots[slot] = null; // a finished task must not stay reachable from here
        HEAD.setRelease(this, h + 1);
        return task;
    }

    /** size() counts the tasks waiting, without the lock: a racy hint, never more than {@link #CAPACITY}. Any thread. */
    int size() {
        int h = (int) HEAD.getAcquire(this);
        int n = (int) TAIL.getAcquire(this) - h;
        return Math.max(0, Math.min(n, CAPACITY));
    }

    /** isEmpty() is true when no task waits here. Any thread; exact for the producer and for a lock holder. */
    boolean isEmpty() {
        return (int) HEAD.getAcquire(this) == (int) TAIL.getAcquire(this);
    }
}
