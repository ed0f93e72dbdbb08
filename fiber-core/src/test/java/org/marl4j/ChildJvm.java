package org.marl4j;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * ChildJvm runs a probe's {@code main} in a fresh JVM on this test run's class path, for the tests
 * that need a JVM of their own: without the engines' flags, with JFR never touched, or
 * with their own {@code System.err} and default uncaught-exception handler.
 */
final class ChildJvm {

    /** What a child JVM did: its exit code, and its standard output and error together. */
    record Result(int exitCode, String output) {}

    private ChildJvm() {}

    /**
     * addExports(more) is the flags of both fiber engines, this run's choice of engine (the
     * {@code org.marl4j.fiberEngine} property, if set), then {@code more} JVM arguments.
     */
    static List<String> addExports(String... more) {
        List<String> args = new ArrayList<>(List.of(OPENS, OPENS_VALUE, EXPORTS, EXPORTS_VALUE));
        String engine = System.getProperty(FiberEngine.PROPERTY);
        if (engine != null) {
            args.add("-D" + FiberEngine.PROPERTY + "=" + engine);
        }
        args.addAll(List.of(more));
        return args;
    }

    static final String OPENS = "--add-opens";
    static final String OPENS_VALUE = "java.base/java.lang=ALL-UNNAMED";
    static final String EXPORTS = "--add-exports";
    static final String EXPORTS_VALUE = "java.base/jdk.internal.vm=ALL-UNNAMED";

    /**
     * run(jvmArgs, main, args) runs {@code main} with {@code args} in a child JVM started with
     * {@code jvmArgs}, and returns once it has exited.
     *
     * @throws AssertionError if the child has not exited within a minute (it is then killed)
     */
    static Result run(List<String> jvmArgs, Class<?> main, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the child JVM running " + main.getSimpleName() + " did not exit:\n" + output);
        }
        return new Result(process.exitValue(), output);
    }
}
