package org.marl4j;

import java.util.Arrays;

/**
 * Steals is the stealing of tasks between {@link Work}s, from both sides, and one worker's steal
 * buffer. As the victim's ({@link #steal}, {@link #stealWaiting}): a thief takes the victim's
 * oldest task and half the rest (up to {@link #MAX_STEAL_BATCH}, from the newest end with a {@link
 * FifoPolicy}: {@link FifoPolicy#stealNewest()} says why) in one hold of the victim's lock, returns
 * the oldest and keeps the rest in its own steal buffer. As the thief's:
 * its owner empties that buffer into its policy as soon as it holds its own lock again ({@link
 * #addStolen}); so a burst made on one worker is shared in a few steals, at no allocation per task.
 * Which victim's task a thief leaves alone is the thief's business ({@link FreshTaskRule}), and
 * when it steals is {@link Spinning}'s. An instance is one Work's steal buffer, which that Work
 * holds; the works a steal acts on come as arguments.
 *
 * <p>Lock discipline: a steal takes the victim's lock ({@link Work#lock}) and releases it before it
 * returns; a thief never holds its own lock while it takes a victim's, so no thread holds two. The
 * steal buffer needs no lock: only the owner's thread touches it.
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

    /**
     * The steal buffer: the tasks this worker's own thread, as a thief, took beyond the first in its
     * last steal (under the victim's lock), until it adds them to its policy under its own
     * ({@link #addStolen}). Touched only by the owner's thread, never by two steals at once: it is
     * emptied before the thread can steal again.
     */
    private Task[] stolen = new Task[64];
    private int numStolen;
    /** Whether the steal buffer holds its tasks newest first (a {@link FifoPolicy} victim's batch). */
    private boolean stolenNewestFirst;

    /**
     * steal(victim, into) takes tasks from victim for a spinning thief whose work is {@code into},
     * or returns null; skips a contended lock. It takes half the victim's tasks (at most {@link
     * #MAX_STEAL_BATCH}), so a worker that made a burst of tasks shares them in a few steals rather
     * than one lock round trip per task: the oldest is returned, the rest wait in the thief's steal
     * buffer for {@link #addStolen}.
     */
    @Excludes("victim.lock")
    static Task steal(Work victim, Work into) {
        if (victim.tasksQueued() == 0 || !victim.lock.tryLock()) {
            return null;
        }
        return stealAndUnlock(victim, into);
    }

    /**
     * stealWaiting(victim, into) is {@link #steal} for a thief the monitor or an enqueuer sent to
     * victim: it waits for the lock, which a worker stalled in a task does not hold. The thief
     * holds no lock of its own.
     */
    @Excludes("victim.lock")
    static Task stealWaiting(Work victim, Work into) {
        if (victim.tasksQueued() == 0) {
            return null;
        }
        victim.lock.lock();
        return stealAndUnlock(victim, into);
    }

    /**
     * stealAndUnlock(victim, into) is the body of both steals: called with victim's lock just taken,
     * it takes the oldest stealable task, and up to half the rest (capped, {@link
     * Work#stealNewerLocked()}) into the steal buffer of the thief {@code into}, in the order the
     * victim gives them (newest first from a {@link FifoPolicy}), and releases the lock. The rest are taken only between
     * built-in policies, whose enqueue never throws, so no stolen task can be lost on the way.
     * Called on the thief's own thread, which adds them all to its own policy with {@link #addStolen}.
     */
    @SuppressWarnings("GuardedBy") // entered with victim.lock held, taken by its caller
    private static Task stealAndUnlock(Work victim, Work into) {
        try {
            Task first = victim.stealLocked();
            if (first == null || into == null || !into.lockFreeEnqueue || !victim.lockFreeEnqueue) {
                return first;
            }
            Steals thief = into.steals;
            assert thief.numStolen == 0 : "a steal buffer not emptied before the next steal";
            int more = Math.min(MAX_STEAL_BATCH - 1, victim.numTasksLocked() / 2);
            Task[] buffer = thief.stolen;
            int n = 0;
            for (; n < more; n++) {
                Task task = victim.stealNewerLocked();
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
            thief.stolenNewestFirst = victim.stealsNewestFirst();
            return first;
        } finally {
            victim.lock.unlock();
        }
    }

    private static void reverse(Task[] tasks, int n) {
        for (int i = 0, j = n - 1; i < j; i++, j--) {
            Task t = tasks[i];
            tasks[i] = tasks[j];
            tasks[j] = t;
        }
    }

    /**
     * addStolen(owner, first) adds what owner's thread (this buffer's) just stole to owner's policy:
     * {@code first}, then the steal buffer in queued order, which it empties (so it keeps no finished task
     * alive). If the policy throws (a custom one whose bounded queue is full: a single task is
     * stolen between custom policies too), the tasks it has not taken have already left their
     * victim: they become owner's pending tasks, offered to its policy again at its next drain, and
     * the exception goes on; a stolen task must not be lost. Called with owner's lock held.
     */
    @SuppressWarnings("GuardedBy") // entered with owner.lock held, which the checker cannot carry over from the caller's argument
    void addStolen(Work owner, Task first) {
        int n = numStolen;
        numStolen = 0;
        Task[] buffer = stolen;
        if (stolenNewestFirst) {
            reverse(buffer, n); // back to their queued order, here rather than under the victim's lock
        }
        int added = -1; // -1 until first is in the policy, then how many of the buffer are
        try {
            owner.addTask(first);
            for (added = 0; added < n; added++) {
                owner.addTask(buffer[added]);
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
            owner.keepPending(head);
            throw t;
        }
    }
}
