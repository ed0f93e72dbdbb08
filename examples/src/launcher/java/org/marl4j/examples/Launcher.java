package org.marl4j.examples;

import java.io.File;
import java.lang.reflect.InvocationTargetException;

/**
 * Launcher is the executable examples jar's {@code Main-Class}. It is compiled for Java 8, so that
 * {@code java -jar marl4j-examples.jar} on an older {@code java} says what to do instead of failing
 * with an {@code UnsupportedClassVersionError} or a refusal from deep inside marl4j; on Java 25 or
 * later it hands over to {@link Main}.
 */
public final class Launcher {
    /** The oldest Java that runs marl4j: the one its build compiles and tests on. */
    static final int REQUIRED = 25;

    private Launcher() {}

    /**
     * main runs {@link Main} on Java 25 or later, and otherwise explains the requirement and exits
     * with status 1.
     *
     * @param args passed on to {@link Main}
     * @throws Throwable whatever the example throws
     */
    public static void main(String[] args) throws Throwable {
        String version = System.getProperty("java.specification.version", "?");
        if (feature(version) < REQUIRED) {
            System.err.println(tooOld(version, System.getProperty("java.home", "?")));
            System.exit(1);
        }
        try {
            Class.forName("org.marl4j.examples.Main").getMethod("main", String[].class).invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** feature("1.8") is 8, feature("17") is 17; anything unreadable counts as new enough. */
    static int feature(String specificationVersion) {
        String v = specificationVersion.startsWith("1.") ? specificationVersion.substring(2) : specificationVersion;
        int dot = v.indexOf('.');
        try {
            return Integer.parseInt(dot < 0 ? v : v.substring(0, dot));
        } catch (NumberFormatException e) {
            return Integer.MAX_VALUE;
        }
    }

    /** tooOld is the message for a Java older than 25. */
    static String tooOld(String version, String javaHome) {
        return "marl4j needs Java " + REQUIRED + " or later, and this java is Java " + version + " (" + javaHome + ")."
                + System.lineSeparator() + "Run the jar with a JDK " + REQUIRED + "+ java, for instance the one the build used:"
                + System.lineSeparator() + "  /path/to/jdk-25/bin/java -jar examples" + File.separator + "target"
                + File.separator + "marl4j-examples.jar [name]";
    }
}
