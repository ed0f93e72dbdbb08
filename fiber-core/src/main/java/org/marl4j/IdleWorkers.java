package org.marl4j;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * IdleWorkers is what a scheduler knows of its worker threads that are out of work, and what they
 * do about it: which spin (marl's ring of recently spinning workers, which an enqueue from outside
 * prefers; Go's {@code nmspinning}), how many sleep (Go's {@code npidle}), waking one sleeper when
 * a task is queued behind a busy worker (Go's {@code wakep}), and the thieves' steals from the
 * other workers. Every member is thread-safe: workers and enqueuers call it without any lock.
 */
final class IdleWorkers {
    /** Size of the ring of recently spinning workers that enqueue prefers (marl's value). */
    static final int SPINNING_WORKER_SLOTS = 8;

    private final Worker[] workers;
    private final AtomicIntegerArray spinningWorkers = new AtomicIntegerArray(SPINNING_WORKER_SLOTS);
    private final AtomicInteger nextSpinningWorkerIdx = new AtomicInteger();
    /** Worker threads spinning for work, or woken by wakeIdleWorker() to look for it (Go's nmspinning). */
    private final AtomicInteger numSpinning = new AtomicInteger();
    /** Worker threads asleep for want of work (Go's npidle). */
    private final AtomicInteger numIdle = new AtomicInteger();
    private final AtomicInteger nextWakeIdx = new AtomicInteger();

    /** IdleWorkers(workers) watches the scheduler's worker array, which the scheduler fills in afterwards. */
    IdleWorkers(Worker[] workers) {
        this.workers = workers;
        for (int i = 0; i < SPINNING_WORKER_SLOTS; i++) {
            spinningWorkers.set(i, -1);
        }
    }

    /** takeSpinning() takes a recently spinning worker's id out of the ring, or returns -1. */
    int takeSpinning() {
        int slot = nextSpinningWorkerIdx.decrementAndGet() & (SPINNING_WORKER_SLOTS - 1);
        return spinningWorkers.get(slot) >= 0 ? spinningWorkers.getAndSet(slot, -1) : -1;
    }

    /** onBeginSpinning(workerId) counts a spin and advertises the worker in the ring enqueue prefers. */
    void onBeginSpinning(int workerId) {
        numSpinning.incrementAndGet();
        spinningWorkers.set(nextSpinningWorkerIdx.getAndIncrement() & (SPINNING_WORKER_SLOTS - 1), workerId);
    }

    /** onEndSpinning() ends a spin, or gives back the count a worker woken by wakeIdleWorker() held. */
    void onEndSpinning() {
        numSpinning.decrementAndGet();
    }

    /**
     * wakeIdleWorker() is Go's wakep: called after a task was queued on a worker that is awake (so
     * busy, perhaps for long), it wakes one sleeping worker to look for work on every worker, unless
     * some worker already spins or none sleeps. At most one such wake is in flight while nobody
     * spins, so a burst of enqueues wakes workers one at a time rather than all at once.
     */
    void wakeIdleWorker() {
        if (numIdle.get() == 0 || numSpinning.get() != 0 || !numSpinning.compareAndSet(0, 1)) {
            return;
        }
        int count = workers.length;
        int start = (nextWakeIdx.getAndIncrement() & Integer.MAX_VALUE) % count;
        for (int i = 0; i < count; i++) {
            Work work = workers[(start + i) % count].work;
            if (work.activity() == Work.IDLE && work.wakeToSteal()) {
                return; // the woken worker now holds the spinning count
            }
        }
        numSpinning.decrementAndGet();
    }

    /**
     * stealFromAny(thief, random) takes tasks from the first other worker, starting at a random
     * one, that has a stealable task, waiting for each worker's lock: for a worker woken to steal
     * with spinning off. The thief holds no lock. A busy worker's only, fresh task is left to it
     * ({@link FreshTaskRule}): the thief looks a second time after a few microseconds and takes it
     * then only if that worker has not moved on meanwhile.
     */
    Task stealFromAny(Worker thief, long random) {
        int count = workers.length;
        int start = (int) ((random & Long.MAX_VALUE) % count);
        FreshTaskRule rule = thief.spinning.freshTaskRule(count);
        for (int look = 0; look < 2; look++) {
            boolean left = false;
            for (int i = 0; i < count; i++) {
                Worker victim = workers[(start + i) % count];
                if (victim == thief) {
                    continue;
                }
                int queued = victim.work.tasksQueued();
                if (rule.leave(victim, queued)) {
                    left = true;
                    continue;
                }
                if (queued != 0) {
                    Task task = victim.work.stealWaiting(thief.work);
                    if (task != null) {
                        return task;
                    }
                }
            }
            if (!left) {
                return null;
            }
            long until = System.nanoTime() + FreshTaskRule.SECOND_LOOK_NANOS;
            while (System.nanoTime() - until < 0) {
                Thread.onSpinWait();
            }
        }
        return null;
    }

    /** onWorkerSleeping() and onWorkerWoke() bracket a worker thread's idle sleep. */
    void onWorkerSleeping() {
        numIdle.incrementAndGet();
    }

    void onWorkerWoke() {
        numIdle.decrementAndGet();
    }

    /**
     * steal(thief, random) tries to take tasks from one randomly chosen other worker (half of them,
     * see {@link Steals#steal(Work)}), leaving a busy worker's only, fresh task to it ({@link
     * FreshTaskRule}).
     */
    Task steal(Worker thief, long random) {
        int count = workers.length;
        int idx;
        if (thief.mode == Worker.Mode.MULTI_THREADED) {
            if (count < 2) {
                return null;
            }
            // One of the others, so a spin's steal attempt is never spent on the thief itself.
            idx = (int) ((random & Long.MAX_VALUE) % (count - 1));
            if (idx >= thief.id) {
                idx++;
            }
        } else {
            idx = (int) ((random & Long.MAX_VALUE) % count);
        }
        Worker victim = workers[idx];
        if (victim == thief) {
            return null;
        }
        FreshTaskRule rule = thief.spinning.freshTaskRule(count);
        int queued = victim.work.tasksQueued();
        return rule.leave(victim, queued) || queued == 0 ? null : victim.work.steal(thief.work);
    }
}
