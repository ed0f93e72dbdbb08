package org.marl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packaged examples jar runs with plain {@code java -jar}: its manifest names the main class
 * and carries {@code Add-Opens} and {@code Add-Exports}, so no JVM flag is needed. Runs in the
 * integration-test phase, after the jar is built.
 */
class ExecutableJarIT {
    /** Set by the pom's integration-test execution only, after the jar is packaged. */
    private static final String JAR_PROPERTY = System.getProperty("examples.jar");
    private static final Path JAR = Path.of(JAR_PROPERTY == null ? "target/marl4j-examples.jar" : JAR_PROPERTY);

    @BeforeAll
    static void onlyAfterPackaging() {
        // A -Dtest=... filter also runs this class in the test phase, before the jar exists or is current.
        assumeTrue(JAR_PROPERTY != null, "runs in the integration-test phase, against the packaged jar");
    }

    @Test
    void manifest_namesTheMainClassAndCarriesBothEnginesFlags() throws IOException {
        try (JarFile jar = new JarFile(JAR.toFile())) {
            Attributes attributes = jar.getManifest().getMainAttributes();
            assertEquals(Launcher.class.getName(), attributes.getValue(Attributes.Name.MAIN_CLASS));
            assertEquals("java.base/java.lang", attributes.getValue("Add-Opens"));
            assertEquals("java.base/jdk.internal.vm", attributes.getValue("Add-Exports"));
            assertTrue(jar.getEntry("org/marl4j/Scheduler.class") != null, "fiber-core is inside the jar");
            assertTrue(jar.getEntry("org/marl4j/futures/Futures.class") != null, "fiber-futures is inside the jar");
        }
    }

    @Test
    void javaJar_runsANamedExampleWithoutAnyFlag() throws Exception {
        Run run = javaJar("hello-task");
        assertEquals(0, run.exit(), run.output());
        assertTrue(run.output().contains("All tasks said hello."), run.output());
    }

    @Test
    void javaJar_runsOnTheVirtualThreadEngineWithoutAnyFlag() throws Exception {
        Run run = javaJar("blocking-drop-in");
        assertEquals(0, run.exit(), run.output());
        assertTrue(run.output().contains("1000 of 1000 requests read back their own id (VIRTUAL_THREADS)"), run.output());
    }

    @Test
    void javaJar_passesArgumentsToTheExample() throws Exception {
        Run run = javaJar("primes", "1000");
        assertEquals(0, run.exit(), run.output());
        assertTrue(run.output().contains("168 primes in 1..1,000"), run.output());
    }

    @Test
    void javaJar_unknownExample_listsTheNamesAndFails() throws Exception {
        Run run = javaJar("no-such-example");
        assertEquals(2, run.exit(), run.output());
        assertTrue(run.output().contains("examples: demo, fractal, primes"), run.output());
    }

    /** Where a Java older than 25 is installed (Debian's JDK 17 on the build machine), the jar says so. */
    @Test
    void javaJar_onAJavaOlderThan25_explainsTheRequirement() throws Exception {
        Path oldJava = null;
        for (String home : List.of("/usr/lib/jvm/java-17-openjdk-amd64", "/usr/lib/jvm/java-17-openjdk-arm64",
                "/usr/lib/jvm/java-11-openjdk-amd64", "/usr/lib/jvm/java-8-openjdk-amd64")) {
            if (Files.isExecutable(Path.of(home, "bin", "java"))) {
                oldJava = Path.of(home, "bin", "java");
                break;
            }
        }
        assumeTrue(oldJava != null, "no Java older than 25 installed here");
        Run run = run(List.of(oldJava.toString(), "-jar", JAR.toString(), "hello-task"));
        assertEquals(1, run.exit(), run.output());
        assertTrue(run.output().contains("marl4j needs Java 25 or later"), run.output());
    }

    private record Run(int exit, String output) {}

    /** javaJar runs the jar on this test's own JVM (the JDK the build selected), with no flags. */
    private static Run javaJar(String... args) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-jar", JAR.toString()));
        command.addAll(List.of(args));
        return run(command);
    }

    private static Run run(List<String> command) throws Exception {
        Path log = Files.createTempFile("examples-jar", ".log");
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new AssertionError(String.join(" ", command) + " did not exit within 2 minutes");
            }
            return new Run(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
