package org.marl4j.futures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.marl4j.Event;
import org.marl4j.Scheduler;
import org.marl4j.TestSchedulers;

/**
 * The futures of Futures.supplyAsync and runAsync, joined or got on a fiber, suspend the fiber
 * instead of holding its thread, then answer as the JDK's own would. The cases that hung before:
 * a bound thread of a scheduler without worker threads, and a task joining another on the only
 * worker.
 */
class FiberFriendlyFutureTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @Test
    void onABoundThreadWithNoWorkers_joinAndGetRunTheTaskInsteadOfWaitingForever() {
        assertTimeoutPreemptively(PATIENCE, () -> TestSchedulers.withBoundScheduler(0, scheduler -> {
            assertEquals(42, Futures.supplyAsync(scheduler, () -> 42).join());
            try {
                assertEquals(43, Futures.supplyAsync(scheduler, () -> 43).get());
                assertEquals(44, Futures.supplyAsync(scheduler, () -> 44).get(10, TimeUnit.SECONDS));
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            assertEquals(46, Futures.supplyAsync(scheduler, () -> 45).thenApply(x -> x + 1).join(), "a stage made from it");
        }), "a bound thread hung joining its own scheduler's task");
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void aTaskJoiningTasksOfItsOwnScheduler_suspends_soTheyRunEvenOnTheOnlyWorker(int workers) {
        assertTimeoutPreemptively(PATIENCE, () -> {
            try (Scheduler scheduler = new Scheduler(TestSchedulers.config(workers))) {
                // Each outer task joins an inner one queued behind it: with plain joins, as many outer
                // tasks as workers held every thread while their inner tasks waited in the queue.
                CompletableFuture<?>[] outers = new CompletableFuture<?>[workers * 4];
                for (int i = 0; i < outers.length; i++) {
                    int n = i;
                    outers[i] = Futures.supplyAsync(scheduler, () -> Futures.supplyAsync(scheduler, () -> n).join() + 1);
                }
                for (int i = 0; i < outers.length; i++) {
                    assertEquals(i + 1, outers[i].join());
                }
            }
        }, workers + " workers hung");
    }

    @Test
    void onAFiber_theAnswersAreTheJdks_exceptionsWrappedAsJoinAndGetWrapThem() {
        TestSchedulers.withBoundScheduler(1, scheduler -> {
            IllegalStateException boom = new IllegalStateException("boom");
            CompletableFuture<Object> failed = Futures.supplyAsync(scheduler, () -> {
                throw boom;
            });
            CompletableFuture<String> checked = TestSchedulers.onFiber(scheduler, () -> {
                CompletionException joined = assertThrows(CompletionException.class, failed::join);
                assertSame(boom, joined.getCause());
                ExecutionException got = assertThrows(ExecutionException.class, failed::get);
                assertSame(boom, got.getCause());
                return "checked";
            });
            assertEquals("checked", TestSchedulers.get(checked));
        });
    }

    @Test
    void onAFiber_aTimedGetTimesOut_andLeavesTheFutureAsItWas() {
        TestSchedulers.withBoundScheduler(1, scheduler -> {
            Event never = new Event(Event.Mode.MANUAL);
            CompletableFuture<String> slow = Futures.supplyAsync(scheduler, () -> {
                never.await();
                return "late";
            });
            CompletableFuture<Throwable> timedOut = TestSchedulers.onFiber(scheduler, () -> {
                try {
                    slow.get(20, TimeUnit.MILLISECONDS);
                    return null;
                } catch (Exception e) {
                    return e;
                }
            });
            assertInstanceOf(TimeoutException.class, TestSchedulers.get(timedOut));
            never.signal();
            assertEquals("late", TestSchedulers.get(slow));
        });
    }

    @Test
    void onAFiber_aTimedGetTakesAnyTimeout_andFuturesAwaitTakesTheFuture() {
        TestSchedulers.withBoundScheduler(1, scheduler -> {
            CompletableFuture<String> checked = TestSchedulers.onFiber(scheduler, () -> {
                Event go = new Event(Event.Mode.MANUAL);
                CompletableFuture<String> later = Futures.supplyAsync(scheduler, () -> {
                    go.await();
                    return "later";
                });
                go.signal();
                // A timeout no Duration holds in nanoseconds, as the JDK's get takes it.
                assertEquals("later", later.get(Long.MAX_VALUE, TimeUnit.DAYS));
                assertEquals("now", Futures.await(Futures.supplyAsync(scheduler, () -> "now")));
                assertEquals("soon", Futures.await(Futures.supplyAsync(scheduler, () -> "soon"), Duration.ofSeconds(10)));
                return "checked";
            });
            assertEquals("checked", TestSchedulers.get(checked));
        });
    }

    @Test
    void aTimedGetWithoutAUnit_throwsNamingTheFix() {
        TestSchedulers.withBoundScheduler(1, scheduler -> {
            CompletableFuture<String> pending = Futures.supplyAsync(scheduler, () -> "done").thenCompose(v -> new CompletableFuture<>());
            NullPointerException onTheBoundThread = assertThrows(NullPointerException.class, () -> pending.get(1, null));
            assertTrue(onTheBoundThread.getMessage().contains("TimeUnit"), onTheBoundThread.getMessage());
            Throwable on = TestSchedulers.runOnFiber(scheduler, () -> {
                try {
                    pending.get(1, null);
                    return null;
                } catch (NullPointerException e) {
                    return e;
                }
            });
            assertInstanceOf(NullPointerException.class, on);
            assertTrue(on.getMessage().contains("TimeUnit"), on.getMessage());
        });
    }

    @Test
    void offAFiber_nothingChanges() throws Exception {
        try (Scheduler scheduler = new Scheduler(TestSchedulers.config(1))) {
            Event go = new Event(Event.Mode.MANUAL);
            CompletableFuture<String> waiting = Futures.supplyAsync(scheduler, () -> {
                go.await();
                return "done";
            });
            assertThrows(TimeoutException.class, () -> waiting.get(20, TimeUnit.MILLISECONDS));
            go.signal();
            assertEquals("done", waiting.join());
            assertTrue(waiting.isDone());
        }
    }
}
