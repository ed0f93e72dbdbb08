package org.marl4j;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Executor;
import org.marl4j.Work.WorkerLock;

/**
 * The {@link FiberEngine#VIRTUAL_THREADS} engine's fiber stack, and the one class in marl4j that
 * touches {@code java.lang} internals: a virtual thread whose scheduler is this object, so the JDK
 * hands it back to its own worker whenever it may run again.
 *
 * <p><b>How the JDK and the worker share the fiber.</b> The JDK runs a virtual thread by calling
 * its scheduler's {@link #execute} with the thread's one "run continuation" task whenever the
 * thread may continue: at start, after an unpark, a timed park's timeout, a monitor's release, a
 * {@code Thread.yield()}. That task mounts the thread on the calling platform thread and runs it
 * until it parks again. Here the calling thread is always the worker's trampoline ({@link #resume}),
 * so a fiber runs only on its worker's thread, and {@code execute} never runs the task: it wakes
 * the fiber ({@link Work#wake}), which queues it on its worker under the scheduling policy like any
 * woken fiber. So a fiber that blocks in the JDK (sleep, I/O, a lock, {@code synchronized}) leaves
 * its worker free, and comes back as a woken fiber: its worker's trampoline finds it still RUNNING
 * after the run returned, and suspends it ({@code Worker.blockedInJdk}).
 *
 * <p><b>marl4j's own switch</b> ({@link #suspend()}, every marl4j wait and the worker loop's hand-off)
 * is a {@code Thread.yield()} marked beforehand: the JDK gives the task straight back to
 * {@link #execute}, on the worker's thread as the thread unmounts, and {@code execute} drops it,
 * since marl4j will resume the fiber itself, as with a continuation. A yield the JVM refuses (a
 * native frame on the stack) never reaches {@code execute}, which is how a pinned yield is told.
 *
 * <p><b>The worker lock</b> is held across marl4j's switches, as with continuations; the lock
 * records its owner by thread, so {@link #resume} hands it to the virtual thread and takes it back
 * when the run returns.
 */
final class VirtualFiber implements Fiber.Stack, Executor, Runnable {
    /** Thread.NO_INHERIT_THREAD_LOCALS: a fiber starts with no InheritableThreadLocal of its worker thread. */
    private static final int NO_INHERIT_THREAD_LOCALS = 1 << 2;

    private final Fiber fiber;
    /** The virtual thread the fiber runs on. */
    final Thread thread;
    /** The JDK's task that mounts and runs {@link #thread}: handed to {@link #execute} at start. */
    private Runnable runContinuation;
    /**
     * Set by the fiber just before it yields to its worker ({@link #suspend()}); cleared by the
     * {@link #execute} call that the yield makes on the same OS thread, or by the fiber if the yield
     * was refused. Touched only on the worker's OS thread, in that order.
     */
    private boolean yieldingToWorker;
    /**
     * Set by {@link #execute} when the JDK makes the fiber runnable; cleared by the trampoline just
     * before it runs the fiber. Read by the trampoline when a run returns with the fiber blocked in
     * the JDK, since the JDK may make it runnable before the trampoline has suspended it.
     */
    volatile boolean runnable;
    /** Set, on the fiber's own thread, when its body has returned. */
    private boolean ended;
    /** An internal error thrown by the fiber's body, for {@link #resume} to rethrow on the trampoline. */
    private Throwable failure;

    private VirtualFiber(Fiber fiber, String name) {
        this.fiber = fiber;
        try {
            this.thread = (Thread) Access.NEW_VIRTUAL_THREAD.invokeExact((Executor) this, name, NO_INHERIT_THREAD_LOCALS,
                    (Runnable) this);
        } catch (Throwable t) {
            throw new IllegalStateException("marl4j could not make a virtual thread for " + fiber, t);
        }
    }

    /**
     * start(fiber, name) makes fiber's virtual thread and starts it, which hands its run task to
     * {@link #execute}: nothing runs until the trampoline resumes the fiber.
     */
    static VirtualFiber start(Fiber fiber, String name) {
        VirtualFiber stack = new VirtualFiber(fiber, name);
        stack.thread.start();
        return stack;
    }

    /**
     * The body of the fiber's virtual thread: its worker's loop (see {@link Worker#run()}). This
     * object is the thread's task itself, so a fiber carries no lambda of its own.
     */
    @Override
    @SuppressWarnings("GuardedBy") // the trampoline hands the worker lock over to this virtual thread (WorkerLock.handOver) before it runs
    public void run() {
        try {
            fiber.worker.run();
        } catch (Throwable t) {
            failure = t;
        } finally {
            ended = true;
        }
    }

    /**
     * execute(task) is the JDK telling the fiber's scheduler that its thread may run: the first call
     * (from start) hands over the run task; one made by {@link #suspend()}'s own yield is dropped;
     * any other wakes the fiber on its worker. A task of another virtual thread goes to the JDK's
     * own scheduler: a virtual thread started in a task without a scheduler of its own inherits its
     * parent's, this object (the JDK's I/O pollers are started so, on first use), and a worker runs
     * only its own fibers. Any thread.
     */
    @Override
    @SuppressWarnings("GuardedBy") // wakeLocked only where isHeldByCurrentThread() says the worker lock is held
    public void execute(Runnable task) {
        if (runContinuation == null) {
            runContinuation = task; // from start(), before anything can wake the fiber
            return;
        }
        if (task != runContinuation) {
            Access.DEFAULT_SCHEDULER.execute(task);
            return;
        }
        if (yieldingToWorker) {
            yieldingToWorker = false; // the worker resumes the fiber itself
            return;
        }
        runnable = true;
        Work work = fiber.worker.work;
        if (work.lock.isHeldByCurrentThread()) {
            work.wakeLocked(fiber); // a stack walk, in a diagnostic dump: the walker holds the lock
        } else {
            work.wake(fiber);
        }
    }

    @Override
    public void resume() {
        WorkerLock lock = fiber.worker.lock();
        Thread carrier = Thread.currentThread();
        if (lock.isHeldByCurrentThread()) {
            lock.handOver(carrier, thread);
        }
        runnable = false;
        // Mounting a virtual thread takes over its carrier's interrupt status, and unmounting clears
        // it: a bound thread's own status is the application's, kept across the fibers it carries.
        boolean carrierInterrupted = carrier.isInterrupted();
        runContinuation.run();
        if (carrierInterrupted) {
            carrier.interrupt();
        }
        lock.handOver(thread, carrier);
        Throwable t = failure;
        if (t != null) {
            failure = null;
            if (t instanceof Error e) {
                throw e;
            }
            throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
        }
    }

    @Override
    public boolean suspend() {
        yieldingToWorker = true;
        Thread.yield();
        if (yieldingToWorker) { // no execute() came: the JVM refused the yield
            yieldingToWorker = false;
            return false;
        }
        return true;
    }

    @Override
    public boolean finished() {
        return ended;
    }

    /** accept(value, failure) wakes the fiber: a future's whenComplete callback. Any thread. */
    @Override
    public void accept(Object value, Throwable failure) {
        fiber.wake();
    }

    /**
     * suspendedStackTrace() walks the unmounted virtual thread. The JDK stops the thread from running
     * meanwhile and hands it to {@link #execute} afterwards in case it was made runnable meanwhile.
     * For a fiber suspended by marl4j that hand-back is no wake (its worker resumes it), so it is
     * dropped as a yield's is; for one blocked in the JDK it may be the JDK's wake, and is kept.
     * Called with the worker's lock held, which keeps the fiber from being resumed.
     */
    @Override
    @SuppressWarnings("GuardedBy") // called with the worker's lock held, as documented above
    public StackTraceElement[] suspendedStackTrace() {
        yieldingToWorker = !fiber.blockedInJdk();
        try {
            return thread.getStackTrace();
        } finally {
            yieldingToWorker = false;
        }
    }

    /** interrupt() interrupts the fiber's virtual thread: ends a blocking JDK call in it. Any thread. */
    void interrupt() {
        thread.interrupt();
    }

    /**
     * workerOf(thread) is the worker whose fiber runs on the virtual thread {@code thread}, or null if
     * it is no fiber's: read from the thread's scheduler, which for a fiber is its VirtualFiber (a
     * thread a fiber started may have inherited that scheduler, hence the check of the thread).
     */
    static Worker workerOf(Thread thread) {
        if (Access.SCHEDULER == null) {
            return null;
        }
        return Access.SCHEDULER.get(thread) instanceof VirtualFiber v && v.thread == thread ? v.fiber.worker : null;
    }

    /** isAvailable() is whether marl4j may make virtual threads with a scheduler of its own here. */
    static boolean isAvailable() {
        return Object.class.getModule().isOpen("java.lang", VirtualFiber.class.getModule()) && Access.error() == null
                && Access.SCHEDULER != null;
    }

    /** Why the builder could not be reached, or null: for the missing-flag message. */
    static Throwable unavailableBecause() {
        return Access.error();
    }

    /**
     * The JDK's package-private factory of virtual threads with a given scheduler,
     * {@code java.lang.ThreadBuilders.newVirtualThread(Executor, String, int, Runnable)}, found on
     * first use (never while java.lang is closed to marl4j).
     */
    private static final class Access {
        static final MethodHandle NEW_VIRTUAL_THREAD;
        /** The JDK's scheduler of virtual threads, for the children of fibers (see {@link #execute}). */
        static final Executor DEFAULT_SCHEDULER;
        /** java.lang.VirtualThread.scheduler, a final field: which VirtualFiber a thread belongs to, if any. */
        static final VarHandle SCHEDULER;
        private static final Throwable ERROR;

        static {
            MethodHandle handle = null;
            Throwable error = null;
            if (Object.class.getModule().isOpen("java.lang", VirtualFiber.class.getModule())) {
                try {
                    Class<?> builders = Class.forName("java.lang.ThreadBuilders");
                    handle = MethodHandles.privateLookupIn(builders, MethodHandles.lookup()).findStatic(builders,
                            "newVirtualThread",
                            MethodType.methodType(Thread.class, Executor.class, String.class, int.class, Runnable.class));
                    // A JVM without continuations makes platform-backed "virtual" threads, which refuse a scheduler.
                    Thread probe = (Thread) handle.invokeExact((Executor) Runnable::run, "marl4j-probe", 0, (Runnable) () -> {});
                    if (!probe.isVirtual()) {
                        throw new UnsupportedOperationException("this JVM's virtual threads do not run on continuations");
                    }
                } catch (Throwable t) {
                    handle = null;
                    error = t;
                }
            } else {
                error = new IllegalAccessException("java.base does not open java.lang to " + VirtualFiber.class.getModule());
            }
            NEW_VIRTUAL_THREAD = handle;
            ERROR = error;
            DEFAULT_SCHEDULER = error == null ? defaultScheduler() : null;
            SCHEDULER = error == null ? schedulerField() : null;
        }

        static Throwable error() {
            return ERROR;
        }

        /** schedulerField() is a handle on java.lang.VirtualThread.scheduler; null if the JDK has no such field. */
        private static VarHandle schedulerField() {
            try {
                Class<?> virtualThread = Class.forName("java.lang.VirtualThread");
                return MethodHandles.privateLookupIn(virtualThread, MethodHandles.lookup())
                        .findVarHandle(virtualThread, "scheduler", Executor.class);
            } catch (ReflectiveOperationException e) {
                return null;
            }
        }

        /** defaultScheduler() is java.lang.VirtualThread.defaultScheduler(), or the common pool if it has no such method. */
        private static Executor defaultScheduler() {
            try {
                Class<?> virtualThread = Class.forName("java.lang.VirtualThread");
                MethodHandle getter = MethodHandles.privateLookupIn(virtualThread, MethodHandles.lookup())
                        .findStatic(virtualThread, "defaultScheduler", MethodType.methodType(Executor.class));
                return (Executor) getter.invokeExact();
            } catch (Throwable t) {
                return java.util.concurrent.ForkJoinPool.commonPool(); // platform threads, as a carrier must be
            }
        }
    }
}
