package org.marl4j.examples;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import org.marl4j.Fiber;
import org.marl4j.Scheduler;
import org.marl4j.reactive.MarlSchedulersFactory;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * ReactorWideExample moves all of Reactor's own schedulers onto marl4j with one call, runs a
 * {@code Flux.interval} (whose timer is Reactor's {@code parallel()}), and puts Reactor's schedulers
 * back.
 */
public final class ReactorWideExample {
    /** How long the example may take before it gives up (it needs milliseconds). */
    private static final Duration LIMIT = Duration.ofSeconds(10);

    private ReactorWideExample() {}

    public static void main(String[] args) {
        try (Scheduler scheduler = new Scheduler(Scheduler.Config.allCores())) {
            run(scheduler, System.out);
        }
    }

    /**
     * run(scheduler, out) sets Reactor's scheduler factory to marl4j over {@code scheduler} (which
     * must have worker threads), prints whether three interval ticks ran on marl4j's fibers, and
     * resets the factory.
     *
     * @param scheduler the marl4j scheduler to borrow (left open)
     * @param out where to print
     */
    public static void run(Scheduler scheduler, PrintStream out) {
        // readme:begin reactor-factory
        Schedulers.setFactory(MarlSchedulersFactory.of(scheduler)); // parallel(), single(), boundedElastic(), timers
        try {
            List<Boolean> onFibers = Flux.interval(Duration.ofMillis(10)) // ticks on Schedulers.parallel(): marl4j
                    .take(3)
                    .map(tick -> Fiber.current() != null)
                    .collectList()
                    .block(LIMIT);
            out.println("interval ticks on marl4j fibers: " + onFibers);
        } finally {
            Schedulers.resetFactory(); // Reactor's own schedulers again; the marl4j scheduler stays open
        }
        // readme:end reactor-factory
    }
}
