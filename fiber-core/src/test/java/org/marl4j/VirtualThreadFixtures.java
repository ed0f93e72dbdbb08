package org.marl4j;

import java.util.function.Consumer;

/**
 * Fixtures of the fiber-engine tests: a scheduler on a named engine, and the carrier a fiber runs
 * on. Each test names its engine explicitly, so the tests mean the same whatever
 * {@code -Dorg.marl4j.fiberEngine} the run sets.
 */
final class VirtualThreadFixtures {
    private VirtualThreadFixtures() {}

    /** config(errors, engine, workers) is {@link TaskErrors#config(int)} on the given engine. */
    static Scheduler.Config config(TaskErrors errors, FiberEngine engine, int workers) {
        return errors.config(workers).setFiberEngine(engine);
    }

    /**
     * withScheduler(engine, workers, body) creates a scheduler on engine, binds it to the test
     * thread only when it has no workers (so that its tasks run on this thread whenever it waits on
     * a marl4j primitive), runs body, closes it, checks no worker thread outlived it, and fails if
     * any task threw.
     */
    static void withScheduler(FiberEngine engine, int workers, Consumer<Scheduler> body) {
        TaskErrors errors = new TaskErrors();
        Scheduler.Config config = config(errors, engine, workers);
        try (Scheduler scheduler = new Scheduler(config)) {
            if (workers == 0) {
                scheduler.bind(); // close() unbinds it, running what is left
            }
            body.accept(scheduler);
        }
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
        errors.assertNone();
    }

    /**
     * awaitAll(group) waits, bounded by {@link TestSchedulers#PATIENCE}, for a test's tasks: on a
     * bound test thread the wait suspends its main fiber, which is what lets the tasks run there.
     */
    static void awaitAll(WaitGroup group) {
        if (!group.await(TestSchedulers.PATIENCE)) {
            throw new AssertionError("the tasks did not finish within " + TestSchedulers.PATIENCE + ": " + group);
        }
    }

    /** awaitSignal(event) is {@link #awaitAll} for an Event. */
    static void awaitSignal(Event event) {
        if (!event.await(TestSchedulers.PATIENCE)) {
            throw new AssertionError("not signalled within " + TestSchedulers.PATIENCE + ": " + event);
        }
    }

    /**
     * carrierName() is the name of the platform thread the caller runs on: for a virtual thread,
     * its carrier, which {@code VirtualThread.toString()} shows after the {@code @}
     * ({@code VirtualThread[#42,name]/runnable@marl-worker-0}); for a platform thread, its own name.
     */
    static String carrierName() {
        Thread thread = Thread.currentThread();
        if (!thread.isVirtual()) {
            return thread.getName();
        }
        String shown = thread.toString();
        int at = shown.lastIndexOf('@');
        if (at < 0) {
            throw new AssertionError("a mounted virtual thread shows no carrier: " + shown);
        }
        return shown.substring(at + 1);
    }
}
