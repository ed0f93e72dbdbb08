package org.marl4j.futures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TestSchedulers.PATIENCE;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.marl4j.Event;
import org.marl4j.Fiber;

/**
 * Every timed method of fiber-futures at the extremes of its timeout: Long.MIN_VALUE, -1 and 0
 * answer at once that the time is up, as {@code ThreadPoolExecutor} and {@code FutureTask} do;
 * Long.MAX_VALUE (in any unit) waits until the condition holds, and Duration overloads saturate
 * instead of throwing ArithmeticException. A wait whose remaining time overflows would hang here,
 * which the timeout turns into a failure.
 */
@Timeout(value = 20)
class TimeoutExtremesTest {
    private static final long PATIENCE_S = PATIENCE.toSeconds();

    /** Every (workers, owned) kind crossed with the timeouts that have already elapsed. */
    static Stream<Arguments> elapsed() {
        return ExecutorFixture.kinds().flatMap(kind -> Stream.of(
                        Arguments.of(Long.MIN_VALUE, TimeUnit.NANOSECONDS), Arguments.of(Long.MIN_VALUE, TimeUnit.MILLISECONDS),
                        Arguments.of(Long.MIN_VALUE, TimeUnit.DAYS), Arguments.of(-1L, TimeUnit.NANOSECONDS),
                        Arguments.of(0L, TimeUnit.NANOSECONDS), Arguments.of(0L, TimeUnit.MILLISECONDS))
                .map(t -> Arguments.of(kind.get()[0], kind.get()[1], t.get()[0], t.get()[1])));
    }

    /** Every kind crossed with the unbounded timeouts. */
    static Stream<Arguments> unbounded() {
        return ExecutorFixture.kinds().flatMap(kind -> Stream.of(TimeUnit.NANOSECONDS, TimeUnit.MILLISECONDS, TimeUnit.DAYS)
                .map(unit -> Arguments.of(kind.get()[0], kind.get()[1], Long.MAX_VALUE, unit)));
    }

    @ParameterizedTest(name = "{0} workers, owned {1}: {2} {3}")
    @MethodSource("elapsed")
    void awaitTermination_elapsedTimeout_returnsFalseAtOnce_runningOrShutDown(int workers, boolean owned, long timeout,
            TimeUnit unit) throws Exception {
        Event hold = new Event(Event.Mode.MANUAL);
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            f.executor.execute(hold::await);
            assertFalse(f.executor.awaitTermination(timeout, unit), "running executor");
            f.executor.shutdown(); // the task still holds it: the shut-down branch of the wait
            assertFalse(f.executor.awaitTermination(timeout, unit), "shut down with a task unfinished");
            hold.signal();
            assertTrue(f.executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS));
            assertTrue(f.executor.awaitTermination(timeout, unit), "terminated: true whatever the timeout");
        }
    }

    @ParameterizedTest(name = "{0} workers, owned {1}: {2} {3}")
    @MethodSource("unbounded")
    void awaitTermination_unboundedTimeout_waitsForTermination(int workers, boolean owned, long timeout, TimeUnit unit)
            throws Exception {
        Event hold = new Event(Event.Mode.MANUAL);
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            f.executor.execute(hold::await);
            f.executor.shutdown();
            hold.signal();
            assertTrue(f.executor.awaitTermination(timeout, unit));
        }
    }

    @ParameterizedTest(name = "{0} workers, owned {1}: {2} {3}")
    @MethodSource("elapsed")
    void futureGet_elapsedTimeout_timesOutAtOnce_onAThreadAndOnAFiber(int workers, boolean owned, long timeout,
            TimeUnit unit) throws Exception {
        Event hold = new Event(Event.Mode.MANUAL);
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            Future<String> held = f.executor.submit(() -> {
                hold.await();
                return "held";
            });
            CompletableFuture<String> supplied = Futures.supplyAsync(f.scheduler, () -> {
                hold.await();
                return "supplied";
            });
            for (Future<String> future : List.of(held, supplied)) {
                assertThrows(TimeoutException.class, () -> future.get(timeout, unit), "caller's thread");
                Future<Class<?>> onFiber = f.executor.submit(() -> thrownBy(() -> future.get(timeout, unit)));
                assertEquals(TimeoutException.class, onFiber.get(PATIENCE_S, TimeUnit.SECONDS), "on a fiber");
            }
            hold.signal();
            assertEquals("held", held.get(PATIENCE_S, TimeUnit.SECONDS));
            assertEquals("supplied", supplied.get(PATIENCE_S, TimeUnit.SECONDS));
        }
    }

    @ParameterizedTest(name = "{0} workers, owned {1}: {2} {3}")
    @MethodSource("unbounded")
    void futureGet_unboundedTimeout_waitsForTheResult_onAThreadAndOnAFiber(int workers, boolean owned, long timeout,
            TimeUnit unit) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            Future<String> submitted = f.executor.submit(() -> "submitted");
            CompletableFuture<String> supplied = Futures.supplyAsync(f.scheduler, () -> "supplied");
            assertEquals("submitted", submitted.get(timeout, unit));
            assertEquals("supplied", supplied.get(timeout, unit));
            Future<String> onFiber = f.executor.submit(() -> {
                Future<String> later = f.executor.submit(() -> "later");
                CompletableFuture<String> suppliedLater = Futures.supplyAsync(f.scheduler, () -> "supplied later");
                return later.get(timeout, unit) + ", " + suppliedLater.get(timeout, unit);
            });
            assertEquals("later, supplied later", onFiber.get(PATIENCE_S, TimeUnit.SECONDS));
        }
    }

    @ParameterizedTest(name = "{0} workers, owned {1}: {2} {3}")
    @MethodSource("elapsed")
    void invokeAnyAndInvokeAll_elapsedTimeout_giveUpAtOnce(int workers, boolean owned, long timeout, TimeUnit unit)
            throws Exception {
        Event hold = new Event(Event.Mode.MANUAL);
        Callable<String> held = () -> {
            hold.await();
            return "held";
        };
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            assertThrows(TimeoutException.class, () -> f.executor.invokeAny(List.of(held, held), timeout, unit));
            for (Future<String> future : f.executor.invokeAll(List.of(held, held), timeout, unit)) {
                assertTrue(future.isCancelled(), "a task invokeAll gave up on is cancelled");
            }
            hold.signal();
        }
    }

    @ParameterizedTest(name = "{0} workers, owned {1}: {2} {3}")
    @MethodSource("unbounded")
    void invokeAnyAndInvokeAll_unboundedTimeout_waitForTheTasks(int workers, boolean owned, long timeout, TimeUnit unit)
            throws Exception {
        Callable<String> quick = () -> "quick";
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            assertEquals("quick", f.executor.invokeAny(List.of(quick, quick), timeout, unit));
            for (Future<String> future : f.executor.invokeAll(List.of(quick, quick), timeout, unit)) {
                assertEquals("quick", future.get());
            }
        }
    }

    static Stream<Arguments> elapsedDurations() {
        return ExecutorFixture.kinds().flatMap(kind -> Stream.of(Duration.ofSeconds(Long.MIN_VALUE), Duration.ofNanos(-1),
                        Duration.ZERO)
                .map(d -> Arguments.of(kind.get()[0], kind.get()[1], d)));
    }

    static Stream<Arguments> unboundedDurations() {
        return ExecutorFixture.kinds().flatMap(kind -> Stream.of(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999),
                        Duration.ofNanos(Long.MAX_VALUE))
                .map(d -> Arguments.of(kind.get()[0], kind.get()[1], d)));
    }

    @ParameterizedTest(name = "{0} workers, owned {1}: {2}")
    @MethodSource("elapsedDurations")
    void futuresAwait_elapsedDuration_timesOutAtOnce_onAThreadAndOnAFiber(int workers, boolean owned, Duration timeout)
            throws Exception {
        CompletableFuture<String> never = new CompletableFuture<>();
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            assertThrows(TimeoutException.class, () -> Futures.await(never, timeout));
            Future<Class<?>> onFiber = f.executor.submit(() -> thrownBy(() -> Futures.await(never, timeout)));
            assertEquals(TimeoutException.class, onFiber.get(PATIENCE_S, TimeUnit.SECONDS));
        }
    }

    @ParameterizedTest(name = "{0} workers, owned {1}: {2}")
    @MethodSource("unboundedDurations")
    void futuresAwait_unboundedDuration_saturatesAndWaitsForTheStage(int workers, boolean owned, Duration timeout)
            throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            assertEquals("done", Futures.await(Futures.supplyAsync(f.scheduler, () -> "done"), timeout));
            Future<String> onFiber = f.executor.submit(() -> {
                CompletableFuture<String> later = Futures.supplyAsync(f.scheduler, () -> "later");
                return Futures.await(later.thenApply(s -> s + "!"), timeout);
            });
            assertEquals("later!", onFiber.get(PATIENCE_S, TimeUnit.SECONDS));
        }
    }

    /** thrownBy(body) runs body on the current fiber and returns the class of what it threw. */
    private static Class<?> thrownBy(Callable<?> body) {
        assertTrue(Fiber.current() != null, "runs on a fiber");
        try {
            body.call();
            return null;
        } catch (Exception e) {
            return e.getClass();
        }
    }
}
