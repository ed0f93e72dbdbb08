package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/** Test fixtures: marl's {@code WithBoundScheduler}, with a check that no worker thread outlives close(). */
final class TestSchedulers {
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private TestSchedulers() {}

    /** A config with the given worker count and a thread-name prefix unique to this scheduler. */
    static Scheduler.Config config(int workers) {
        return new Scheduler.Config()
                .setWorkerThreadCount(workers)
                .setThreadNamePrefix("marl-test-" + SEQUENCE.incrementAndGet() + "-worker-");
    }

    /**
     * withBoundScheduler(workers, body) creates a scheduler, binds it to this thread, runs body,
     * unbinds, closes, and asserts that none of its worker threads is still alive.
     */
    static void withBoundScheduler(int workers, Consumer<Scheduler> body) {
        withBoundScheduler(config(workers), body);
    }

    static void withBoundScheduler(Scheduler.Config config, Consumer<Scheduler> body) {
        Scheduler scheduler = new Scheduler(config);
        try {
            scheduler.bind();
            try {
                body.accept(scheduler);
            } finally {
                scheduler.unbind();
            }
        } finally {
            scheduler.close();
        }
        assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    /** assertNoThreadsLeft(prefix) fails if a live thread's name starts with prefix. */
    static void assertNoThreadsLeft(String prefix) {
        List<String> alive = Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(name -> name.startsWith(prefix))
                .toList();
        assertEquals(List.of(), alive, "worker threads outlived close()");
    }

    /** stress() is true when stress tests should run their long configuration (-DstressTest=true). */
    static boolean stress() {
        return Boolean.getBoolean("stressTest");
    }
}
