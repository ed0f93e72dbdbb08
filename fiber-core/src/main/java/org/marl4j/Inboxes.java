package org.marl4j;

/**
 * Inboxes is where the tasks and woken fibers that reach one worker without its lock wait until a
 * holder of the lock moves them into the {@link SchedulingPolicy}, and how they are moved. One per
 * {@link Work}, which holds it. It exists because the owner holds its lock across fiber switches:
 * an enqueuer or a waker that took the lock, as marl's do, would often wait for it, so with a
 * built-in policy (whose {@code enqueued} never throws, {@link Work#lockFreeEnqueue}) they push
 * here instead and the policy, which is not thread-safe, sees their tasks and fibers only in a
 * drain.
 *
 * <p>What waits here: a task enqueued from another thread, on the lock-free {@link TaskInbox}
 * ({@link Work#tryEnqueue}); a task the owner's own thread made (its tasks stay on its worker, see
 * {@link Scheduler#enqueue}), in its single-producer {@link LocalTaskRing} ({@link
 * Work#enqueueOwn}); a fiber woken from another thread, on the {@link WakeInbox} ({@link
 * Work#wake}, {@link Work#wakeClaimed}); and the pending tasks, which a throwing policy refused in
 * an earlier drain or after a steal ({@link #keepPending}), first in line for the next.
 *
 * <p>Draining: whoever holds the lock next (the owner at each turn of its loop and around each
 * sleep, or a thief before it steals) moves them into the policy in one batch ({@link
 * #drainInbox()}): the pending tasks, the ring, the task inbox, then the wakes, so the policy
 * still sees every task and fiber, in push order. An enqueuer that takes the lock drains the tasks
 * first ({@link #drainTasks()}), so the earlier tasks of the owner's ring keep their place. The
 * work's {@code num} counts only what the policy holds: Work adds what waits here for its readers
 * without the lock ({@link Work#queued()}, {@link Work#hasArrivals()}, {@link Work#tasksQueued()},
 * {@link Work#holdsOnly()}).
 *
 * <p>Lock discipline: {@code work.lock} ({@link Work#lock}) is the work's lock; this class never
 * takes it. It guards {@code pendingTasks}, and every take from the inboxes (drains, closing): the
 * lock holder is their one consumer. Pushes take no lock: the task inbox and wake inbox are
 * many-pusher stacks (a compare-and-set on their head), the ring has one pusher, the owner's
 * thread, which alone also reads and writes {@code ownTasksClosed}. The readers here without the
 * lock make volatile (stacks) or acquire (ring) reads, hints only; a pusher that must wake a
 * sleeping owner reads {@link OwnerSleep#asleep()} after its push, and the owner checks {@link
 * #hasUndrained()} after it declares its sleep (see {@link OwnerSleep#signalIfAsleep()}).
 */
final class Inboxes {
    private final Work work;
    /** Fibers other threads woke, not yet taken by the owner ({@link #drainInbox()}). */
    private final WakeInbox inbox = new WakeInbox();
    /**
     * Tasks enqueued by {@link Work#tryEnqueue} without the lock, not yet in the policy. Used only with
     * a built-in policy, which never throws: a custom policy's {@code enqueued} runs in the
     * enqueuer's call, under the lock, so its exception still reaches the enqueuer.
     */
    private final TaskInbox taskInbox = new TaskInbox();
    /**
     * Tasks the owner's own thread enqueued here ({@link Work#enqueueOwn}), without the lock, not yet in
     * the policy: the single-producer counterpart of taskInbox. With a built-in policy only.
     */
    private final LocalTaskRing ownTasks = new LocalTaskRing();
    /** Set by the owner once it has drained for good and closed its inboxes: its own enqueues go elsewhere. Owner's thread only. */
    private boolean ownTasksClosed;
    /** Tasks taken from an inbox or the ring, or stolen, that a throwing policy did not accept yet: they go first next time. */
    @GuardedBy("work.lock")
    private TaskInbox.Node pendingTasks;

    Inboxes(Work work) {
        this.work = work;
    }

    // ---------------------------------------------------------------- pushes, without the lock

    /** pushTask(task) pushes another thread's task; false, adding nothing, once the worker has stopped (the inbox is closed). */
    boolean pushTask(Task task) {
        return taskInbox.push(task);
    }

    /** ownTasksClosed() is true once the owner has closed its inboxes for good ({@link #closeTaskInbox()}). Owner's thread only. */
    boolean ownTasksClosed() {
        return ownTasksClosed;
    }

    /** offerOwn(task) puts a task into the owner's ring; false, adding nothing, when it is full. Owner's thread only. */
    boolean offerOwn(Task task) {
        return ownTasks.offer(task);
    }

    /** pushWoken(fiber) pushes a fiber woken from another thread; false if it is in already (its pusher signals). */
    boolean pushWoken(Fiber fiber) {
        return inbox.push(fiber);
    }

    /** pushClaimed(newest, oldest) pushes a chain of claimed fibers in one go (see {@link WakeBatch}). */
    void pushClaimed(Fiber newest, Fiber oldest) {
        inbox.pushClaimed(newest, oldest);
    }

    // ---------------------------------------------------------------- draining (lock held)

    /**
     * drainTasks() moves the waiting tasks into the policy: the pending ones, then the owner's ring,
     * then the task inbox, each in push order. If the policy throws, the tasks it has not taken stay
     * first in line for the next drain.
     */
    @GuardedBy("work.lock")
    void drainTasks() {
        TaskInbox.Node node = pendingTasks;
        pendingTasks = null;
        addInOrder(node);
        for (Task task; (task = ownTasks.poll()) != null; ) {
            try {
                work.addTask(task);
            } catch (Throwable t) {
                pendingTasks = new TaskInbox.Node(task);
                throw t;
            }
        }
        if (!taskInbox.isEmpty()) {
            addInOrder(taskInbox.takeAll());
        }
    }

    /**
     * keepPending(head) puts last among the pending tasks a chain of tasks the policy refused
     * after they were taken from elsewhere (a steal): they have no other queue to go back to, and
     * the next drain offers them to the policy again, in order.
     */
    @GuardedBy("work.lock")
    void keepPending(TaskInbox.Node head) {
        if (pendingTasks == null) {
            pendingTasks = head;
            return;
        }
        TaskInbox.Node last = pendingTasks;
        while (last.next != null) {
            last = last.next;
        }
        last.next = head;
    }

    /** addInOrder(node) adds a chain of inbox tasks to the policy; those it does not take become pendingTasks. */
    @GuardedBy("work.lock")
    private void addInOrder(TaskInbox.Node node) {
        while (node != null) {
            try {
                work.addTask(node.task);
            } catch (Throwable t) {
                pendingTasks = node;
                throw t;
            }
            node = node.next;
        }
    }

    /**
     * closeTaskInbox() closes the task inbox if nothing waits in it, so enqueuers move on to another
     * worker; returns false if a task arrived since the owner last drained (it must run first).
     * Called by the owner once it has drained for good.
     */
    @GuardedBy("work.lock")
    boolean closeTaskInbox() {
        if (pendingTasks != null || !ownTasks.isEmpty() || !taskInbox.close()) {
            return false;
        }
        ownTasksClosed = true;
        return true;
    }

    /**
     * drainInbox() performs, in the order they were pushed, the wakes other threads left in the
     * inbox: exactly what {@link Work#wake} does under the lock. The owner calls it before each turn of its
     * loop and before and after each sleep, so no pushed fiber waits for it to find other work. If
     * a policy throws, the fiber it threw on and those not yet woken go back into the inbox, for the
     * next drain: a fiber is never lost to a policy's exception.
     */
    @GuardedBy("work.lock")
    void drainInbox() {
        drainTasks();
        if (inbox.isEmpty()) {
            return;
        }
        Fiber fiber = inbox.takeAll();
        while (fiber != null) {
            Fiber next = WakeInbox.taken(fiber);
            try {
                work.wakeLocked(fiber);
            } catch (Throwable t) {
                inbox.push(fiber); // not woken: awakened() threw before the fiber was queued
                for (Fiber rest = next; rest != null; ) {
                    Fiber after = WakeInbox.taken(rest);
                    inbox.push(rest);
                    rest = after;
                }
                throw t;
            }
            fiber = next;
        }
    }

    // ---------------------------------------------------------------- what waits here

    /** hasUndrained() is true when a woken fiber or a task waits in an inbox, not yet in the policy: the owner must drain before it sleeps. */
    @GuardedBy("work.lock")
    boolean hasUndrained() {
        return !inbox.isEmpty() || !ownTasks.isEmpty() || !taskInbox.isEmpty() || pendingTasks != null;
    }

    /** hasWokenFibers() is true, without the lock, when fibers woken from other threads wait in the inbox for the owner. */
    boolean hasWokenFibers() {
        return !inbox.isEmpty();
    }

    /** hasPushed() is true, without the lock, when a task or woken fiber waits in an inbox ({@link Work#hasArrivals()}). */
    boolean hasPushed() {
        return !ownTasks.isEmpty() || !taskInbox.isEmpty() || !inbox.isEmpty();
    }

    /** queued() estimates, without the lock, the tasks here: the ring's, and one for a non-empty task inbox ({@link Work#queued()}). */
    int queued() {
        return ownTasks.size() + (taskInbox.isEmpty() ? 0 : 1);
    }

    /** tasksWaiting() counts, without the lock, the tasks here but not the pending ones (rare): for {@link Work#tasksWaiting()}. */
    int tasksWaiting() {
        return ownTasks.size() + taskInbox.size();
    }

    /**
     * taskHint() counts, without the lock, the ring's tasks and the task inbox's up to 2: a racy
     * hint for {@link Work#tasksQueued()} and {@link Work#holdsOnly()}.
     */
    int taskHint() {
        return ownTasks.size() + taskInbox.sizeUpTo2();
    }
}
