package org.marl4j;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;

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

    /** verify() throws IllegalStateException naming the first lock, other than worker locks, the thread holds. */
    static void verify() {
        ThreadInfo info = ManagementFactory.getThreadMXBean()
                .getThreadInfo(new long[] {Thread.currentThread().threadId()}, true, true)[0];
        if (info == null) {
            return;
        }
        for (MonitorInfo monitor : info.getLockedMonitors()) {
            throw held("the monitor of " + describe(monitor) + " (entered at " + monitor.getLockedStackFrame() + ")",
                    "leave the synchronized block before waiting");
        }
        for (LockInfo lock : info.getLockedSynchronizers()) {
            if (!lock.getClassName().equals(WorkerLock.class.getName())) {
                throw held("the thread-owned lock " + describe(lock),
                        "unlock it before waiting, or use org.marl4j.Mutex, which fibers own");
            }
        }
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
