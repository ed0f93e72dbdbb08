package org.marl4j;

/**
 * Checks, without loading any {@code jdk.internal.vm} class, that marl4j may use Loom
 * continuations, so a missing JVM flag is reported as a clear error rather than an
 * {@link IllegalAccessError} from deep inside the first fiber switch.
 */
final class LoomAccess {
    static final String PACKAGE = "jdk.internal.vm";

    private LoomAccess() {}

    /** The flag users must pass to {@code java}, for the module marl4j was loaded into. */
    static String requiredFlag() {
        Module module = LoomAccess.class.getModule();
        String target = module.isNamed() ? module.getName() : "ALL-UNNAMED";
        return "--add-exports java.base/" + PACKAGE + "=" + target;
    }

    /** check() throws IllegalStateException naming the exact flag if continuations are not usable. */
    static void check() {
        if (!Object.class.getModule().isExported(PACKAGE, LoomAccess.class.getModule())) {
            throw new IllegalStateException(
                    "marl4j runs fibers on Loom continuations (" + PACKAGE + ".Continuation), which "
                            + "java.base does not export by default. Start the JVM with "
                            + requiredFlag()
                            + " (for an executable jar, the manifest attribute "
                            + "'Add-Exports: java.base/" + PACKAGE + "' does the same).");
        }
    }
}
