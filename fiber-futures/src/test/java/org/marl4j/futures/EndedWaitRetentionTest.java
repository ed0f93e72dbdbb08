package org.marl4j.futures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TestSchedulers.PATIENCE;
import static org.marl4j.TestSchedulers.config;
import static org.marl4j.TestSchedulers.runOnFiber;
import static org.marl4j.TestSchedulers.withScheduler;

import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.marl4j.Fiber;
import org.marl4j.FiberCancellation;
import org.marl4j.FiberCancelledException;
import org.marl4j.Marl;
import org.marl4j.Scheduler;
import org.marl4j.Task;

/**
 * A wait on a long-lived future that ends without the future completing (it times out, its
 * {@link FiberCancellation} is cancelled, a bounded close of its scheduler cancels it, or
 * {@link MarlExecutorService#shutdownNow()} or {@code cancel(true)} cancels the task it is in)
 * leaves at most a constant trace on the future, however many times it is repeated: for every
 * futures waitable ({@link Futures#await} untimed and timed, on a {@link CompletableFuture} and on a
 * stage of another class; {@code get()}, {@code join()} and {@code get(timeout)} of what
 * {@link Futures#supplyAsync} and {@link MarlExecutorService#submit} return; the tasks of a timed
 * {@code invokeAll} or {@code invokeAny}). Otherwise a shutdown signal or a cache entry awaited in a
 * loop of cancelled waits would grow by one callback (and the fiber it wakes) a wait, for as long as
 * it lives.
 *
 * <p>Measured by the future's {@link CompletableFuture#getNumberOfDependents()} where there is one,
 * by the fibers of closed schedulers the future still keeps reachable, and for the executor's own
 * futures (which have no dependents count) by the heap retained after a full collection.
 */
class EndedWaitRetentionTest {
    /** Rounds of a wait that ends early on a scheduler that lives on. */
    private static final int ROUNDS = 20_000;
    /** Rounds that each create and close a scheduler (or executor): slower, so fewer. */
    private static final int CLOSING_ROUNDS = 300;
    /** Fibers waiting at once in each closing round. */
    private static final int FIBERS_PER_ROUND = 2;
    /** How long a timed wait is given where something else must end it. */
    private static final Duration LONG = Duration.ofMinutes(10);
    /**
     * The heap a wait may retain on average, in bytes: the size of the smallest object, so that
     * anything a wait leaves behind (one object at least) fills the allowance, while the noise of a
     * full collection after thousands of waits (a few bytes a wait) stays well under it.
     */
    private static final long BYTES_PER_WAIT = 16;
    private static final long POLL_NANOS = 20_000;

    /** Every futures waitable, on a future (or stage) that never completes. */
    enum Waitable {
        AWAIT_FUTURE(false),
        AWAIT_FUTURE_TIMED(true),
        AWAIT_STAGE(false),
        AWAIT_STAGE_TIMED(true),
        SUPPLY_ASYNC_GET(false),
        SUPPLY_ASYNC_JOIN(false),
        SUPPLY_ASYNC_GET_TIMED(true),
        SUBMIT_GET(false),
        SUBMIT_GET_TIMED(true);

        final boolean timed;

        Waitable(boolean timed) {
            this.timed = timed;
        }

        Target target() {
            return switch (this) {
                case AWAIT_FUTURE, AWAIT_FUTURE_TIMED -> new StageTarget(this, new CompletableFuture<>(), false);
                case AWAIT_STAGE, AWAIT_STAGE_TIMED -> new StageTarget(this, new CompletableFuture<>(), true);
                // The class Futures.supplyAsync returns, never completed (a supplier that never
                // returned would hold a fiber of the scheduler for good).
                case SUPPLY_ASYNC_GET, SUPPLY_ASYNC_JOIN, SUPPLY_ASYNC_GET_TIMED ->
                        new StageTarget(this, new FiberFriendlyFuture<>(), false);
                // The class MarlExecutorService.submit returns, never run.
                case SUBMIT_GET, SUBMIT_GET_TIMED -> new SubmittedTarget(this);
            };
        }
    }

    /** One never-completing waitable, the wait on it, and what waits left on it. */
    abstract static class Target {
        final Waitable waitable;

        Target(Waitable waitable) {
            this.waitable = waitable;
        }

        /** One wait: timed with {@code timeout} for a timed waitable, else untimed. */
        abstract void await(Duration timeout) throws Exception;

        /** The future's dependents, or -1 where it has no such count. */
        abstract int dependents();

        /** A timed wait that times out. */
        void timeOut(Duration timeout) {
            assertThrows(TimeoutException.class, () -> await(timeout));
        }

        /** A wait that its fiber's cancellation ends. */
        void awaitCancelled() {
            assertThrows(FiberCancelledException.class, () -> await(LONG));
        }

        @Override
        public String toString() {
            return waitable.name();
        }
    }

    /** A CompletableFuture, awaited itself or through a CompletionStage of another class. */
    static final class StageTarget extends Target {
        final CompletableFuture<String> future;
        final CompletionStage<String> stage;

        StageTarget(Waitable waitable, CompletableFuture<String> future, boolean otherClass) {
            super(waitable);
            this.future = future;
            this.stage = otherClass ? forwardingStage(future) : future;
        }

        @Override
        void await(Duration timeout) throws Exception {
            switch (waitable) {
                case AWAIT_FUTURE, AWAIT_STAGE -> Futures.await(stage);
                case AWAIT_FUTURE_TIMED, AWAIT_STAGE_TIMED -> Futures.await(stage, timeout);
                case SUPPLY_ASYNC_GET -> future.get();
                case SUPPLY_ASYNC_JOIN -> future.join();
                case SUPPLY_ASYNC_GET_TIMED -> future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
                default -> throw new AssertionError(waitable);
            }
        }

        @Override
        int dependents() {
            return future.getNumberOfDependents();
        }
    }

    /** A future of MarlExecutorService.submit whose task never runs. */
    static final class SubmittedTarget extends Target {
        final MarlFuture<String> future = new MarlFuture<>(() -> "never", null);

        SubmittedTarget(Waitable waitable) {
            super(waitable);
        }

        @Override
        void await(Duration timeout) throws Exception {
            if (waitable.timed) {
                future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            } else {
                future.get();
            }
        }

        @Override
        int dependents() {
            return -1;
        }
    }

    /**
     * forwardingStage(future) is a CompletionStage that is no CompletableFuture (a proxy of the
     * interface), forwarding every call to {@code future}: so its callbacks are counted on future.
     */
    @SuppressWarnings("unchecked")
    static CompletionStage<String> forwardingStage(CompletableFuture<String> future) {
        return (CompletionStage<String>) Proxy.newProxyInstance(EndedWaitRetentionTest.class.getClassLoader(),
                new Class<?>[] {CompletionStage.class}, (proxy, method, args) -> {
                    if (method.getName().equals("toString") && args == null) {
                        return "forwarding stage of " + future;
                    }
                    try {
                        return method.invoke(future, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    static Stream<Arguments> everyWaitableOnEveryWorkerCount() {
        return Stream.of(Waitable.values())
                .flatMap(w -> Stream.of(0, 1, 2, 8).map(workers -> Arguments.of(w, workers)));
    }

    static Stream<Arguments> timedWaitablesOnEveryWorkerCount() {
        return everyWaitableOnEveryWorkerCount().filter(a -> ((Waitable) a.get()[0]).timed);
    }

    /** Closing rounds need worker threads: the test thread polls for the waits while they run. */
    static Stream<Arguments> everyWaitableWithWorkerThreads() {
        return everyWaitableOnEveryWorkerCount().filter(a -> (int) a.get()[1] > 0);
    }

    @ParameterizedTest(name = "{0}, {1} worker threads")
    @MethodSource("timedWaitablesOnEveryWorkerCount")
    void timingOutRepeatedly_leavesAConstantTrace(Waitable waitable, int workers) {
        Target target = waitable.target();
        assertBounded(target, ROUNDS, 1, true, FIBERS_PER_ROUND + 1, n -> withScheduler(workers, scheduler -> runOnFiber(scheduler, () -> {
            for (int i = 0; i < n; i++) {
                // Mostly too short to suspend; every 1,000th really suspends until its timeout.
                target.timeOut(i % 1_000 == 0 ? Duration.ofMillis(1) : Duration.ofNanos(1));
            }
            return null;
        })));
    }

    @ParameterizedTest(name = "{0}, {1} worker threads")
    @MethodSource("everyWaitableOnEveryWorkerCount")
    void cancelledRepeatedly_leavesAConstantTrace(Waitable waitable, int workers) {
        Target target = waitable.target();
        assertBounded(target, ROUNDS, 1, true, FIBERS_PER_ROUND + 1, n -> withScheduler(workers, scheduler -> runOnFiber(scheduler, () -> {
            for (int i = 0; i < n; i++) {
                try (FiberCancellation scope = FiberCancellation.open()) {
                    // Queued behind this fiber: it runs once the fiber has suspended in the wait
                    // (on another worker it may come sooner, and the wait is refused at once).
                    Marl.schedule(scope::cancel);
                    target.awaitCancelled();
                }
            }
            return null;
        })));
    }

    @ParameterizedTest(name = "{0}, {1} worker threads")
    @MethodSource("everyWaitableWithWorkerThreads")
    void cancelledByABoundedCloseRepeatedly_leavesAConstantTrace(Waitable waitable, int workers) {
        Target target = waitable.target();
        List<WeakReference<Fiber>> fibers = new ArrayList<>();
        assertBounded(target, CLOSING_ROUNDS, FIBERS_PER_ROUND, false, FIBERS_PER_ROUND + 1, n -> {
            for (int i = 0; i < n; i++) {
                Scheduler scheduler = new Scheduler(config(workers));
                CountDownLatch started = new CountDownLatch(FIBERS_PER_ROUND);
                CountDownLatch cancelled = new CountDownLatch(FIBERS_PER_ROUND);
                for (int f = 0; f < FIBERS_PER_ROUND; f++) {
                    scheduler.enqueue(new Task(() -> waitUntilCancelled(target, fibers, started, cancelled)));
                }
                awaitWaiting(started, scheduler::suspendedFibers, FIBERS_PER_ROUND);
                scheduler.close(Duration.ZERO);
                assertEquals(0, cancelled.getCount(), "a bounded close ended every wait by cancelling it");
            }
        });
        assertFibersCollected(fibers);
    }

    @ParameterizedTest(name = "{0}, {1} worker threads")
    @MethodSource("everyWaitableWithWorkerThreads")
    void cancelledByShutdownNowRepeatedly_leavesAConstantTrace(Waitable waitable, int workers) {
        Target target = waitable.target();
        List<WeakReference<Fiber>> fibers = new ArrayList<>();
        assertBounded(target, CLOSING_ROUNDS, FIBERS_PER_ROUND, false, FIBERS_PER_ROUND + 1, n -> {
            for (int i = 0; i < n; i++) {
                MarlExecutorService executor = new MarlExecutorService(config(workers));
                CountDownLatch started = new CountDownLatch(FIBERS_PER_ROUND);
                CountDownLatch cancelled = new CountDownLatch(FIBERS_PER_ROUND);
                for (int f = 0; f < FIBERS_PER_ROUND; f++) {
                    executor.execute(() -> waitUntilCancelled(target, fibers, started, cancelled));
                }
                awaitWaiting(started, executor.scheduler()::suspendedFibers, FIBERS_PER_ROUND);
                assertEquals(List.of(), executor.shutdownNow(), "every task had started");
                assertTrue(awaitTermination(executor), "shutdownNow ends the tasks by cancelling their waits");
                assertEquals(0, cancelled.getCount());
            }
        });
        assertFibersCollected(fibers);
    }

    @ParameterizedTest(name = "{0}, {1} worker threads")
    @MethodSource("everyWaitableWithWorkerThreads")
    void cancelledByCancelTrueRepeatedly_leavesAConstantTrace(Waitable waitable, int workers) {
        Target target = waitable.target();
        int rounds = ROUNDS / 10; // each round waits for the test thread to see the task suspended
        MarlExecutorService executor = new MarlExecutorService(config(workers));
        try {
            assertBounded(target, rounds, 1, true, FIBERS_PER_ROUND + 1, n -> {
                for (int i = 0; i < n; i++) {
                    CountDownLatch started = new CountDownLatch(1);
                    CountDownLatch cancelled = new CountDownLatch(1);
                    Future<?> task = executor.submit(() -> waitUntilCancelled(target, null, started, cancelled));
                    awaitWaiting(started, executor.scheduler()::suspendedFibers, 1);
                    assertTrue(task.cancel(true));
                    awaitLatch(cancelled);
                    awaitSuspended(executor.scheduler()::suspendedFibers, 0);
                }
            });
        } finally {
            executor.shutdownNow();
            assertTrue(awaitTermination(executor));
        }
    }

    /**
     * A timed invokeAll or invokeAny that times out cancels its tasks (cancel(true)), ending their
     * waits: again and again on one long-lived future, which keeps a constant trace of them. Tasks
     * of several rounds may be waiting at once when the first wait ends early, so the bound is what
     * one cancelled wait, seen to its end first, left: the later rounds add nothing to it.
     */
    @ParameterizedTest(name = "{0}, {1} worker threads, invokeAny {2}")
    @MethodSource("invokeCases")
    void invokeTimingOutRepeatedly_leavesAConstantTraceOfItsTasks(Waitable waitable, int workers, boolean any) {
        Target target = waitable.target();
        int rounds = ROUNDS / 10;
        MarlExecutorService executor = new MarlExecutorService(config(workers));
        try {
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch cancelled = new CountDownLatch(1);
            Future<?> first = executor.submit(() -> waitUntilCancelled(target, null, started, cancelled));
            awaitWaiting(started, executor.scheduler()::suspendedFibers, 1);
            assertTrue(first.cancel(true));
            awaitLatch(cancelled);
            int traceOfTheFirst = target.dependents();
            assertBounded(target, rounds, 2, true, traceOfTheFirst, n -> runOnFiber(executor.scheduler(), () -> {
                for (int i = 0; i < n; i++) {
                    List<Callable<String>> tasks = List.of(() -> waitFor(target), () -> waitFor(target));
                    // Mostly too short for the tasks to start; every 10th long enough that they wait.
                    Duration timeout = i % 10 == 0 ? Duration.ofMillis(1) : Duration.ofNanos(1);
                    if (any) {
                        assertThrows(TimeoutException.class,
                                () -> executor.invokeAny(tasks, timeout.toNanos(), TimeUnit.NANOSECONDS));
                    } else {
                        executor.invokeAll(tasks, timeout.toNanos(), TimeUnit.NANOSECONDS)
                                .forEach(f -> assertTrue(f.isCancelled()));
                    }
                }
                return null;
            }));
        } finally {
            executor.shutdownNow();
            assertTrue(awaitTermination(executor));
        }
    }

    static Stream<Arguments> invokeCases() {
        return Stream.of(Waitable.AWAIT_FUTURE, Waitable.AWAIT_STAGE_TIMED, Waitable.SUPPLY_ASYNC_GET, Waitable.SUBMIT_GET)
                .flatMap(w -> Stream.of(1, 2, 8)
                .flatMap(workers -> Stream.of(Arguments.of(w, workers, true), Arguments.of(w, workers, false))));
    }

    private static String waitFor(Target target) throws Exception {
        target.await(LONG);
        throw new AssertionError("the never-completing " + target + " completed");
    }

    /** A task's body: counts down started, waits on target until its wait is cancelled, and counts that down. */
    private static void waitUntilCancelled(Target target, List<WeakReference<Fiber>> fibers,
            CountDownLatch started, CountDownLatch cancelled) {
        started.countDown();
        if (fibers != null) {
            synchronized (fibers) {
                fibers.add(new WeakReference<>(Fiber.current()));
            }
        }
        try {
            target.await(LONG);
        } catch (FiberCancelledException expected) {
            cancelled.countDown();
            return;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("the never-completing " + target + " completed");
    }

    /**
     * assertBounded(target, loops, waitsPerLoop, heap, maxDependents, body) runs body (which runs
     * the loops it is given, each of waitsPerLoop waits on target that end early) and checks what
     * they left on target: at most {@code maxDependents} dependents (where it counts them), and
     * with {@code heap} under {@link #BYTES_PER_WAIT} retained bytes a wait, measured after a
     * first tenth of the loops has loaded and compiled what the waits use. Not with heap where body
     * itself keeps something a loop (the closing loops' weak references to their fibers, which
     * {@link #assertFibersCollected} checks instead).
     */
    private static void assertBounded(Target target, int loops, int waitsPerLoop, boolean heap, int maxDependents,
            IntConsumer body) {
        long before = 0;
        int warmUpLoops = heap ? Math.max(1, loops / 10) : 0;
        if (heap) {
            body.accept(warmUpLoops);
            before = usedHeapAfterCollection();
        }
        body.accept(loops);
        int waits = loops * waitsPerLoop;
        int allWaits = (warmUpLoops + loops) * waitsPerLoop;
        int dependents = target.dependents();
        if (dependents >= 0) {
            // The trace: marl4j's one shared callback, and the callbacks of the waits that were on
            // the future when the first of them ended early (at most FIBERS_PER_ROUND, but in invokes).
            assertTrue(dependents <= maxDependents,
                    () -> dependents + " callbacks left on the future by " + allWaits + " waits that ended early on " + target);
        }
        if (!heap) {
            return;
        }
        long retained = usedHeapAfterCollection() - before;
        assertTrue(retained < waits * BYTES_PER_WAIT,
                () -> retained + " bytes retained by " + waits + " waits that ended early on " + target);
    }

    /** The fibers of the closed schedulers are collected: the future keeps none of them reachable. */
    private static void assertFibersCollected(List<WeakReference<Fiber>> fibers) {
        assertEquals(CLOSING_ROUNDS * FIBERS_PER_ROUND, fibers.size());
        // A constant few may stay: the fibers whose callbacks the trace still holds.
        Awaitility.await().atMost(PATIENCE).until(() -> {
            System.gc();
            return fibers.stream().filter(f -> f.get() != null).count() <= FIBERS_PER_ROUND;
        });
    }

    private static long usedHeapAfterCollection() {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            least = Math.min(least, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return least;
    }

    /**
     * awaitWaiting(started, suspended, count) returns once {@code count} tasks have started (so a
     * cancel(true) cancels them rather than keeping them from running) and, polled, {@code count}
     * fibers are suspended, in their waits.
     */
    private static void awaitWaiting(CountDownLatch started, java.util.function.Supplier<List<?>> suspended, int count) {
        awaitLatch(started);
        awaitSuspended(suspended, count);
    }

    /** Polls until {@code count} fibers are suspended; bounded by PATIENCE. */
    private static void awaitSuspended(java.util.function.Supplier<List<?>> suspended, int count) {
        BooleanSupplier reached = () -> suspended.get().size() == count;
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!reached.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not " + count + " suspended fibers within " + PATIENCE + ": " + suspended.get());
            }
            LockSupport.parkNanos(POLL_NANOS); // a poll, gentle on two cores
        }
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            assertTrue(latch.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS), "not counted down within " + PATIENCE);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static boolean awaitTermination(MarlExecutorService executor) {
        try {
            return executor.awaitTermination(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
