package org.marl4j.examples;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Main is the executable examples jar's entry point:
 * {@code java -jar examples/target/marl4j-examples.jar [name] [args...]} runs the named example
 * ({@code demo} if none is named). The jar's manifest carries {@code Add-Opens: java.base/java.lang}
 * and {@code Add-Exports: java.base/jdk.internal.vm}, so no JVM flag is needed.
 */
public final class Main {
    /** An example's entry point. */
    @FunctionalInterface
    interface Example {
        /**
         * main runs the example.
         *
         * @param args the arguments after the example's name
         * @throws Exception if the example fails
         */
        void main(String[] args) throws Exception;
    }

    /** Every example, by the name that runs it, in the order the usage lists them. */
    static final Map<String, Example> EXAMPLES = new LinkedHashMap<>();

    static {
        EXAMPLES.put("demo", Demo::main);
        EXAMPLES.put("fractal", Fractal::main);
        EXAMPLES.put("primes", Primes::main);
        EXAMPLES.put("hello-task", HelloTask::main);
        EXAMPLES.put("tasks-in-tasks", TasksInTasks::main);
        EXAMPLES.put("quick-start", QuickStart::main);
        EXAMPLES.put("await-futures", AwaitFutures::main);
        EXAMPLES.put("await-with-callback", AwaitWithCallback::main);
        EXAMPLES.put("http-executor", ExecutorHttpServer::main);
        EXAMPLES.put("blocking-drop-in", BlockingDropIn::main);
        EXAMPLES.put("reactor", ReactorExample::main);
        EXAMPLES.put("kotlin", args -> KotlinExampleKt.main());
    }

    private Main() {}

    /**
     * main runs the example named by the first argument, or the demo.
     *
     * @param args the example's name, then its arguments
     * @throws Exception if the example fails
     */
    public static void main(String[] args) throws Exception {
        String name = args.length == 0 ? "demo" : args[0];
        Example example = EXAMPLES.get(name);
        if (example == null) {
            System.err.println("unknown example '" + name + "'. Usage: java -jar marl4j-examples.jar [name] [args...]");
            System.err.println("examples: " + String.join(", ", EXAMPLES.keySet()));
            System.exit(2);
        }
        example.main(args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length));
    }
}
