package org.marl4j.examples;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Output captures what a program prints to {@code System.out}, from any thread, while it runs.
 * The examples module runs its tests one at a time (no parallel execution is configured), so
 * swapping {@code System.out} is safe here.
 */
final class Output {
    /** A program that may throw. */
    @FunctionalInterface
    interface Program {
        void run() throws Exception;
    }

    private Output() {}

    /** of runs the program and returns what it printed to System.out. */
    static String of(Program program) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            program.run();
        } finally {
            System.out.flush();
            System.setOut(original);
        }
        String printed = bytes.toString(StandardCharsets.UTF_8);
        original.print(printed); // keep it in the test log
        return printed;
    }
}
