package org.marl4j;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.marl4j.Work.WorkerLock;

/**
 * The optional check, at every fiber suspend, that the thread holds no monitor and no
 * thread-owned {@code java.util.concurrent} lock.
 *
 * <p>Why: fibers of one worker share its thread, and the JVM records the owner of a monitor or a
 * {@code ReentrantLock} as that thread. A fiber that suspends while holding one lets the next
 * fiber on the same thread enter it too (mutual exclusion lost) or block the thread on it
 * (deadlock: only that thread can resume the owner). Turned on with the system property
 * {@value #PROPERTY}{@code =true}, read when a {@link Scheduler} is constructed. It costs a
 * {@code ThreadMXBean} query per suspend, so it is meant for tests and debugging.
 */
final class LockCheck {
    /** The system property that turns the check on. */
    static final String PROPERTY = "org.marl4j.checkLocks";

    private LockCheck() {}

    static boolean enabled() {
        return Boolean.getBoolean(PROPERTY);
    }

    /**
     * blockedHint(thread, checking) is, for a worker thread that a stall report finds BLOCKED
     * entering a monitor, the likely cause and the way to find it (empty otherwise): a fiber of the
     * same worker suspended inside that {@code synchronized} block, so the thread waits for a fiber
     * only it could resume. With the check already on, such a wait would have thrown instead.
     */
    static String blockedHint(Thread thread, boolean checking) {
        if (checking || thread.getState() != Thread.State.BLOCKED) {
            return "";
        }
        return "The thread is BLOCKED entering a monitor: if a fiber waited (Futures.await, an Event, any marl4j "
                + "wait) inside a synchronized block, another fiber of the same worker blocks on it for good, since "
                + "only this thread could resume the owner. Run with -D" + PROPERTY + "=true to make such a wait "
                + "throw where it happens, and use org.marl4j.Mutex instead of synchronized around waits.\n";
    }

    /**
     * heldLocks() returns the identity hash codes of the monitors and synchronizers the calling
     * thread holds: taken at bind(), so that locks a thread held before it joined the scheduler
     * (say, a thread pool's own per-worker lock) are not reported. They were not taken by a fiber,
     * and no fiber of the thread's own worker can contend for them unless it takes them itself.
     */
    static Set<Integer> heldLocks() {
        ThreadInfo info = threadInfo();
        if (info == null) {
            return Set.of();
        }
        Set<Integer> held = new HashSet<>();
        for (MonitorInfo monitor : info.getLockedMonitors()) {
            held.add(monitor.getIdentityHashCode());
        }
        for (LockInfo lock : info.getLockedSynchronizers()) {
            held.add(lock.getIdentityHashCode());
        }
        return held;
    }

    /**
     * verify(ignored, releasedByWait) throws IllegalStateException naming the first lock the thread
     * holds, other than worker locks, those in {@code ignored} (held since bind()) and the one
     * {@code releasedByWait}: the lock the wait itself releases before it suspends (null if none).
     * It runs before the waiter is published anywhere, so a refused wait never swallows a
     * notification. The JVM names a {@code java.util.concurrent} lock by its internal synchronizer,
     * which cannot be matched to the {@code Lock} object, so one thread-owned synchronizer is
     * excused when the wait releases {@code releasedByWait} entirely (a {@code ReentrantLock},
     * however many times held, or another lock held once) and it may be that one.
     */
    static void verify(Set<Integer> ignored, Lock releasedByWait) {
        ThreadInfo info = threadInfo();
        if (info == null) {
            return;
        }
        for (MonitorInfo monitor : info.getLockedMonitors()) {
            if (ignored.contains(monitor.getIdentityHashCode())) {
                continue;
            }
            throw held("the monitor of " + describe(monitor) + " (entered at " + monitor.getLockedStackFrame() + ")",
                    "leave the synchronized block before waiting");
        }
        int excused = mayBeOneSynchronizer(releasedByWait) ? 1 : 0;
        List<String> held = new ArrayList<>();
        for (LockInfo lock : info.getLockedSynchronizers()) {
            if (!lock.getClassName().equals(WorkerLock.class.getName())
                    && !ignored.contains(lock.getIdentityHashCode())) {
                held.add(describe(lock));
            }
        }
        if (held.size() > excused) {
            throw held((held.size() == 1 ? "the thread-owned lock " : "the thread-owned locks ") + String.join(", ", held)
                    + (excused == 1 ? " (one of them the lock this wait releases)" : ""),
                    "unlock it before waiting, or use org.marl4j.Mutex, which fibers own");
        }
    }

    /** mayBeOneSynchronizer(lock) is false only when lock surely holds no synchronizer after its unlock. */
    private static boolean mayBeOneSynchronizer(Lock lock) {
        if (lock == null || lock instanceof Mutex) {
            return false; // a Mutex is owned by a fiber, not the thread: the JVM does not list it
        }
        if (lock instanceof ReentrantLock reentrant) {
            return reentrant.isHeldByCurrentThread(); // the wait releases every hold (see LockHolds)
        }
        if (lock instanceof ReentrantReadWriteLock.WriteLock write) {
            return write.isHeldByCurrentThread(); // the wait releases every hold (see LockHolds)
        }
        return true;
    }

    private static ThreadInfo threadInfo() {
        return ManagementFactory.getThreadMXBean()
                .getThreadInfo(new long[] {Thread.currentThread().threadId()}, true, true)[0];
    }

    private static String describe(LockInfo lock) {
        return lock.getClassName() + "@" + Integer.toHexString(lock.getIdentityHashCode());
    }

    private static IllegalStateException held(String what, String fix) {
        return new IllegalStateException("a fiber tried to suspend while its thread holds " + what
                + ": other fibers of the same worker thread could then enter it or deadlock on it; "
                + fix + " (check enabled by -D" + PROPERTY + "=true)");
    }
}
