package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Without --add-exports the first Scheduler says exactly which flag is missing. */
class LoomAccessTest {

    private static Result runProbe(boolean withFlag) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        if (withFlag) {
            command.add("--add-exports");
            command.add("java.base/jdk.internal.vm=ALL-UNNAMED");
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(LoomAccessProbe.class.getName());
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "probe JVM did not exit");
        return new Result(process.exitValue(), output);
    }

    private record Result(int exitCode, String output) {}

    @Test
    void withoutTheFlagTheFirstSchedulerThrowsNamingIt() throws Exception {
        Result result = runProbe(false);
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
    void withTheFlagTheSchedulerWorks() throws Exception {
        Result result = runProbe(true);
        assertEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().contains("constructed Scheduler@"), result.output());
    }
}
