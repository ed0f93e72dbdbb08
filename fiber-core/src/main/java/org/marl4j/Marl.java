package org.marl4j;

import java.util.Objects;
import java.util.concurrent.Callable;

/**
 * Marl holds marl's free functions, which act on the scheduler bound to the calling thread.
 *
 * <pre>{@code
 * scheduler.bind();
 * Marl.schedule(() -> System.out.println("on a fiber"));
 * }</pre>
 */
public final class Marl {
    private Marl() {}

    /**
     * schedule(body) enqueues {@code body} as a task on the scheduler bound to the calling thread
     * (marl's {@code marl::schedule}).
     *
     * @param body the task's code
     * @throws IllegalStateException if no scheduler is bound to the calling thread
     * @throws java.util.concurrent.RejectedExecutionException if that scheduler is closed
     */
    public static void schedule(Runnable body) {
        Objects.requireNonNull(body, "task body must not be null");
        bound("Marl.schedule()").enqueue(new Task(body));
    }

    /**
     * schedule(task) enqueues {@code task} on the scheduler bound to the calling thread.
     *
     * @param task the task
     * @throws IllegalStateException if no scheduler is bound to the calling thread
     * @throws java.util.concurrent.RejectedExecutionException if that scheduler is closed
     */
    public static void schedule(Task task) {
        Objects.requireNonNull(task, "task must not be null");
        bound("Marl.schedule()").enqueue(task);
    }

    /**
     * parallelize(functions) runs every function concurrently and returns when all have finished
     * (marl's {@code marl::parallelize}): the first runs inline on the caller, the others as tasks on
     * the bound scheduler. If any throw, once all have finished the exception of the earliest of them
     * in argument order is rethrown, with the others attached as suppressed exceptions.
     *
     * @param functions the functions to run; the first runs on the caller
     * @throws IllegalStateException if more than one function is given and no scheduler is bound
     */
    public static void parallelize(Runnable... functions) {
        Objects.requireNonNull(functions, "functions must not be null");
        for (Runnable function : functions) {
            Objects.requireNonNull(function, "functions must not contain null");
        }
        if (functions.length == 0) {
            return;
        }
        Scheduler scheduler = functions.length > 1 ? bound("Marl.parallelize()") : null;
        // Each slot is written by one function's task; the WaitGroup orders the writes before the reads.
        Throwable[] failures = new Throwable[functions.length];
        WaitGroup finished = new WaitGroup(functions.length - 1);
        for (int i = 1; i < functions.length; i++) {
            Runnable function = functions[i];
            int index = i;
            scheduler.enqueue(new Task(() -> {
                try {
                    function.run();
                } catch (Throwable t) {
                    failures[index] = t;
                } finally {
                    finished.done();
                }
            }));
        }
        try {
            functions[0].run();
        } catch (Throwable t) {
            failures[0] = t;
        }
        finished.await();
        Throwable first = null;
        for (Throwable failure : failures) {
            if (failure == null) {
                continue;
            }
            if (first == null) {
                first = failure;
            } else if (failure != first) { // two functions may throw the same instance
                first.addSuppressed(failure);
            }
        }
        if (first != null) {
            throw sneaky(first);
        }
    }

    /**
     * blockingCall(call) runs a call that blocks its thread (file or socket I/O, a JDBC query, a
     * foreign lock) without blocking the calling fiber's worker thread (marl's
     * {@code marl::blocking_call}): only the calling fiber is suspended until the call returns its
     * value or throws, and that value or exception, unchanged, is what blockingCall returns or throws.
     *
     * <p>The call runs on a new virtual thread, bound to the caller's scheduler so that it may
     * schedule tasks itself. A virtual thread rather than a platform thread (marl starts an OS
     * thread per call) because a blocking call spends its life blocked: a virtual thread costs about
     * a microsecond to start, needs no pool, and releases its carrier while it blocks in I/O.
     *
     * <p>Off a fiber, or on a thread with no scheduler bound, the call simply runs on the caller.
     * So does it on a fiber of the {@link FiberEngine#VIRTUAL_THREADS} engine, which is a virtual
     * thread already: a blocking call there suspends only the fiber, with nothing to move.
     *
     * @param <T> the type of the call's result
     * @param call the thread-blocking call
     * @return what {@code call} returned
     * @throws Exception what {@code call} threw
     */
    public static <T> T blockingCall(Callable<T> call) throws Exception {
        Objects.requireNonNull(call, "call must not be null");
        Scheduler scheduler = Scheduler.get();
        Fiber fiber = Fiber.current();
        if (scheduler == null || fiber == null || fiber.virtualThread() != null) {
            return call.call();
        }
        Object[] outcome = new Object[2];
        Event finished = new Event(Event.Mode.MANUAL);
        Thread.ofVirtual().name("marl-blocking-call").start(() -> {
            try {
                scheduler.bindForBlockingCall();
                try {
                    outcome[0] = call.call();
                } finally {
                    scheduler.unbind();
                }
            } catch (Throwable t) {
                outcome[1] = t;
            } finally {
                finished.signal(); // the event's lock orders the writes to outcome before the reads
            }
        });
        finished.await();
        if (outcome[1] != null) {
            throw sneaky((Throwable) outcome[1]);
        }
        @SuppressWarnings("unchecked")
        T value = (T) outcome[0];
        return value;
    }

    /**
     * blockingCall(call) is {@link #blockingCall(Callable)} for a call with no result or checked exception.
     *
     * @param call the thread-blocking call
     */
    public static void blockingCall(Runnable call) {
        Objects.requireNonNull(call, "call must not be null");
        try {
            blockingCall(() -> {
                call.run();
                return null;
            });
        } catch (Exception e) {
            throw sneaky(e); // only unchecked exceptions can come from a Runnable
        }
    }

    /** Rethrows t as it is; callers only pass exceptions their own signature allows. */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
        throw (E) t;
    }

    /** bound(caller) is the calling thread's scheduler; throws, naming caller, if there is none. */
    private static Scheduler bound(String caller) {
        Scheduler scheduler = Scheduler.get();
        if (scheduler == null) {
            throw new IllegalStateException(caller + " needs a scheduler bound to thread "
                    + Thread.currentThread().getName() + ": call scheduler.bind() first, or use scheduler.enqueue()");
        }
        return scheduler;
    }
}
