package org.marl4j.reactive;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * ReactorErrors hands a task's exception to Reactor's own error handling, exactly as Reactor's
 * schedulers do: the thread's uncaught-exception handler (or Reactor's logger), then the
 * {@link Schedulers#onHandleError} hooks.
 *
 * <p>Reactor keeps that logic in the package-private {@code Schedulers.handleError(Throwable)}, and
 * the combined hook in a package-private field, so there is no public call that reaches it. Two
 * routes, chosen once:
 * <ol>
 *   <li>{@link Route#DIRECT}: a {@link MethodHandle} on {@code Schedulers.handleError}, obtained with
 *       {@link MethodHandles#privateLookupIn}. This is Reactor's own code, so unwrapping, logging and
 *       hook order stay whatever the running Reactor version does. It works whenever reactor-core's
 *       package is open to us: always on the class path (the unnamed module opens everything), and
 *       on the module path only with {@code --add-opens reactor.core/reactor.core.scheduler=...}.
 *   <li>{@link Route#FUNNEL}: otherwise, a public route: {@code Schedulers.fromExecutor(Runnable::run)}
 *       runs a task inline and passes what it throws to {@code Schedulers.handleError} (Reactor's
 *       {@code ExecutorScheduler} has done so since 3.0). We schedule a runnable that rethrows the
 *       error. Its one side effect: {@link Schedulers#onSchedule} hooks see that extra runnable.
 * </ol>
 * Neither route parses Reactor's internals beyond the one method name, and if both failed (a future
 * Reactor removed the method and changed ExecutorScheduler) the error still reaches the thread's
 * uncaught-exception handler, so it is never silently lost.
 */
final class ReactorErrors {
    /** How an error reaches Reactor's handling. */
    enum Route { DIRECT, FUNNEL }

    private static final ReactorErrors INSTANCE = new ReactorErrors(findHandleError());

    /** Non-null when the DIRECT route is available. */
    private final MethodHandle handleError;
    /** The inline scheduler of the FUNNEL route; created lazily because it is rarely needed. */
    private volatile Scheduler funnel;

    ReactorErrors(MethodHandle handleError) {
        this.handleError = handleError;
    }

    /** handle(error) reports a task's uncaught exception to Reactor; never throws. */
    static void handle(Throwable error) {
        INSTANCE.report(error);
    }

    /** route() says which route this JVM uses, for the tests and the javadoc's claims. */
    static Route route() {
        return INSTANCE.handleError != null ? Route.DIRECT : Route.FUNNEL;
    }

    /** report(error) sends error to Reactor by this instance's route. */
    void report(Throwable error) {
        try {
            if (handleError != null) {
                handleError.invokeExact(error);
            } else {
                funnel().schedule(() -> {
                    throw ReactorErrors.<RuntimeException>sneaky(error);
                });
            }
        } catch (Throwable failed) {
            // A hook or handler that throws, or a Reactor whose routes both changed: the thread's
            // handler still hears of the original error, and of the failure to report it.
            if (failed != error) {
                error.addSuppressed(failed);
            }
            Thread thread = Thread.currentThread();
            thread.getUncaughtExceptionHandler().uncaughtException(thread, error);
        }
    }

    private Scheduler funnel() {
        Scheduler s = funnel;
        if (s == null) {
            s = Schedulers.fromExecutor(Runnable::run);
            funnel = s; // a benign race: two inline schedulers behave the same
        }
        return s;
    }

    /** The DIRECT route's handle, or null when reactor-core's package is not open to this module. */
    private static MethodHandle findHandleError() {
        try {
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(Schedulers.class, MethodHandles.lookup());
            return lookup.findStatic(Schedulers.class, "handleError", MethodType.methodType(void.class, Throwable.class));
        } catch (ReflectiveOperationException | RuntimeException closed) {
            return null;
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E sneaky(Throwable error) throws E {
        throw (E) error;
    }
}
