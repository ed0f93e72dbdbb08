package org.marl4j;

/**
 * How a scheduler's fibers suspend and resume: marl's {@code OSFiber}, of which marl has several
 * (assembly, ucontext, Windows fibers). Chosen per scheduler with
 * {@link Scheduler.Config#setFiberEngine}; {@link #defaultEngine()} otherwise.
 *
 * <table>
 *   <caption>What each engine gives and needs</caption>
 *   <tr><th></th><th>{@link #VIRTUAL_THREADS}</th><th>{@link #CONTINUATIONS}</th></tr>
 *   <tr><td>a fiber is</td><td>a virtual thread whose scheduler is its worker</td>
 *       <td>a raw continuation on its worker's thread</td></tr>
 *   <tr><td>blocking JDK calls (sleep, I/O, locks, {@code synchronized})</td>
 *       <td>suspend the fiber only</td><td>hold the worker thread</td></tr>
 *   <tr><td>{@code ThreadLocal}s, interrupt status, {@code Thread.currentThread()}</td>
 *       <td>the fiber's own</td><td>the worker thread's, shared by its fibers</td></tr>
 *   <tr><td>a monitor or {@code ReentrantLock} held across a marl4j wait</td>
 *       <td>keeps its exclusion</td><td>loses it, or deadlocks the worker: never do it</td></tr>
 *   <tr><td>JVM flag</td><td>{@code --add-opens java.base/java.lang=ALL-UNNAMED}</td>
 *       <td>{@code --add-exports java.base/jdk.internal.vm=ALL-UNNAMED}</td></tr>
 * </table>
 *
 * <p>Both keep marl's model: a fiber always resumes on the worker that owns it, a worker runs tasks
 * inline on its current fiber and starts another fiber only when that one blocks, idle fibers are
 * reused, and only tasks that have not started are stolen.
 */
public enum FiberEngine {
    /**
     * Each fiber is a virtual thread whose scheduler is the marl4j worker that owns it; the worker
     * threads are marl4j's own platform threads and carry them. Every blocking call of the JDK
     * (sleep, socket and file I/O, {@code java.util.concurrent} locks and queues, {@code Object.wait},
     * {@code synchronized}) suspends only the fiber, as on any virtual thread; {@code ThreadLocal}s
     * and the interrupt status are the fiber's own. Needs
     * {@code --add-opens java.base/java.lang=ALL-UNNAMED}: marl4j makes these virtual threads
     * through the JDK's package-private builder that takes a scheduler.
     */
    VIRTUAL_THREADS,
    /**
     * Each fiber is a raw {@code jdk.internal.vm.Continuation} run on its worker's thread: the
     * leanest switch and the smallest suspended fiber. The fibers of a worker share its thread:
     * its {@code ThreadLocal}s, its interrupt status and its monitors. So a blocking JDK call holds
     * the worker thread (move it off with {@link Marl#blockingCall}), and a fiber must never wait
     * on a marl4j primitive while holding a monitor or a thread-owned lock such as
     * {@code ReentrantLock} (use {@link Mutex}). Needs
     * {@code --add-exports java.base/jdk.internal.vm=ALL-UNNAMED}.
     */
    CONTINUATIONS;

    /** The system property that names the default engine: {@code VIRTUAL_THREADS} or {@code CONTINUATIONS}. */
    public static final String PROPERTY = "org.marl4j.fiberEngine";

    /**
     * isAvailable() is whether this JVM gives marl4j what the engine needs: the flag above (for
     * virtual threads, also a JVM whose virtual threads run on continuations).
     *
     * @return whether a scheduler may use this engine
     */
    public boolean isAvailable() {
        return switch (this) {
            case VIRTUAL_THREADS -> VirtualFiber.isAvailable();
            case CONTINUATIONS -> LoomAccess.continuationsAvailable();
        };
    }

    /**
     * defaultEngine() is the engine of a scheduler whose config names none: the one the system
     * property {@value #PROPERTY} names, if set; else {@link #VIRTUAL_THREADS} if available; else
     * {@link #CONTINUATIONS} if available.
     *
     * @return the default engine
     * @throws IllegalStateException if the JVM is older than JDK 25, or the property names no
     *     engine, or names one whose flag is missing, or neither engine is available; the message
     *     names the JDK needed or the flag to add
     */
    public static FiberEngine defaultEngine() {
        LoomAccess.requireSupportedJdk();
        String named = System.getProperty(PROPERTY);
        if (named != null && !named.isBlank()) {
            FiberEngine engine;
            try {
                engine = valueOf(named.trim().toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("-D" + PROPERTY + "=" + named + " names no fiber engine: use "
                        + VIRTUAL_THREADS + " or " + CONTINUATIONS + ", or leave it unset to pick the first available");
            }
            return engine.requireAvailable("-D" + PROPERTY + "=" + named);
        }
        if (VIRTUAL_THREADS.isAvailable()) {
            return VIRTUAL_THREADS;
        }
        if (CONTINUATIONS.isAvailable()) {
            return CONTINUATIONS;
        }
        throw new IllegalStateException(LoomAccess.neitherEngineMessage(FiberEngine.class.getModule()));
    }

    /** requireAvailable(askedBy) returns this engine, or throws naming its missing flag and who asked for it. */
    FiberEngine requireAvailable(String askedBy) {
        LoomAccess.requireSupportedJdk();
        if (!isAvailable()) {
            throw new IllegalStateException(askedBy + " asks for the " + this + " fiber engine, but "
                    + LoomAccess.missingFlagMessage(this, FiberEngine.class.getModule()));
        }
        return this;
    }
}
