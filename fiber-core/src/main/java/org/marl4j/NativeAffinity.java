package org.marl4j;

import java.lang.reflect.InvocationTargetException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The one door from {@link Affinity} to the operating system: finds the Linux backend if this JVM
 * can run it, else reports affinity as unsupported, and turns every native failure into a logged
 * no-op.
 *
 * <p>Implementation overview. fiber-core is Java 21 bytecode, but the foreign-function API it
 * needs for {@code sched_setaffinity} is final only from Java 22 (a preview in 21). So the
 * backend, {@code LinuxAffinityBackend}, lives in {@code src/main/java22}, is compiled with
 * {@code --release 22} into {@code META-INF/versions/22/} of the multi-release jar, and exists in
 * no other place: on Java 21 the jar has no such class, on 22+ the JVM's multi-release lookup
 * finds it. This class (compiled for 21) never names it: it loads it by name, reflectively, and
 * only after checking {@code Runtime.version().feature() >= 22}, so no Java 21 JVM ever tries to
 * load a Java 22 class file even when the versioned directory is on a plain class path (the
 * fiber-core tests put {@code target/classes/META-INF/versions/22} there, because a class
 * directory has no multi-release lookup).
 */
final class NativeAffinity {
    /** The Java 22+ implementation, present only under META-INF/versions/22. */
    static final String BACKEND_CLASS = "org.marl4j.LinuxAffinityBackend";
    /** The first Java release whose foreign-function API is final. */
    static final int FIRST_FFM_RELEASE = 22;

    private static final System.Logger LOG = System.getLogger(Affinity.class.getName());
    private static final AtomicBoolean WARNED_UNSUPPORTED = new AtomicBoolean();
    private static final AtomicBoolean WARNED_FAILURE = new AtomicBoolean();

    /** Null when unsupported; then UNSUPPORTED_REASON says why. */
    private static final Backend BACKEND;
    private static final String UNSUPPORTED_REASON;

    static {
        Backend backend = null;
        String reason;
        try {
            backend = loadBackend();
            backend.get(0); // probe: a seccomp filter or an odd kernel fails here, not in a worker
            reason = null;
        } catch (UnsupportedOperationException e) {
            backend = null;
            reason = e.getMessage();
        } catch (RuntimeException | LinkageError e) {
            backend = null;
            reason = "the native affinity calls failed: " + e;
        }
        BACKEND = backend;
        UNSUPPORTED_REASON = reason;
    }

    private NativeAffinity() {}

    /**
     * Backend is what the Java 22+ implementation provides. Both methods throw
     * {@link IllegalStateException} naming the errno when the kernel refuses.
     */
    interface Backend {
        /** get(pid) returns the CPUs in the affinity mask of thread {@code pid}; 0 means the caller. */
        int[] get(int pid);

        /** set(cpus) restricts the calling thread to the given (ascending, distinct) CPUs. */
        void set(int[] cpus);
    }

    /** isSupported() is true if the backend loaded and its first call worked. */
    static boolean isSupported() {
        return BACKEND != null;
    }

    /** unsupportedReason() says why affinity is not supported here, or is null when it is. */
    static String unsupportedReason() {
        return UNSUPPORTED_REASON;
    }

    /** requiredFlag() is the {@code java} option that enables native access for marl4j's module. */
    static String requiredFlag() {
        Module module = NativeAffinity.class.getModule();
        return "--enable-native-access=" + (module.isNamed() ? module.getName() : "ALL-UNNAMED");
    }

    /**
     * processCpus() returns the affinity mask the process started with: that of the thread whose
     * id is the process id (the launcher's first thread, which the JVM never pins), else the
     * caller's; null when unsupported or both calls fail.
     */
    static int[] processCpus() {
        if (BACKEND == null) {
            return null;
        }
        try {
            return BACKEND.get(Math.toIntExact(ProcessHandle.current().pid()));
        } catch (RuntimeException firstThreadGone) {
            return currentThreadCpus();
        }
    }

    /** currentThreadCpus() returns the calling thread's mask, or null if unsupported or refused. */
    static int[] currentThreadCpus() {
        if (BACKEND == null) {
            return null;
        }
        try {
            return BACKEND.get(0);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "sched_getaffinity failed", e);
            return null;
        }
    }

    /**
     * setCurrentThread(cpus) pins the calling thread and returns true, or returns false and logs
     * (a warning the first time, debug after) when unsupported or refused by the kernel.
     */
    static boolean setCurrentThread(int[] cpus) {
        if (BACKEND == null) {
            if (WARNED_UNSUPPORTED.compareAndSet(false, true)) {
                LOG.log(System.Logger.Level.WARNING,
                        "Thread affinity policy ignored: " + UNSUPPORTED_REASON);
            }
            return false;
        }
        try {
            BACKEND.set(cpus);
            return true;
        } catch (RuntimeException e) {
            System.Logger.Level level = WARNED_FAILURE.compareAndSet(false, true)
                    ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG;
            LOG.log(level, "Thread " + Thread.currentThread().getName() + " left unpinned: " + e.getMessage()
                    + " (the CPUs must exist and be allowed to this process; Affinity.all() lists them)");
            return false;
        }
    }

    private static Backend loadBackend() {
        String os = System.getProperty("os.name", "unknown");
        if (!os.startsWith("Linux")) {
            throw new UnsupportedOperationException(
                    "marl4j pins threads only on Linux; this is " + os);
        }
        if (Runtime.version().feature() < FIRST_FFM_RELEASE) {
            throw new UnsupportedOperationException(
                    "marl4j pins threads with the foreign-function API, final from Java "
                            + FIRST_FFM_RELEASE + "; this is Java " + Runtime.version()
                            + ": run on Java " + FIRST_FFM_RELEASE + " or later");
        }
        try {
            return (Backend) Class.forName(BACKEND_CLASS).getDeclaredConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            throw new UnsupportedOperationException(
                    BACKEND_CLASS + " is missing: it lives in META-INF/versions/22 of the fiber-core "
                            + "jar, so a repackaged (shaded) jar needs 'Multi-Release: true' in its manifest");
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof UnsupportedOperationException unsupported) {
                throw unsupported;
            }
            throw new IllegalStateException("could not set up the native affinity calls: " + cause, cause);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("could not create " + BACKEND_CLASS + ": " + e, e);
        }
    }
}
