package org.marl4j;

/**
 * Checks, without loading any {@code jdk.internal.vm} class, that marl4j may use Loom
 * continuations, so a missing JVM flag is reported as a clear error rather than an
 * {@link IllegalAccessError} from deep inside the first fiber switch.
 */
final class LoomAccess {
    static final String PACKAGE = "jdk.internal.vm";

    /**
     * Where the flag goes for the usual launchers. "Start the JVM with" is not enough to go on under
     * {@code mvn exec:java}, which runs the program in Maven's own JVM: there the flag belongs in
     * MAVEN_OPTS, and no exec plugin setting reaches that JVM.
     */
    private static final String WHERE_TO_PUT_IT = " Where it goes: Surefire's argLine for Maven tests,"
            + " MAVEN_OPTS for mvn exec:java (it runs in Maven's own JVM), jvmArgs for Gradle, the VM options"
            + " of an IDE's run configuration; see 'Running with the flag' in marl4j's README.";

    private LoomAccess() {}

    /** check() throws IllegalStateException naming the exact flag if continuations are not usable. */
    static void check() {
        if (!Object.class.getModule().isExported(PACKAGE, LoomAccess.class.getModule())) {
            throw new IllegalStateException(missingExportMessage(LoomAccess.class.getModule()));
        }
    }

    /**
     * missingExportMessage(module) says which flag to add for marl4j loaded into module. The
     * manifest attribute is offered only on the class path: a jar's Add-Exports exports to the
     * unnamed modules alone, so it cannot help fiber-core on the module path.
     */
    static String missingExportMessage(Module module) {
        String target = module.isNamed() ? module.getName() : "ALL-UNNAMED";
        return "marl4j runs fibers on Loom continuations (" + PACKAGE + ".Continuation), which "
                + "java.base does not export by default. Start the JVM with "
                + "--add-exports java.base/" + PACKAGE + "=" + target
                + (module.isNamed()
                        ? " (" + target + " is on the module path, where no manifest attribute can stand in for it)."
                        : " (for an executable jar, the manifest attribute "
                                + "'Add-Exports: java.base/" + PACKAGE + "' does the same).")
                + WHERE_TO_PUT_IT;
    }
}
