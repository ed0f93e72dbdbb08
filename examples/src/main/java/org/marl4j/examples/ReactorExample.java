package org.marl4j.examples;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.marl4j.Scheduler;
import org.marl4j.futures.Futures;
import org.marl4j.reactive.FiberIterator;
import org.marl4j.reactive.MarlScheduler;
import org.marl4j.reactive.Publishers;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

/**
 * ReactorExample shows marl4j under Project Reactor: a {@code publishOn(marl)} stage that waits on
 * a CompletableFuture inside {@code map} (only its fiber waits), a fiber iterating a Flux with
 * backpressure, and a Publisher produced by a fiber's plain loop. Runs in well under a second.
 *
 * <p>{@link #run(Scheduler, PrintStream)} is the "Reactor stage" of the main demo: it borrows the
 * demo's scheduler and leaves it open.
 */
public final class ReactorExample {
    /** How long any step may take before the example gives up (it needs milliseconds). */
    private static final Duration LIMIT = Duration.ofSeconds(10);

    private ReactorExample() {}

    public static void main(String[] args) {
        try (Scheduler scheduler = new Scheduler(Scheduler.Config.allCores())) {
            run(scheduler, System.out);
        }
    }

    /**
     * run(scheduler, out) runs the three parts of the example on {@code scheduler}, which must have
     * worker threads, and prints what they produce to {@code out}.
     *
     * @param scheduler the marl4j scheduler to borrow (left open)
     * @param out where to print
     */
    public static void run(Scheduler scheduler, PrintStream out) {
        awaitInsideOperators(scheduler, out);
        iterate(scheduler, out);
        publish(scheduler, out);
    }

    private static void awaitInsideOperators(Scheduler scheduler, PrintStream out) {
        // readme:begin reactor-publish-on
        MarlScheduler marl = MarlScheduler.from(scheduler);   // borrow: dispose() leaves scheduler open
        List<String> users = Flux.range(1, 5)
                .publishOn(marl)
                .map(id -> Futures.await(lookUpUser(id)))      // suspends this fiber, not the thread
                .collectList()
                .block(LIMIT);
        marl.dispose();
        // readme:end reactor-publish-on
        out.println("publishOn(marl) + Futures.await: " + users);
    }

    private static void iterate(Scheduler scheduler, PrintStream out) {
        CompletableFuture<List<Long>> squares = Futures.supplyAsync(scheduler, () -> {
            // readme:begin reactor-iterate
            List<Long> seen = new ArrayList<>();
            Flux<Long> ticks = Flux.interval(Duration.ofMillis(2)).map(n -> n * n).onBackpressureBuffer();
            try (FiberIterator<Long> it = Publishers.iterate(ticks, 4)) {  // at most 4 requested ahead
                while (it.hasNext() && seen.size() < 5) {
                    seen.add(it.next());                      // suspends the fiber between ticks
                }
            }                                                 // close() cancels the endless Flux
            // readme:end reactor-iterate
            return seen;
        });
        out.println("iterate a Flux on a fiber: " + squares.orTimeout(LIMIT.toMillis(), TimeUnit.MILLISECONDS).join());
    }

    private static void publish(Scheduler scheduler, PrintStream out) {
        // readme:begin reactor-publish
        Publisher<Integer> fibonacci = Publishers.publish(scheduler, emitter -> {
            int a = 0;
            int b = 1;
            while (true) {                                    // endless: demand paces it
                emitter.emit(a);                              // suspends while nothing is requested
                int next = a + b;
                a = b;
                b = next;
            }                                                 // cancel: emit throws, the loop unwinds
        });
        List<Integer> first = Flux.from(fibonacci).take(10).collectList().block(LIMIT);
        // readme:end reactor-publish
        out.println("publish from a fiber: " + first);
    }

    /** A stand-in for an asynchronous client: answers after a millisecond, on another thread. */
    private static CompletableFuture<String> lookUpUser(int id) {
        return CompletableFuture.supplyAsync(() -> "user-" + id, CompletableFuture.delayedExecutor(1, TimeUnit.MILLISECONDS));
    }
}
