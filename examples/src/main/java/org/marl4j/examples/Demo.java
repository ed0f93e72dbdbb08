package org.marl4j.examples;

import java.io.PrintStream;
import java.time.Duration;
import org.marl4j.Scheduler;

/**
 * Demo is the README's first command: marl4j as a drop-in {@link java.util.concurrent.Executor}
 * for the JDK's {@code HttpServer}, whose handlers await a backend future, measured beside the same
 * server on virtual threads and on a fixed thread pool (see {@link HttpServerDemo}); the same server
 * whose handler makes a plain blocking call instead, on marl4j and on virtual threads (see
 * {@link BlockingBackendDemo}); then a Reactor {@code publishOn(marl)} pipeline whose operator awaits
 * a future (see {@link ReactorExample}). It runs for about 25 seconds and exits by itself.
 *
 * <p>Each stage is one call in {@link #main}. System properties change the HTTP stage's load:
 * {@code -Ddemo.clients=64 -Ddemo.warmupMillis=1000 -Ddemo.measureMillis=4000} (the defaults). The
 * README's Maven command forwards them to the demo's JVM (examples/pom.xml, profile {@code demo}),
 * where they arrive empty when not given: an empty value means the default.
 */
public final class Demo {
    private Demo() {}

    /** A stage of the demo: prints to the given stream. */
    @FunctionalInterface
    interface Stage {
        /**
         * run runs the stage.
         *
         * @param out where the stage prints
         * @throws Exception if the stage fails
         */
        void run(PrintStream out) throws Exception;
    }

    /**
     * main runs every stage in turn.
     *
     * @param args ignored
     * @throws Exception if a stage fails
     */
    public static void main(String[] args) throws Exception {
        PrintStream out = System.out;
        long start = System.nanoTime();
        stage(out, "marl4j as a drop-in Executor for the JDK's HttpServer",
                o -> HttpServerDemo.run(o, load()));
        stage(out, "The same HttpServer over a blocking backend call (a JDBC stand-in)",
                o -> BlockingBackendDemo.run(o, blockingLoad()));
        stage(out, "Reactor: publishOn(marl) with an operator that awaits a CompletableFuture",
                o -> {
                    try (Scheduler scheduler = new Scheduler(Scheduler.Config.allCores())) {
                        ReactorExample.run(scheduler, o);
                    }
                });
        out.printf("Demo done in %.1f s.%n", (System.nanoTime() - start) / 1e9);
    }

    /** stage prints a heading and runs one stage. */
    static void stage(PrintStream out, String title, Stage stage) throws Exception {
        out.println("== " + title + " ==");
        out.println();
        stage.run(out);
        out.println();
    }

    /** load is the HTTP stage's load, from the standard one and the demo.* system properties. */
    static HttpServerDemo.Load load() {
        HttpServerDemo.Load standard = HttpServerDemo.Load.standard();
        return new HttpServerDemo.Load(
                (int) setting("demo.clients", standard.clients(), 1),
                Duration.ofMillis(setting("demo.warmupMillis", standard.warmup().toMillis(), 0)),
                Duration.ofMillis(setting("demo.measureMillis", standard.measure().toMillis(), 1)),
                standard.backendDelay());
    }

    /**
     * blockingLoad is the blocking-backend stage's load: the same clients and warm-up as the first
     * stage's, measured half as long, as it compares two servers, not three.
     */
    static HttpServerDemo.Load blockingLoad() {
        HttpServerDemo.Load load = load();
        return new HttpServerDemo.Load(load.clients(), load.warmup(), load.measure().dividedBy(2), load.backendDelay());
    }

    /**
     * setting reads a whole-number system property: absent or blank means {@code standard}; a value
     * that is not a number, or is below {@code min}, is refused with a message naming the flag
     * (rather than silently running the standard load, as {@code Long.getLong} would).
     */
    static long setting(String name, long standard, long min) {
        String value = System.getProperty(name, "").strip();
        if (value.isEmpty()) {
            return standard;
        }
        long parsed;
        try {
            parsed = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("-D" + name + "=" + value + ": expected a whole number", e);
        }
        if (parsed < min || parsed > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("-D" + name + "=" + value + ": expected " + min + " to " + Integer.MAX_VALUE);
        }
        return parsed;
    }
}
