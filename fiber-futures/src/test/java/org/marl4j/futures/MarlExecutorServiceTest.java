package org.marl4j.futures;

import org.marl4j.TestSchedulers;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.marl4j.Event;
import org.marl4j.FiberEngine;
import org.marl4j.Fiber;
import org.marl4j.FiberCancelledException;
import org.marl4j.Scheduler;
import org.marl4j.WorkerHold;

/**
 * The ExecutorService contract, in the spirit of the JSR-166 TCK's AbstractExecutorServiceTest and
 * ExecutorsTest, for every worker count over an owned and a borrowed scheduler. With 0 workers the
 * test thread is bound, so tasks run while it waits on {@code get()}/{@code awaitTermination}.
 * Tasks that must stay "running" wait on a marl4j {@link Event}, which suspends only their fiber.
 */
class MarlExecutorServiceTest {
    private static final long PATIENCE_S = 30;

    @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
    @ParameterizedTest(name = "workers={0}, owned={1}")
    @MethodSource("org.marl4j.futures.ExecutorFixture#kinds")
    @interface ForEachKind {}

    // ---------------------------------------------------------------- submit and results

    @ForEachKind
    void submit_callableRunnableAndRunnableWithResult(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            Future<Boolean> onFiber = f.executor.submit(() -> Fiber.current() != null);
            Future<String> withResult = f.executor.submit(() -> {}, "result");
            AtomicInteger ran = new AtomicInteger();
            Future<?> plain = f.executor.submit((Runnable) ran::incrementAndGet);
            assertTrue(onFiber.get(PATIENCE_S, TimeUnit.SECONDS), "tasks run on fibers");
            assertEquals("result", withResult.get(PATIENCE_S, TimeUnit.SECONDS));
            assertNull(plain.get(PATIENCE_S, TimeUnit.SECONDS));
            assertEquals(1, ran.get());
            assertTrue(onFiber.isDone() && !onFiber.isCancelled());
            assertEquals(Future.State.SUCCESS, onFiber.state());
        }
    }

    @ForEachKind
    void submit_exceptionsSurfaceInTheFuture(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            IOException checked = new IOException("io");
            StackOverflowError error = new StackOverflowError("deep");
            Future<Object> a = f.executor.submit(() -> {
                throw checked;
            });
            Future<?> b = f.executor.submit(() -> {
                throw error;
            });
            assertSame(checked, assertThrows(ExecutionException.class, () -> a.get(PATIENCE_S, TimeUnit.SECONDS)).getCause());
            assertSame(error, assertThrows(ExecutionException.class, b::get).getCause());
            assertEquals(Future.State.FAILED, a.state());
            assertSame(checked, a.exceptionNow());
            assertTrue(f.uncaught.isEmpty(), "a submitted task's failure belongs to its future only");
        }
    }

    @ForEachKind
    void execute_exceptionGoesToTheUncaughtHandler(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            IllegalStateException boom = new IllegalStateException("boom");
            f.executor.execute(() -> {
                throw boom;
            });
            f.executor.shutdown();
            assertTrue(f.executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS));
            await().until(() -> f.uncaught.contains(boom));
        }
    }

    // ---------------------------------------------------------------- waiting on a fiber

    @ForEachKind
    void get_onFiber_suspendsOnlyTheFiber(int workers, boolean owned) throws Exception {
        // More waiters than worker threads: all call get() on a task that is submitted only after
        // every waiter has started. If get() blocked the thread, the waiters would hold every
        // worker thread and the awaited task could never run.
        int waiters = 2 * workers + 2;
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            AtomicInteger started = new AtomicInteger();
            Event allStarted = new Event(Event.Mode.MANUAL);
            AtomicBoolean sameThread = new AtomicBoolean(true);
            Future<?>[] awaited = new Future<?>[1];
            List<Future<Integer>> futures = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                futures.add(f.executor.submit(() -> {
                    if (started.incrementAndGet() == waiters) {
                        awaited[0] = f.executor.submit(() -> 42);
                        allStarted.signal();
                    }
                    allStarted.await();
                    Thread before = Thread.currentThread();
                    int value = (Integer) awaited[0].get();
                    sameThread.compareAndSet(Thread.currentThread() != before, false);
                    return value;
                }));
            }
            for (Future<Integer> future : futures) {
                assertEquals(42, future.get(PATIENCE_S, TimeUnit.SECONDS));
            }
            assertTrue(sameThread.get(), "a fiber resumes on its own worker thread");
        }
    }

    // ---------------------------------------------------------------- shutdown

    @ForEachKind
    void shutdown_letsRunningAndQueuedTasksFinish_rejectsNewOnes(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            assertFalse(f.executor.isShutdown());
            assertFalse(f.executor.isTerminated());
            Event release = new Event(Event.Mode.MANUAL);
            AtomicInteger finished = new AtomicInteger();
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                futures.add(f.executor.submit(() -> {
                    release.await();
                    finished.incrementAndGet();
                }));
            }
            f.executor.shutdown();
            assertTrue(f.executor.isShutdown());
            assertFalse(f.executor.isTerminated(), "terminated with 20 unfinished tasks");
            assertFalse(f.executor.awaitTermination(20, TimeUnit.MILLISECONDS));
            AtomicBoolean rejectedRan = new AtomicBoolean();
            assertThrows(RejectedExecutionException.class, () -> f.executor.execute(() -> rejectedRan.set(true)));
            assertThrows(RejectedExecutionException.class, () -> f.executor.submit(() -> rejectedRan.set(true)));
            assertThrows(RejectedExecutionException.class,
                    () -> f.executor.invokeAll(List.<Callable<Integer>>of(() -> 1)));
            assertThrows(RejectedExecutionException.class,
                    () -> f.executor.invokeAny(List.<Callable<Integer>>of(() -> 1)));
            release.signal();
            assertTrue(f.executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS));
            assertTrue(f.executor.isTerminated());
            assertEquals(20, finished.get());
            assertFalse(rejectedRan.get());
            for (Future<?> future : futures) {
                assertNull(future.get());
            }
            if (owned) {
                assertThrows(RejectedExecutionException.class,
                        () -> f.scheduler.enqueue(new org.marl4j.Task(() -> {})), "owned scheduler closed at termination");
            } else {
                assertEquals(7, TestSchedulers.get(Futures.supplyAsync(f.scheduler, () -> 7)), "borrowed scheduler left open");
            }
        }
    }

    @ForEachKind
    void shutdown_ofIdleExecutor_terminatesAtOnce(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            f.executor.shutdown();
            f.executor.shutdown(); // idempotent
            assertTrue(f.executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS));
            assertTrue(f.executor.isShutdown() && f.executor.isTerminated());
        }
    }

    @ParameterizedTest(name = "workers={0}, owned={1}")
    @MethodSource("org.marl4j.futures.ExecutorFixture#kinds")
    void awaitTermination_withNoTimeLeft_returnsFalseAtOnce_runningOrShutDownWithATaskLeft(int workers, boolean owned)
            throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            Event release = new Event(Event.Mode.MANUAL);
            f.executor.execute(release::await);
            // Each call runs on its own thread with a bound: a timeout that wrapped round to a huge
            // positive wait fails here rather than hanging the run.
            for (int round = 0; round < 2; round++) {
                for (long nanos : new long[] {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0}) {
                    assertFalse(assertTimeoutPreemptively(Duration.ofSeconds(10),
                            () -> f.executor.awaitTermination(nanos, TimeUnit.NANOSECONDS)), "nanos=" + nanos);
                    assertFalse(assertTimeoutPreemptively(Duration.ofSeconds(10),
                            () -> f.executor.awaitTermination(nanos, TimeUnit.MILLISECONDS)), "millis=" + nanos);
                }
                f.executor.shutdown();
            }
            release.signal();
            assertTrue(f.executor.awaitTermination(Long.MAX_VALUE, TimeUnit.NANOSECONDS));
            assertTrue(f.executor.awaitTermination(Long.MIN_VALUE, TimeUnit.DAYS), "terminated: true whatever the timeout");
        }
    }

    @ParameterizedTest(name = "workers={0}, owned={1}")
    @MethodSource("org.marl4j.futures.ExecutorFixture#kindsWithAtMostOneWorkerThread")
    void shutdownNow_returnsExactlyTheUnstartedTasks_inOrder_andTheyNeverRun(int workers, boolean owned) throws Exception {
        // Deterministic only where every worker thread can be held: none, or the single one. More
        // workers are covered by shutdownNow's 5,000-task test (each task ran once or was returned).
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            CountDownLatch blockerStarted = new CountDownLatch(1);
            AtomicBoolean releaseBlocker = new AtomicBoolean();
            AtomicBoolean blockerInterrupted = new AtomicBoolean();
            Future<?> blocker = null;
            if (workers == 1) {
                blocker = f.executor.submit(() -> {
                    blockerStarted.countDown();
                    // Holds the only worker thread on purpose, with a spin: a blocking JDK wait would
                    // hold it on the CONTINUATIONS engine only, since on VIRTUAL_THREADS it suspends
                    // just the fiber and the worker would start the queued tasks.
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENCE_S);
                    while (!releaseBlocker.get() && System.nanoTime() - deadline < 0) {
                        Thread.onSpinWait();
                    }
                    blockerInterrupted.set(Thread.currentThread().isInterrupted());
                });
                assertTrue(blockerStarted.await(PATIENCE_S, TimeUnit.SECONDS));
            }
            AtomicInteger ran = new AtomicInteger();
            List<Object> queued = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                queued.add(f.executor.submit(ran::incrementAndGet));
                Runnable r = ran::incrementAndGet;
                f.executor.execute(r);
                queued.add(r);
            }
            List<Runnable> returned = f.executor.shutdownNow();
            assertEquals(queued, returned);
            assertTrue(f.executor.isShutdown());
            releaseBlocker.set(true);
            assertTrue(f.executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS));
            if (blocker != null) {
                assertNull(blocker.get());
                // shutdownNow cancels a running task's fiber waits. On VIRTUAL_THREADS the task has a
                // thread of its own, which that cancellation interrupts, as ThreadPoolExecutor's
                // shutdownNow does; on CONTINUATIONS the thread is the worker's, shared by its
                // fibers, and is left alone.
                boolean ownThread = f.scheduler.fiberEngine() == FiberEngine.VIRTUAL_THREADS;
                assertEquals(ownThread, blockerInterrupted.get(),
                        ownThread ? "shutdownNow did not interrupt a running task's virtual thread"
                                : "shutdownNow interrupted the worker thread a running task runs on");
            }
            assertEquals(0, ran.get(), "a task taken back by shutdownNow ran");
            // The caller may still run what it got back, once: a returned future then completes.
            returned.get(0).run();
            returned.get(0).run();
            assertEquals(1, ran.get());
            assertEquals(1, ((Future<?>) returned.get(0)).get());
        }
    }

    @ForEachKind
    void shutdownNow_cancelsTheFiberWaitsOfRunningTasks_soTheExecutorTerminates(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            CompletableFuture<String> never = new CompletableFuture<>();
            Event bothWaiting = new Event(Event.Mode.MANUAL);
            AtomicInteger waiting = new AtomicInteger();
            AtomicInteger cancelled = new AtomicInteger();
            Runnable waitsForever = () -> {
                if (waiting.incrementAndGet() == 2) {
                    bothWaiting.signal();
                }
                try {
                    Futures.await(never);
                } catch (FiberCancelledException e) {
                    cancelled.incrementAndGet();
                    throw e;
                }
            };
            f.executor.execute(waitsForever);
            Future<?> submitted = f.executor.submit(waitsForever);
            bothWaiting.await(); // on the bound thread (0 workers) this runs both up to their waits
            assertEquals(List.of(), f.executor.shutdownNow());
            assertTrue(f.executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS),
                    "a running task still waits for a future nobody completes");
            assertEquals(2, cancelled.get());
            assertInstanceOf(FiberCancelledException.class,
                    assertThrows(ExecutionException.class, submitted::get).getCause());
            assertFalse(never.isDone());
        }
    }

    @ForEachKind
    void shutdownNow_underLoad_everyTaskRunsOnceOrIsReturned(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            int n = 5_000;
            AtomicInteger[] runs = new AtomicInteger[n];
            List<Runnable> tasks = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                AtomicInteger count = runs[i] = new AtomicInteger();
                Runnable task = count::incrementAndGet;
                tasks.add(task);
                f.executor.execute(task);
            }
            List<Runnable> returned = f.executor.shutdownNow();
            assertTrue(f.executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS));
            java.util.Set<Runnable> back = Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            back.addAll(returned);
            assertEquals(returned.size(), back.size(), "a task was returned twice");
            for (int i = 0; i < n; i++) {
                int expected = back.contains(tasks.get(i)) ? 0 : 1;
                assertEquals(expected, runs[i].get(), "task " + i + (expected == 0 ? " was returned but ran" : " was lost"));
            }
            if (workers == 0) {
                assertEquals(n, returned.size(), "with 0 workers nothing had started");
            }
        }
    }

    @ParameterizedTest(name = "workers={0}, owned={1}")
    @MethodSource("org.marl4j.futures.ExecutorFixture#kindsWithWorkerThreads")
    void isTerminated_isAccurateWhileThreadsSubmitConcurrentlyWithShutdown(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            AtomicInteger accepted = new AtomicInteger();
            AtomicInteger ran = new AtomicInteger();
            AtomicBoolean ranAfterTermination = new AtomicBoolean();
            CountDownLatch submittersDone = new CountDownLatch(4);
            for (int t = 0; t < 4; t++) {
                TestSchedulers.startThread("submitter-" + t, () -> {
                    try {
                        while (true) {
                            f.executor.execute(() -> {
                                if (f.executor.isTerminated()) {
                                    ranAfterTermination.set(true);
                                }
                                ran.incrementAndGet();
                            });
                            accepted.incrementAndGet();
                        }
                    } catch (RejectedExecutionException expected) {
                        // shut down
                    } finally {
                        submittersDone.countDown();
                    }
                });
            }
            await().until(() -> accepted.get() > 1000);
            f.executor.shutdown();
            assertTrue(submittersDone.await(PATIENCE_S, TimeUnit.SECONDS));
            assertTrue(f.executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS));
            assertEquals(accepted.get(), ran.get(), "every accepted task ran before termination");
            assertFalse(ranAfterTermination.get());
        }
    }

    // ---------------------------------------------------------------- cancel

    @ParameterizedTest(name = "workers={0}, owned={1}")
    @MethodSource("org.marl4j.futures.ExecutorFixture#kindsWithAtMostOneWorkerThread")
    void cancel_beforeStart_neverRuns(int workers, boolean owned) throws Exception {
        // Needs every worker thread held by one task, so: none, or the single one.
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            CountDownLatch started = new CountDownLatch(1);
            WorkerHold release = new WorkerHold();
            if (workers == 1) {
                f.executor.execute(() -> {
                    started.countDown();
                    release.hold();
                });
                assertTrue(started.await(PATIENCE_S, TimeUnit.SECONDS));
            }
            AtomicInteger ran = new AtomicInteger();
            Future<?> a = f.executor.submit(ran::incrementAndGet);
            Future<?> b = f.executor.submit(ran::incrementAndGet);
            assertTrue(a.cancel(false));
            assertTrue(b.cancel(true));
            assertFalse(a.cancel(false), "cancel twice");
            release.release();
            f.executor.shutdown();
            assertTrue(f.executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS));
            assertEquals(0, ran.get());
            assertThrows(CancellationException.class, a::get);
            assertTrue(a.isCancelled() && a.isDone());
        }
    }

    @Test
    void cancel_beforeRun_neverRuns_unit() {
        AtomicInteger ran = new AtomicInteger();
        MarlFuture<Integer> future = new MarlFuture<>(ran::incrementAndGet, null);
        assertTrue(future.cancel(false));
        future.run();
        assertEquals(0, ran.get());
        assertThrows(CancellationException.class, future::get);
    }

    @ForEachKind
    void cancelFalse_whileRunning_getThrowsAtOnce_bodyFinishesUninterrupted(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            Event running = new Event(Event.Mode.MANUAL);
            Event release = new Event(Event.Mode.MANUAL);
            AtomicBoolean finished = new AtomicBoolean();
            Future<String> future = f.executor.submit(() -> {
                running.signal();
                release.await();
                finished.set(true);
                return "dropped";
            });
            running.await(); // on the bound thread (0 workers) this runs the task up to its wait
            assertTrue(future.cancel(false));
            assertTrue(future.isCancelled() && future.isDone());
            assertThrows(CancellationException.class, () -> future.get(PATIENCE_S, TimeUnit.SECONDS));
            release.signal();
            f.executor.shutdown();
            assertTrue(f.executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS));
            assertTrue(finished.get(), "the body runs to its end: nothing is cancelled");
            assertThrows(CancellationException.class, future::get);
        }
    }

    @ForEachKind
    void cancelTrue_whileRunning_cancelsTheBodysFiberWaits_soItUnwinds(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            Event running = new Event(Event.Mode.MANUAL);
            CompletableFuture<String> never = new CompletableFuture<>();
            AtomicInteger cancelledWaits = new AtomicInteger();
            AtomicBoolean unwound = new AtomicBoolean();
            Future<String> future = f.executor.submit(() -> {
                running.signal();
                try {
                    return Futures.await(never);
                } catch (FiberCancelledException e) {
                    cancelledWaits.incrementAndGet();
                    try {
                        new Event().await(); // every later wait is refused too
                    } catch (FiberCancelledException again) {
                        cancelledWaits.incrementAndGet();
                    }
                    throw e;
                } finally {
                    unwound.set(true);
                }
            });
            running.await();
            assertTrue(future.cancel(true));
            assertThrows(CancellationException.class, () -> future.get(PATIENCE_S, TimeUnit.SECONDS));
            f.executor.shutdown();
            assertTrue(f.executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS),
                    "the cancelled task still waits for a future nobody completes");
            assertTrue(unwound.get());
            assertEquals(2, cancelledWaits.get());
            assertFalse(never.isDone());
        }
    }

    @ForEachKind
    void invokeAny_unwindsTheLosersWaits(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            Event never = new Event(Event.Mode.MANUAL);
            Event loserWaiting = new Event(Event.Mode.MANUAL);
            AtomicBoolean loserUnwound = new AtomicBoolean();
            String winner = f.executor.invokeAny(List.<Callable<String>>of(() -> {
                try {
                    loserWaiting.signal();
                    never.await();
                    return "loser";
                } finally {
                    loserUnwound.set(true);
                }
            }, () -> {
                loserWaiting.await();
                return "winner";
            }));
            assertEquals("winner", winner);
            f.executor.shutdown();
            assertTrue(f.executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS), "the losing task still waits");
            assertTrue(loserUnwound.get());
        }
    }

    // ---------------------------------------------------------------- invokeAll / invokeAny

    @ForEachKind
    void invokeAll_returnsAllDoneInOrder_andTimedOneCancelsStragglers(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            List<Callable<Integer>> tasks = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                int v = i;
                tasks.add(() -> v * v);
            }
            List<Future<Integer>> results = f.executor.invokeAll(tasks);
            for (int i = 0; i < 10; i++) {
                assertTrue(results.get(i).isDone());
                assertEquals(i * i, results.get(i).get());
            }
            Event never = new Event(Event.Mode.MANUAL);
            List<Future<Integer>> timed = f.executor.invokeAll(List.of(() -> 1, () -> {
                never.await();
                return 2;
            }), 50, TimeUnit.MILLISECONDS);
            assertEquals(1, timed.get(0).get());
            assertTrue(timed.get(1).isCancelled(), "the straggler is cancelled at the timeout");
            never.signal();
            assertThrows(NullPointerException.class, () -> f.executor.invokeAll(null));
        }
    }

    @ForEachKind
    void invokeAny_returnsASuccess_allFail_andTimesOut(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            IOException failure = new IOException("no");
            String any = f.executor.invokeAny(List.of(() -> {
                throw failure;
            }, () -> "yes", () -> {
                throw failure;
            }));
            assertEquals("yes", any);

            ExecutionException allFailed = assertThrows(ExecutionException.class,
                    () -> f.executor.invokeAny(List.<Callable<String>>of(() -> {
                        throw failure;
                    }, () -> {
                        throw failure;
                    })));
            assertSame(failure, allFailed.getCause());

            Event never = new Event(Event.Mode.MANUAL);
            assertThrows(TimeoutException.class, () -> f.executor.invokeAny(List.<Callable<String>>of(() -> {
                never.await();
                return "late";
            }), 50, TimeUnit.MILLISECONDS));
            never.signal();
            assertEquals("t", f.executor.invokeAny(List.<Callable<String>>of(() -> "t"), PATIENCE_S, TimeUnit.SECONDS));
            assertThrows(IllegalArgumentException.class, () -> f.executor.invokeAny(List.<Callable<String>>of()));
            List<Callable<String>> withNull = new ArrayList<>();
            withNull.add(null);
            assertThrows(NullPointerException.class, () -> f.executor.invokeAny(withNull));
        }
    }

    @ForEachKind
    void invokeAny_onFiber_suspendsOnlyTheFiber(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            Future<String> outer = f.executor.submit(() -> f.executor.invokeAny(List.<Callable<String>>of(() -> "inner")));
            assertEquals("inner", outer.get(PATIENCE_S, TimeUnit.SECONDS));
            Future<List<Integer>> all = f.executor.submit(() -> {
                List<Integer> values = new ArrayList<>();
                for (Future<Integer> r : f.executor.invokeAll(List.<Callable<Integer>>of(() -> 1, () -> 2))) {
                    values.add(r.get());
                }
                return values;
            });
            assertEquals(List.of(1, 2), all.get(PATIENCE_S, TimeUnit.SECONDS));
        }
    }

    // ---------------------------------------------------------------- close, bad input, drop-in

    @ForEachKind
    void close_waitsForTasks_andClosesAnOwnedScheduler(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            AtomicInteger ran = new AtomicInteger();
            for (int i = 0; i < 100; i++) {
                f.executor.execute(() -> {
                    Fiber.yield();
                    ran.incrementAndGet();
                });
            }
            f.executor.close();
            assertTrue(f.executor.isTerminated());
            assertEquals(100, ran.get());
            if (owned) {
                TestSchedulers.assertNoThreadsLeft(f.threadPrefix);
            }
            f.executor.close(); // again: no effect
        }
    }

    @ForEachKind
    void completableFutureAsync_withTheExecutor(int workers, boolean owned) throws Exception {
        try (ExecutorFixture f = new ExecutorFixture(workers, owned)) {
            CompletableFuture<Integer> chain = CompletableFuture
                    .supplyAsync(() -> Fiber.current() != null ? 20 : -1000, f.executor)
                    .thenApplyAsync(x -> x + 1, f.executor)
                    .thenComposeAsync(x -> CompletableFuture.supplyAsync(() -> x * 2, f.executor), f.executor);
            assertEquals(42, TestSchedulers.get(chain));
        }
    }

    @Test
    void badInput() throws Exception {
        assertThrows(NullPointerException.class, () -> new MarlExecutorService((Scheduler) null));
        assertThrows(NullPointerException.class, () -> new MarlExecutorService((Scheduler.Config) null));
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> new MarlExecutorService(new Scheduler.Config()));
        assertTrue(zero.getMessage().contains("worker threads"), zero.getMessage());
        try (ExecutorFixture f = new ExecutorFixture(1, true)) {
            assertThrows(NullPointerException.class, () -> f.executor.execute(null));
            assertThrows(NullPointerException.class, () -> f.executor.submit((Callable<?>) null));
            assertThrows(NullPointerException.class, () -> f.executor.awaitTermination(1, null));
        }
        // A borrowed scheduler without workers, from an unbound thread: rejected, not lost.
        try (Scheduler noWorkers = new Scheduler(TestSchedulers.config(0))) {
            MarlExecutorService executor = new MarlExecutorService(noWorkers);
            RejectedExecutionException e = assertThrows(RejectedExecutionException.class, () -> executor.execute(() -> {}));
            assertInstanceOf(IllegalStateException.class, e.getCause());
            executor.shutdown();
            assertTrue(executor.isTerminated(), "the rejected task is not counted as unfinished");
        }
        // Awaiting termination from a plain thread is interruptible.
        try (ExecutorFixture f = new ExecutorFixture(1, true)) {
            Event never = new Event(Event.Mode.MANUAL);
            f.executor.execute(never::await);
            Thread.currentThread().interrupt();
            assertThrows(InterruptedException.class, () -> f.executor.awaitTermination(PATIENCE_S, TimeUnit.SECONDS));
            never.signal();
        }
        assertTrue(Duration.ZERO.isZero());
    }

    @Test
    void close_fromOutside_thatWaitsLong_showsWhereTheTasksWait_andBlamesNoCaller() throws Exception {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(1));
        Event never = new Event(Event.Mode.MANUAL);
        try (org.marl4j.LogCapture log = org.marl4j.LogCapture.of(MarlExecutorService.class)) {
            MarlExecutorService executor = new MarlExecutorService(scheduler, Duration.ofMillis(50));
            executor.execute(never::await);
            Thread closer = TestSchedulers.startThread("closer", executor::close);
            await().atMost(TestSchedulers.PATIENCE).until(() -> log.contains("WARNING", "1 unfinished task", "Event.await"));
            never.signal();
            closer.join(TestSchedulers.PATIENCE.toMillis());
            String warning = log.lines().stream().filter(line -> line.contains("close() of")).findFirst().orElseThrow();
            assertFalse(warning.contains("waits for itself"), warning);
            assertTrue(warning.contains("Scheduler.close(Duration)"), warning);
        } finally {
            scheduler.close(Duration.ZERO);
        }
    }

    @Test
    void close_fromOneOfItsOwnTasks_waitsForItself_andSaysSo() throws Exception {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(1));
        try (org.marl4j.LogCapture log = org.marl4j.LogCapture.of(MarlExecutorService.class)) {
            MarlExecutorService executor = new MarlExecutorService(scheduler, Duration.ofMillis(50));
            executor.execute(executor::close);
            await().atMost(TestSchedulers.PATIENCE).until(() -> log.contains("WARNING", "waits for itself", "1 unfinished task"));
            // The caller is the one task and is running, not suspended: the report does not blame threads held elsewhere.
            assertTrue(log.contains("WARNING", "none but the fiber calling close()"), "the report: " + log);
            assertFalse(log.contains("WARNING", "the tasks hold their threads"), "the report: " + log);
        } finally {
            scheduler.close(Duration.ZERO); // cancels the close's wait: the task unwinds
        }
    }
}
