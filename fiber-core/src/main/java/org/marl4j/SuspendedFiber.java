package org.marl4j;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * A SuspendedFiber describes one fiber that is suspended in a wait, and where it waits: an entry of
 * {@link Scheduler#suspendedFibers()}, for hunting deadlocks much as a thread dump is used.
 *
 * <pre>{@code
 * scheduler.suspendedFibers().forEach(System.err::println);
 * // "fiber 3" worker 1 on marl-worker-1 WAITING
 * //     at org.marl4j.Worker.suspend(Worker.java:731)
 * //     ...
 * //     at org.marl4j.Event.await(Event.java:130)
 * //     at com.example.Pipeline.lambda$start$0(Pipeline.java:57)
 * }</pre>
 *
 * <p>The stack trace starts at marl4j's {@code Worker.suspend} (the frames above it are the
 * continuation's yield machinery); the primitive's method and the user code that called it follow.
 * A bound thread's main fiber (the thread itself blocked in a marl4j wait) has no continuation: its
 * frames are the part of that thread's stack below its own wait.
 *
 * @param name the fiber: {@code "fiber <n>"} (numbered per worker) or {@code "main fiber"} (a bound
 *     thread)
 * @param workerId its worker thread's id, or -1 for the worker of a thread bound with
 *     {@link Scheduler#bind()}
 * @param threadName the thread the fiber runs on, and will resume on
 * @param state why it is not running
 * @param timeLeft for {@link State#TIMED_WAITING}, the time until its deadline when the snapshot
 *     was taken (zero or negative once due); otherwise null
 * @param stackTrace where it waits, innermost frame first; empty if the JVM could not walk it
 */
public record SuspendedFiber(String name, int workerId, String threadName, State state, Duration timeLeft,
        List<StackTraceElement> stackTrace) {

    /** Why a suspended fiber is not running, named after the {@link Thread.State} it resembles. */
    public enum State {
        /** WAITING: suspended until woken by the primitive it waits on. */
        WAITING,
        /** TIMED_WAITING: suspended until woken or its deadline (a timeout, or {@link Fiber#sleep}). */
        TIMED_WAITING,
        /**
         * READY: woken or timed out, queued to resume once its worker gets to it. A fiber that stays
         * READY points at a worker kept busy (a task that never blocks) rather than at a deadlock.
         */
        READY
    }

    /**
     * SuspendedFiber(...) describes one suspended fiber; see the class comment for each component.
     *
     * @param name the fiber's name
     * @param workerId its worker thread's id, or -1 for a bound thread's worker
     * @param threadName the thread the fiber runs on
     * @param state why it is not running
     * @param timeLeft the time until its deadline, or null
     * @param stackTrace where it waits, innermost frame first; copied
     */
    public SuspendedFiber {
        stackTrace = List.copyOf(stackTrace);
    }

    /**
     * of(fiber, thread, pinned, now) describes a suspended fiber running on {@code thread};
     * {@code pinned} says the JVM could not yield it, so it blocks that thread with its continuation
     * still mounted. Called with the fiber's worker lock held, which keeps the fiber from being
     * resumed while its stack is walked.
     */
    @SuppressWarnings("GuardedBy") // called with the fiber's worker lock held, as documented above
    static SuspendedFiber of(Fiber fiber, Thread thread, boolean pinned, long now) {
        State state = switch (fiber.state) {
            case YIELDED -> State.WAITING;
            case WAITING -> State.TIMED_WAITING;
            default -> State.READY; // QUEUED: woken, not yet resumed
        };
        Duration timeLeft = state == State.TIMED_WAITING ? Duration.ofNanos(fiber.timerIfAny().deadline - now) : null;
        StackTraceElement[] frames = null;
        if (!fiber.isMain() && !pinned) {
            frames = fiber.stack.suspendedStackTrace();
        } else if (fiber.virtualThread() != null) {
            frames = fiber.virtualThread().thread.getStackTrace(); // pinned: mounted on its worker's thread
        } else if (thread != null) {
            // A main fiber, or a pinned fiber: their frames are on the thread's own stack.
            frames = thread.getStackTrace();
        }
        return new SuspendedFiber(fiber.isMain() ? "main fiber" : "fiber " + fiber.id(), fiber.worker.id,
                thread == null ? "?" : thread.getName(), state, timeLeft,
                frames == null ? List.of() : Arrays.asList(fromSuspend(frames)));
    }

    /**
     * addSuspendedOf(worker, into) describes every fiber of {@code worker} that is suspended in a
     * wait, with where it waits. Holding the worker's lock keeps each fiber unmounted while its
     * continuation is walked, since a worker resumes fibers only with its lock held; it also stalls
     * the worker for the walk, which is the price of a diagnostic snapshot.
     */
    @Excludes("worker.work.lock")
    @SuppressWarnings("GuardedBy") // every listed fiber is the worker's: worker.work.lock is the f.worker.work.lock it needs
    static void addSuspendedOf(Worker worker, List<SuspendedFiber> into) {
        Work work = worker.work;
        Thread thread = worker.thread();
        work.lock.lock();
        try {
            long now = System.nanoTime();
            for (Fiber f : work.suspendedFibers()) {
                into.add(of(f, thread, f.pinned(), now));
            }
        } finally {
            work.lock.unlock();
        }
    }

    /**
     * fromSuspend(frames) drops the frames above the deepest {@code Worker.suspend}. The deepest one:
     * a thread's stack may hold the frames of the fibers it runs above its main fiber's wait.
     */
    private static StackTraceElement[] fromSuspend(StackTraceElement[] frames) {
        for (int i = frames.length - 1; i >= 0; i--) {
            if (frames[i].getClassName().equals(Worker.class.getName()) && frames[i].getMethodName().equals("suspend")) {
                return Arrays.copyOfRange(frames, i, frames.length);
            }
        }
        return frames; // Worker.suspend renamed or inlined out of the trace: show everything
    }

    /** toString() prints this fiber as a thread dump prints a thread: a header line, then its frames. */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder()
                .append('"').append(name).append('"')
                .append(workerId >= 0 ? " worker " + workerId : " bound worker")
                .append(" on ").append(threadName).append(' ').append(state);
        if (timeLeft != null) {
            out.append(" (").append(timeLeft.toMillis()).append(" ms left)");
        }
        out.append('\n');
        for (StackTraceElement frame : stackTrace) {
            out.append("    at ").append(frame).append('\n');
        }
        return out.toString();
    }
}
