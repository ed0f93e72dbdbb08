package org.marl4j.benchmarks;

import java.util.List;

/**
 * Workload is one line of RESULTS.md's summary: the benchmarks whose method names start with
 * {@code prefix} in one class, and the targets its marl4j rows are held to (none: rows only).
 */
record Workload(String title, Class<?> type, String prefix, List<Target> targets) {
    private static final String VT = Target.VIRTUAL_THREADS;
    private static final String JDK_VIRTUAL_THREADS = "≤ 1.0× the JDK's virtual threads, like for like";
    private static final String CONTINUATION_ENGINE = "≤ 1.2× the CONTINUATIONS row of the same config";

    /** The JDK's-virtual-threads pair of targets of a scheduling workload whose baseline is family. */
    private static List<Target> againstVirtualThreads(String family) {
        return List.of(Target.beside(JDK_VIRTUAL_THREADS, VT, 1.0, family),
                Target.besideEngine(CONTINUATION_ENGINE, VT, 1.2, "CONTINUATIONS"));
    }

    /** Every workload of the summary, in its order. */
    static final List<Workload> SUITE = List.of(
            new Workload("Schedule/Empty (262,144 tasks, no wait), ns/task", ScheduleBenchmark.class, "empty_", List.of()),
            new Workload("Schedule/WaitGroup (262,144 tasks), ns/task", ScheduleBenchmark.class, "waitGroup_", List.of()),
            new Workload("Schedule/SomeWork (512 tasks × ~170 µs), ns/task", ScheduleBenchmark.class, "someWork_", List.of()),
            new Workload("Schedule/Event (chain of 512), ns/hop", EventBenchmark.class, "chain_",
                    againstVirtualThreads("chain_virtualThreads")),
            new Workload("Schedule/EventBaton (65,536 round trips), ns/round trip", EventBenchmark.class, "baton_",
                    againstVirtualThreads("baton_virtualThreads")),
            new Workload("Schedule/Ticket (512 tickets), ns/ticket", TicketBenchmark.class, "ticket_",
                    againstVirtualThreads("ticket_virtualThreads")),
            new Workload("1,000,000 empty tasks, one producer, wait for all, ns/task", EmptyTasksBenchmark.class, "",
                    againstVirtualThreads("virtualThreadPerTask")),
            // Only the same-worker rows are held to the targets: the issue names that shape; crossWorker is shown.
            new Workload("Ping-pong over two AUTO Events, ns/round trip", PingPongBenchmark.class, "",
                    againstVirtualThreads("virtualThreads").stream().map(t -> t.onlyFor("sameWorker_")).toList()),
            new Workload("Fan-out/fan-in: 100,000 fibers each blocked on a CompletableFuture, ns/fiber",
                    FanOutBenchmark.class, "", againstVirtualThreads("virtualThreads")),
            new Workload("Release: 100,000 suspended fibers signalled at once, until all finish, ns/fiber",
                    ReleaseBenchmark.class, "", againstVirtualThreads("virtualThreads")),
            new Workload("Reactor: Flux.range(0, 1,000,000).publishOn(s), ns/element", ReactorBenchmark.class,
                    "publishOn_", List.of()),
            new Workload("Reactor: Flux.range(0, 1,000,000).subscribeOn(single()).publishOn(s), elements from another thread, ns/element",
                    ReactorBenchmark.class, "publishOnCrossThread_", List.of()),
            new Workload("Reactor: flatMap(fromCallable(call).subscribeOn(s), 256), call waits ~1 ms on a future, ns/call",
                    ReactorBenchmark.class, "blockingCalls_", List.of()),
            new Workload("Reactor: flatMap(fromCallable(sleep).subscribeOn(s), 256), a plain Thread.sleep(1) per call, ns/call",
                    ReactorBenchmark.class, "blockingSleep_", Target.ENGINES.stream().map(engine -> Target.beside(
                            "≥ 1.5× the throughput of boundedElastic()", engine, 1 / 1.5, "blockingSleep_boundedElastic")).toList()),
            new Workload("Kotlin: launch and join 1,000,000 no-op coroutines, ns/coroutine", CoroutinesBenchmark.class,
                    "launch_", List.of(Target.beside("≤ Dispatchers.Default", VT, 1.0, "launch_dispatchersDefault"))),
            new Workload("Kotlin: Channel ping-pong (100,000 round trips), ns/round trip", CoroutinesBenchmark.class,
                    "channel_", List.of(Target.beside("≤ 1.3× the one-thread floor (channel_floorOneThread)", VT, 1.3,
                            "channel_floorOneThread"))),
            new Workload("Kotlin: 100,000 coroutines each delay(1), ns/coroutine", CoroutinesBenchmark.class,
                    "delay_", List.of()));
}
