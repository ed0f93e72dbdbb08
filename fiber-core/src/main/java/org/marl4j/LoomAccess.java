package org.marl4j;

/**
 * Checks, without loading any {@code jdk.internal.vm} class, which {@link FiberEngine}s this JVM
 * lets marl4j use, and words the error that names the missing flag, so that a missing JVM flag is
 * reported as a clear error rather than an {@link IllegalAccessError} from deep inside the first
 * fiber switch.
 */
final class LoomAccess {
    static final String PACKAGE = "jdk.internal.vm";

    /** The flag of each engine, for a module (or ALL-UNNAMED on the class path). */
    private static String flag(FiberEngine engine, String target) {
        return engine == FiberEngine.VIRTUAL_THREADS
                ? "--add-opens java.base/java.lang=" + target
                : "--add-exports java.base/" + PACKAGE + "=" + target;
    }

    /** The manifest attribute of an executable jar that does what the flag does. */
    private static String manifestAttribute(FiberEngine engine) {
        return engine == FiberEngine.VIRTUAL_THREADS ? "Add-Opens: java.base/java.lang" : "Add-Exports: java.base/" + PACKAGE;
    }

    /**
     * Where the flag goes for the usual launchers. "Start the JVM with" is not enough to go on under
     * {@code mvn exec:java}, which runs the program in Maven's own JVM: there the flag belongs in
     * MAVEN_OPTS, and no exec plugin setting reaches that JVM.
     */
    private static final String WHERE_TO_PUT_IT = " Where it goes: Surefire's argLine for Maven tests,"
            + " MAVEN_OPTS for mvn exec:java (it runs in Maven's own JVM), jvmArgs for Gradle, the VM options"
            + " of an IDE's run configuration; see marl4j's guide, docs/running.md ('Running with the flags').";

    /**
     * The oldest JDK marl4j runs on: the one its build compiles and tests on. Both engines reach
     * into the JDK's internals (the continuation class, the builder of virtual threads with a
     * scheduler), whose behaviour marl4j is tested against on this release only.
     */
    static final int REQUIRED_JDK = 25;

    private LoomAccess() {}

    /**
     * requireSupportedJdk() throws if this JVM is older than {@link #REQUIRED_JDK}. The jars are older
     * bytecode than that, so that such a JVM loads them and gets this message rather than an
     * {@link UnsupportedClassVersionError} from whichever class it loads first.
     */
    static void requireSupportedJdk() {
        String problem = unsupportedJdkMessage(Runtime.version(), System.getProperty("java.home", "?"));
        if (problem != null) {
            throw new IllegalStateException(problem);
        }
    }

    /** unsupportedJdkMessage(running, javaHome) words the refusal of a JVM older than {@link #REQUIRED_JDK}; null if it is not. */
    static String unsupportedJdkMessage(Runtime.Version running, String javaHome) {
        if (running.feature() >= REQUIRED_JDK) {
            return null;
        }
        return "marl4j needs JDK " + REQUIRED_JDK + " or later, and this JVM is Java " + running + " (" + javaHome
                + "): marl4j's fiber engines use JDK internals (Loom continuations, virtual threads with a scheduler"
                + " of their own) that it is built and tested against on JDK " + REQUIRED_JDK + " only. Run it on a JDK "
                + REQUIRED_JDK + " or later.";
    }

    /** continuationsAvailable() is whether java.base exports jdk.internal.vm to marl4j. */
    static boolean continuationsAvailable() {
        return Object.class.getModule().isExported(PACKAGE, LoomAccess.class.getModule());
    }

    private static String target(Module module) {
        return module.isNamed() ? module.getName() : "ALL-UNNAMED";
    }

    /**
     * neitherEngineMessage(module) says, when no engine is available, which flag to add for marl4j
     * loaded into module, recommending the virtual-thread engine's.
     */
    static String neitherEngineMessage(Module module) {
        String target = target(module);
        return "marl4j runs fibers either as virtual threads on its own workers, which needs "
                + flag(FiberEngine.VIRTUAL_THREADS, target) + " (recommended: blocking calls, ThreadLocals and locks"
                + " then work in fibers as on any virtual thread), or as raw Loom continuations, which needs "
                + flag(FiberEngine.CONTINUATIONS, target) + "; this JVM was started with neither."
                + manifestHint(module, FiberEngine.VIRTUAL_THREADS) + WHERE_TO_PUT_IT;
    }

    /** missingFlagMessage(engine, module) says which flag the engine needs for marl4j loaded into module. */
    static String missingFlagMessage(FiberEngine engine, Module module) {
        String target = target(module);
        String why = engine == FiberEngine.VIRTUAL_THREADS
                ? "it makes virtual threads with a scheduler of its own through the JDK's java.lang internals"
                : "it runs fibers on Loom continuations (" + PACKAGE + ".Continuation), which java.base does not export by default";
        Throwable cause = engine == FiberEngine.VIRTUAL_THREADS ? VirtualFiber.unavailableBecause() : null;
        boolean flagIsThere = engine == FiberEngine.VIRTUAL_THREADS
                && Object.class.getModule().isOpen("java.lang", LoomAccess.class.getModule());
        if (flagIsThere) {
            return "this JVM cannot give marl4j virtual threads with a scheduler of its own (" + cause
                    + "): use " + FiberEngine.CONTINUATIONS + " with " + flag(FiberEngine.CONTINUATIONS, target) + ".";
        }
        return why + ": start the JVM with " + flag(engine, target) + "."
                + manifestHint(module, engine) + WHERE_TO_PUT_IT;
    }

    /**
     * The manifest attribute is offered only on the class path: a jar's Add-Exports/Add-Opens
     * applies to the unnamed modules alone, so it cannot help fiber-core on the module path.
     */
    private static String manifestHint(Module module, FiberEngine engine) {
        return module.isNamed()
                ? " (" + target(module) + " is on the module path, where no manifest attribute can stand in for it)."
                : " (For an executable jar, the manifest attribute '" + manifestAttribute(engine) + "' does the same.)";
    }
}
