package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Without --add-exports the first Scheduler says exactly which flag is missing. */
class LoomAccessTest {

    private static ChildJvm.Result runProbe(boolean withFlag) throws IOException, InterruptedException {
        return ChildJvm.run(withFlag ? ChildJvm.addExports() : List.of(), LoomAccessProbe.class);
    }

    @Test
    void withoutTheFlagTheFirstSchedulerThrowsNamingIt() throws Exception {
        ChildJvm.Result result = runProbe(false);
        assertNotEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().contains("IllegalStateException"), result.output());
        assertTrue(result.output().contains("--add-exports java.base/jdk.internal.vm=ALL-UNNAMED"), result.output());
    }

    @Test
    void onTheModulePath_theMessageNamesTheModule_andOffersNoManifestAttribute() {
        // A jar's Add-Exports attribute exports to the unnamed modules only: it cannot help a named module.
        String named = LoomAccess.missingExportMessage(String.class.getModule());
        assertTrue(named.contains("--add-exports java.base/jdk.internal.vm=java.base"), named);
        assertFalse(named.contains("manifest attribute 'Add-Exports"), named);
        String unnamed = LoomAccess.missingExportMessage(LoomAccessTest.class.getModule());
        assertTrue(unnamed.contains("--add-exports java.base/jdk.internal.vm=ALL-UNNAMED"), unnamed);
        assertTrue(unnamed.contains("manifest attribute 'Add-Exports: java.base/jdk.internal.vm'"), unnamed);
    }

    @Test
    void theMessageSaysWhereTheFlagGoes_forMavenExecJavaToo() {
        // Under mvn exec:java the program runs in Maven's own JVM: "start the JVM with" is not enough to go on.
        String message = LoomAccess.missingExportMessage(LoomAccessTest.class.getModule());
        assertTrue(message.contains("MAVEN_OPTS for mvn exec:java"), message);
        assertTrue(message.contains("Surefire's argLine"), message);
        assertTrue(message.contains("'Running with the flag'"), message);
    }

    @Test
    void withTheFlagTheSchedulerWorks() throws Exception {
        ChildJvm.Result result = runProbe(true);
        assertEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().contains("constructed Scheduler@"), result.output());
    }
}
