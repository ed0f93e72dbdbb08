package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.Arrays;
import org.marl4j.Work.WorkerLock;

/**
 * Steals is the stealing of one {@link Work}'s tasks, from both sides. As the victim's: a thief
 * takes half the tasks (oldest first, up to {@link #MAX_STEAL_BATCH}) in one hold of the work's
 * lock, returns the first and keeps the rest in its own steal buffer. As the thief's: its owner
 * empties that buffer into its policy as soon as it holds its own lock again ({@link #addStolen});
 * so a burst made on one worker is shared in a few steals, at no allocation per task. Which
 * victim's task a thief leaves alone is the thief's business ({@link FreshTaskRule}), and when it
 * steals is {@link Spinning}'s. One per Work, which holds it.
 *
 * <p>Lock discipline: {@code lock} is the work's lock ({@link Work#lock}). The victim side takes
 * it ({@link Excludes}) or runs under it ({@link GuardedBy}); a thief never holds its own lock
 * while it takes a victim's, so no thread holds two. The steal buffer needs no lock: only the
 * owner's thread touches it.
 */
final class Steals {
    /**
     * The most tasks one steal takes: half the victim's queue, up to this. Go takes half of its
     * 256-slot ring; here a burst can be a million tasks deep, and launching 1,000,000 coroutines
     * from one ran ~2.5x slower with one task per steal and ~1.5x slower capped at 128 than with
     * 4096 or more (CoroutinesBenchmark). The cap bounds how long a thief holds the victim's lock
     * (moving a task costs tens of ns), so the victim never waits for it for long.
     */
    static final int MAX_STEAL_BATCH = 1 << 14;

    private final Work work;
    /** The work's lock, not one of this class's own. */
    private final WorkerLock lock;
    /**
     * The steal buffer: the tasks this worker's own thread, as a thief, took beyond the first in its
     * last steal ({@link #stealMoreLocked}, under the victim's lock), until it adds them to its policy
     * under its own ({@link #addStolen}). Touched only by the owner's thread, never by two steals at
     * once: it is emptied before the thread can steal again.
     */
    private Task[] stolen = new Task[64];
    private int numStolen;

    Steals(Work work) {
        this.work = work;
        this.lock = work.lock;
    }

    /**
     * steal(into) takes tasks for a spinning thief whose work is {@code into}, or returns null;
     * skips a contended lock. It takes half the tasks here (at most {@link #MAX_STEAL_BATCH}), so a
     * worker that made a burst of tasks shares them in a few steals rather than one lock round trip
     * per task: the oldest is returned, the rest wait in the thief's steal buffer for {@link #addStolen}.
     */
    @Excludes("lock")
    @SuppressWarnings("GuardedBy") // the lock taken here is released by stealAndUnlock
    Task steal(Work into) {
        if (work.tasksQueued() == 0 || !lock.tryLock()) {
            return null;
        }
        return stealAndUnlock(into);
    }

    /**
     * stealWaiting(into) is {@link #steal(Work)} for a thief the monitor or an enqueuer sent here: it
     * waits for the lock, which a worker stalled in a task does not hold. The thief holds no lock of
     * its own.
     */
    @Excludes("lock")
    @SuppressWarnings("GuardedBy") // the lock taken here is released by stealAndUnlock
    Task stealWaiting(Work into) {
        if (work.tasksQueued() == 0) {
            return null;
        }
        lock.lock();
        return stealAndUnlock(into);
    }

    /**
     * stealAndUnlock(into) is the body of both steals: called with the lock just taken, it takes the
     * oldest stealable task, and up to half the rest into the thief's steal buffer, and releases the
     * lock. The thief adds them all to its own policy with {@link #addStolen}.
     */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that work.lock names
    private Task stealAndUnlock(Work into) {
        Task first;
        try {
            first = work.stealLocked();
            if (first != null) {
                stealMoreLocked(into);
            }
        } finally {
            lock.unlock();
        }
        return first;
    }

    /**
     * stealMoreLocked(into) moves up to half of the tasks still here (capped) into the steal buffer
     * of the thief {@code into}, oldest first. Only between built-in policies, whose enqueue never
     * throws, so no stolen task can be lost on the way. Called on the thief's own thread.
     */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that work.lock names
    private void stealMoreLocked(Work into) {
        if (into == null || !into.lockFreeEnqueue || !work.lockFreeEnqueue) {
            return;
        }
        Steals thief = into.steals;
        assert thief.numStolen == 0 : "a steal buffer not emptied before the next steal";
        int more = Math.min(MAX_STEAL_BATCH - 1, work.numTasksLocked() / 2);
        Task[] buffer = thief.stolen;
        int n = 0;
        for (; n < more; n++) {
            Task task = work.stealLocked();
            if (task == null) {
                break;
            }
            if (n == buffer.length) {
                buffer = Arrays.copyOf(buffer, Math.min(2 * n, MAX_STEAL_BATCH));
                thief.stolen = buffer;
            }
            buffer[n] = task;
        }
        thief.numStolen = n;
    }

    /**
     * addStolen(first) adds what this worker's thread just stole to its policy: {@code first}, then
     * the steal buffer in order, which it empties (so it keeps no finished task alive). If the
     * policy throws (a custom one whose bounded queue is full: a single task is stolen between
     * custom policies too), the tasks it has not taken have already left their victim: they become
     * this worker's pending tasks, offered to its policy again at its next drain, and the exception
     * goes on; a stolen task must not be lost.
     */
    @GuardedBy("lock")
    @SuppressWarnings("GuardedBy") // lock, held here, is the worker lock that work.lock names
    void addStolen(Task first) {
        int n = numStolen;
        numStolen = 0;
        Task[] buffer = stolen;
        int added = -1; // -1 until first is in the policy, then how many of the buffer are
        try {
            work.addTask(first);
            for (added = 0; added < n; added++) {
                work.addTask(buffer[added]);
                buffer[added] = null;
            }
        } catch (Throwable t) {
            TaskInbox.Node head = new TaskInbox.Node(added < 0 ? first : buffer[added]);
            TaskInbox.Node tail = head;
            for (int i = added + 1; i < n; i++) {
                tail.next = new TaskInbox.Node(buffer[i]);
                tail = tail.next;
            }
            Arrays.fill(buffer, 0, n, null);
            work.keepPending(head);
            throw t;
        }
    }
}
