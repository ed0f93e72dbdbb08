package org.marl4j.examples;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import org.marl4j.FiberEngine;
import org.marl4j.Scheduler;
import org.marl4j.futures.MarlExecutorService;

/**
 * BlockingBackendDemo is the demo's blocking-backend round: the same {@code HttpServer} as
 * {@link HttpServerDemo}, but its handler makes a plain blocking call ({@code Thread.sleep}, standing
 * in for a JDBC query) instead of awaiting a future. Served by a {@link MarlExecutorService} and by a
 * virtual thread per task, with the same clients, it shows whether the blocking call held marl4j's
 * worker threads: on the {@link FiberEngine#VIRTUAL_THREADS} engine it suspends only the request's
 * fiber; on {@link FiberEngine#CONTINUATIONS} it holds the worker, as on a fixed pool.
 */
final class BlockingBackendDemo {
    private BlockingBackendDemo() {}

    /**
     * run serves {@code load} with both executors through the blocking handler, prints their numbers
     * and what they show, and returns marl4j's result, then the virtual threads'.
     */
    static List<HttpServerDemo.Result> run(PrintStream out, HttpServerDemo.Load load) throws Exception {
        Scheduler.Config config = Scheduler.Config.allCores();
        int threads = config.getWorkerThreadCount();
        FiberEngine engine = config.getFiberEngine() != null ? config.getFiberEngine() : FiberEngine.defaultEngine();
        out.printf(Locale.ROOT, "The handler now calls Thread.sleep(%d ms), as a JDBC query blocks its thread, instead of%n"
                + "awaiting a future. marl4j runs on the %s fiber engine%n(-D%s=VIRTUAL_THREADS|CONTINUATIONS"
                + " chooses it).%n", load.backendDelay().toMillis(), engine, FiberEngine.PROPERTY);
        List<HttpServerDemo.Named> servers = List.of(
                new HttpServerDemo.Named("marl4j MarlExecutorService (" + threads + " workers, no spin)",
                        () -> new MarlExecutorService(HttpServerDemo.serverConfig())),
                new HttpServerDemo.Named("virtual thread per task", Executors::newVirtualThreadPerTaskExecutor));
        List<HttpServerDemo.Result> results = HttpServerDemo.measure(out, servers, load, HttpServerDemo.Backend.BLOCKING);
        out.print(summary(results, threads, engine, load.backendDelay()));
        return results;
    }

    /**
     * summary says what the numbers show, compared as they came out: whether marl4j passed the
     * ceiling that blocked worker threads would impose, and how it compares with virtual threads.
     *
     * @param results marl4j's result, then the virtual threads'
     */
    static String summary(List<HttpServerDemo.Result> results, int threads, FiberEngine engine, Duration delay) {
        HttpServerDemo.Result marl = results.get(0);
        HttpServerDemo.Result virtual = results.get(1);
        double ceiling = threads * 1e9 / delay.toNanos();
        double overVirtual = marl.perSecond() / Math.max(1e-9, virtual.perSecond());
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT,
                "If each sleep held a worker thread, %d workers could not pass about %,.0f requests/s.%n",
                threads, ceiling));
        if (marl.perSecond() > ceiling * 1.05) {
            text.append(String.format(Locale.ROOT, "marl4j served %,.0f: the sleeps suspended only their fibers"
                    + " (%s engine), on %d threads.%n", marl.perSecond(), engine, threads));
        } else if (engine == FiberEngine.CONTINUATIONS) {
            text.append(String.format(Locale.ROOT, "marl4j served %,.0f: on the CONTINUATIONS engine a blocking JDK"
                    + " call holds its worker thread.%nUse the VIRTUAL_THREADS engine (its flag: --add-opens"
                    + " java.base/java.lang=ALL-UNNAMED), or wrap such calls in Marl.blockingCall.%n", marl.perSecond()));
        } else {
            text.append(String.format(Locale.ROOT, "marl4j served %,.0f, under that ceiling: the cores (shared with the"
                    + " load generator) limited it first.%n", marl.perSecond()));
        }
        text.append(String.format(Locale.ROOT, "Against a virtual thread per task: %.2fx its requests/s, p99 %.1f ms"
                + " against %.1f ms.%n", overVirtual, marl.p99Nanos() / 1e6, virtual.p99Nanos() / 1e6));
        return text.toString();
    }
}
