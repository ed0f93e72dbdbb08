package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each fiber engine needs its own JVM flag: the default engine is the first one available, an engine
 * asked for without its flag fails the Scheduler constructor naming the flag, and with neither flag
 * the message names both. Each case runs in a child JVM with exactly the flags it names.
 */
class LoomAccessTest {
    private static final String OPENS = "--add-opens java.base/java.lang=ALL-UNNAMED";
    private static final String EXPORTS = "--add-exports java.base/jdk.internal.vm=ALL-UNNAMED";

    private static ChildJvm.Result runProbe(boolean opens, boolean exports, String engine, String... property)
            throws IOException, InterruptedException {
        List<String> args = new ArrayList<>();
        if (opens) {
            args.addAll(List.of(ChildJvm.OPENS, ChildJvm.OPENS_VALUE));
        }
        if (exports) {
            args.addAll(List.of(ChildJvm.EXPORTS, ChildJvm.EXPORTS_VALUE));
        }
        args.addAll(List.of(property));
        return ChildJvm.run(args, LoomAccessProbe.class, engine);
    }

    @Test
    void withNeitherFlag_theFirstSchedulerThrowsNamingBoth_recommendingAddOpens() throws Exception {
        ChildJvm.Result result = runProbe(false, false, "default");
        assertNotEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().contains("IllegalStateException"), result.output());
        assertTrue(result.output().contains(OPENS + " (recommended"), result.output());
        assertTrue(result.output().contains(EXPORTS), result.output());
    }

    @Test
    void withBothFlags_theDefaultIsVirtualThreads() throws Exception {
        ChildJvm.Result result = runProbe(true, true, "default");
        assertEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().contains("ran on VIRTUAL_THREADS"), result.output());
    }

    @Test
    void withAddOpensOnly_virtualThreadsWork_withoutTheContinuationExport() throws Exception {
        ChildJvm.Result result = runProbe(true, false, "default");
        assertEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().contains("ran on VIRTUAL_THREADS"), result.output());
    }

    @Test
    void withAddExportsOnly_theDefaultIsContinuations() throws Exception {
        ChildJvm.Result result = runProbe(false, true, "default");
        assertEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().contains("ran on CONTINUATIONS"), result.output());
    }

    @Test
    void virtualThreadsAskedForWithoutItsFlag_failTheConstructorNamingAddOpens() throws Exception {
        ChildJvm.Result result = runProbe(false, true, "VIRTUAL_THREADS");
        assertNotEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().contains("IllegalStateException: Scheduler.Config.setFiberEngine(VIRTUAL_THREADS)"),
                result.output());
        assertTrue(result.output().contains(OPENS), result.output());
    }

    @Test
    void continuationsAskedForWithoutTheirFlag_failTheConstructorNamingAddExports() throws Exception {
        ChildJvm.Result result = runProbe(true, false, "CONTINUATIONS");
        assertNotEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().contains("IllegalStateException: Scheduler.Config.setFiberEngine(CONTINUATIONS)"),
                result.output());
        assertTrue(result.output().contains(EXPORTS), result.output());
    }

    @Test
    void thePropertyChoosesTheDefault_andAMissingFlagForItIsNamed() throws Exception {
        ChildJvm.Result chosen = runProbe(true, true, "default", "-Dorg.marl4j.fiberEngine=continuations");
        assertEquals(0, chosen.exitCode(), chosen.output());
        assertTrue(chosen.output().contains("ran on CONTINUATIONS"), chosen.output());
        ChildJvm.Result missing = runProbe(true, false, "default", "-Dorg.marl4j.fiberEngine=CONTINUATIONS");
        assertNotEquals(0, missing.exitCode(), missing.output());
        assertTrue(missing.output().contains("-Dorg.marl4j.fiberEngine=CONTINUATIONS asks for the CONTINUATIONS"),
                missing.output());
        assertTrue(missing.output().contains(EXPORTS), missing.output());
    }

    @Test
    void aPropertyNamingNoEngine_isRefusedNamingTheChoices() {
        String old = System.getProperty(FiberEngine.PROPERTY);
        System.setProperty(FiberEngine.PROPERTY, "GREEN_THREADS");
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class, FiberEngine::defaultEngine);
            assertTrue(e.getMessage().contains("VIRTUAL_THREADS or CONTINUATIONS"), e.getMessage());
        } finally {
            if (old == null) {
                System.clearProperty(FiberEngine.PROPERTY);
            } else {
                System.setProperty(FiberEngine.PROPERTY, old);
            }
        }
    }

    @Test
    void onTheModulePath_theMessageNamesTheModule_andOffersNoManifestAttribute() {
        // A jar's Add-Exports/Add-Opens attribute applies to the unnamed modules only: it cannot help a named module.
        String named = LoomAccess.neitherEngineMessage(String.class.getModule());
        assertTrue(named.contains("--add-opens java.base/java.lang=java.base"), named);
        assertFalse(named.contains("manifest attribute '"), named);
        String unnamed = LoomAccess.neitherEngineMessage(LoomAccessTest.class.getModule());
        assertTrue(unnamed.contains(OPENS), unnamed);
        assertTrue(unnamed.contains("manifest attribute 'Add-Opens: java.base/java.lang'"), unnamed);
    }

    @Test
    void theMessageSaysWhereTheFlagGoes_forMavenExecJavaToo() {
        // Under mvn exec:java the program runs in Maven's own JVM: "start the JVM with" is not enough to go on.
        String message = LoomAccess.neitherEngineMessage(LoomAccessTest.class.getModule());
        assertTrue(message.contains("MAVEN_OPTS for mvn exec:java"), message);
        assertTrue(message.contains("Surefire's argLine"), message);
        assertTrue(message.contains("docs/running.md ('Running with the flags')"), message);
    }

    @Test
    void aJdkOlderThan25_isRefusedNamingTheRunningVersionAndTheRequirement() {
        String message = LoomAccess.unsupportedJdkMessage(Runtime.Version.parse("21.0.5+11"), "/opt/jdk-21");
        assertTrue(message.startsWith("marl4j needs JDK 25 or later"), message);
        assertTrue(message.contains("this JVM is Java 21.0.5+11 (/opt/jdk-21)"), message);
        assertTrue(message.contains("Run it on a JDK 25 or later."), message);
        assertTrue(LoomAccess.unsupportedJdkMessage(Runtime.Version.parse("24"), "/opt/jdk-24").contains("Java 24 "));
    }

    @Test
    void jdk25AndLater_areAccepted() {
        assertNull(LoomAccess.unsupportedJdkMessage(Runtime.Version.parse("25"), "/opt/jdk-25"));
        assertNull(LoomAccess.unsupportedJdkMessage(Runtime.Version.parse("25.0.1+8-LTS"), "/opt/jdk-25"));
        assertNull(LoomAccess.unsupportedJdkMessage(Runtime.Version.parse("26-ea+3"), "/opt/jdk-26"));
        assertDoesNotThrow(LoomAccess::requireSupportedJdk); // this JVM: the build runs its tests on JDK 25+
    }
}
