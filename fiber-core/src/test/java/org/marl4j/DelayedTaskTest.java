package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** scheduler.enqueue(task, delay): delayed tasks in the workers' deadline heaps. */
class DelayedTaskTest {

    @ForEachWorkerCount
    void aDelayedTaskRunsNoEarlierThanItsDelay(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Duration delay = Duration.ofMillis(30);
            AtomicLong ranAfter = new AtomicLong();
            WaitGroup ran = new WaitGroup(1);
            long start = System.nanoTime();
            DelayedTask task = scheduler.enqueue(new Task(() -> {
                ranAfter.set(System.nanoTime() - start);
                ran.done();
            }), delay);
            ran.await();
            assertTrue(ranAfter.get() >= delay.toNanos(), "ran after " + ranAfter.get() + " ns");
            assertTrue(task.hasStarted());
            assertFalse(task.cancel(), "a task that ran cannot be cancelled");
        });
    }

    @ForEachWorkerCount
    void aTaskCancelledBeforeItIsDueNeverRuns(int workers) {
        AtomicBoolean ran = new AtomicBoolean();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            DelayedTask task = scheduler.enqueue(new Task(() -> ran.set(true)), Duration.ofMillis(50));
            assertTrue(task.cancel());
            assertTrue(task.isCancelled());
            assertFalse(task.cancel(), "a second cancel does nothing");
            WaitGroup later = new WaitGroup(1);
            scheduler.enqueue(new Task(later::done), Duration.ofMillis(100));
            later.await();
        });
        assertFalse(ran.get());
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1})
    void delayedTasksOfOneWorkerStartInDeadlineOrder(int workers) {
        List<Integer> order = new ArrayList<>();
        List<Integer> delays = new ArrayList<>();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            int count = 200;
            WaitGroup done = new WaitGroup(count);
            for (int i = 0; i < count; i++) {
                int delay = ThreadLocalRandom.current().nextInt(0, 40);
                delays.add(delay);
                int index = i;
                scheduler.enqueue(new Task(() -> {
                    order.add(index); // one worker thread: no race
                    done.done();
                }), Duration.ofMillis(delay));
            }
            done.await();
        });
        // Deadlines were taken in enqueue order, so a later index with a shorter delay must not precede
        // an earlier index whose deadline is clearly (by 2 ms, beyond clock granularity) sooner.
        for (int a = 0; a < order.size(); a++) {
            for (int b = a + 1; b < order.size(); b++) {
                int first = order.get(a);
                int second = order.get(b);
                assertFalse(first > second && delays.get(first) - delays.get(second) >= 2,
                        "task " + first + " (" + delays.get(first) + " ms) ran before task " + second + " ("
                                + delays.get(second) + " ms)");
            }
        }
    }

    @Test
    void delaysUseNoTimerThread() {
        TestSchedulers.withBoundScheduler(2, scheduler -> {
            Set<Thread> before = Thread.getAllStackTraces().keySet();
            int count = 1_000;
            WaitGroup done = new WaitGroup(count);
            for (int i = 0; i < count; i++) {
                scheduler.enqueue(new Task(done::done), Duration.ofMillis(i % 20));
            }
            Set<String> added = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> !before.contains(t) && t.isAlive())
                    .map(Thread::getName)
                    .collect(Collectors.toSet());
            done.await();
            assertEquals(Set.of(), added);
        });
    }

    @Test
    void aBusyWorkerStillRunsDelayedTasksWhenDue() {
        AtomicBoolean fired = new AtomicBoolean();
        AtomicInteger busyTasks = new AtomicInteger();
        TestSchedulers.withBoundScheduler(1, scheduler -> {
            WaitGroup done = new WaitGroup(1);
            scheduler.enqueue(new Task(() -> {
                scheduler.enqueue(new Task(() -> fired.set(true), Task.Flag.SAME_THREAD), Duration.ofMillis(10));
                // Keep this worker's queue non-empty until the timer fires (bounded: fail, not hang).
                Runnable[] keepBusy = new Runnable[1];
                keepBusy[0] = () -> {
                    if (fired.get() || busyTasks.incrementAndGet() > 50_000_000) {
                        done.done();
                    } else {
                        scheduler.enqueue(new Task(keepBusy[0], Task.Flag.SAME_THREAD));
                    }
                };
                keepBusy[0].run();
            }));
            done.await();
        });
        assertTrue(fired.get(), "the delayed task never ran while its worker stayed busy");
    }

    @ForEachWorkerCount
    void timedFiberWaitsAndDelayedTasksShareTheHeap(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            int count = 300;
            WaitGroup done = new WaitGroup(2 * count);
            AtomicInteger timedOut = new AtomicInteger();
            Event never = new Event();
            for (int i = 0; i < count; i++) {
                int ms = i % 25;
                Marl.schedule(() -> {
                    if (!never.await(Duration.ofMillis(ms))) {
                        timedOut.incrementAndGet();
                    }
                    done.done();
                });
                scheduler.enqueue(new Task(done::done), Duration.ofMillis(ms));
            }
            done.await();
            assertEquals(count, timedOut.get());
        });
    }

    @Test
    void closeRunsDelayedTasksThatAreNotYetDue() {
        AtomicBoolean ran = new AtomicBoolean();
        AtomicBoolean cancelledRan = new AtomicBoolean();
        Scheduler.Config config = TestSchedulers.config(2);
        Scheduler scheduler = new Scheduler(config);
        scheduler.enqueue(new Task(() -> ran.set(true)), Duration.ofMillis(50));
        scheduler.enqueue(new Task(() -> cancelledRan.set(true)), Duration.ofMillis(50)).cancel();
        scheduler.close();
        assertTrue(ran.get(), "close() waits for pending delayed tasks, as ScheduledThreadPoolExecutor.shutdown()");
        assertFalse(cancelledRan.get());
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    @ForEachWorkerCount
    void aBoundedCloseThatDropsADelayedTask_runsItsDropActionOnce_evenOneSetAfterTheDrop(int workers) {
        AtomicInteger dropActions = new AtomicInteger();
        AtomicInteger notDropped = new AtomicInteger();
        Scheduler scheduler = new Scheduler(TestSchedulers.config(workers));
        DelayedTask dropped;
        DelayedTask droppedBeforeItsAction;
        scheduler.bind();
        try {
            // With no worker threads, only the bound thread's own worker holds delayed tasks.
            java.util.function.Function<Runnable, Task> task =
                    body -> workers == 0 ? new Task(body, Task.Flag.SAME_THREAD) : new Task(body);
            dropped = scheduler.enqueue(task.apply(() -> {}), Duration.ofHours(1));
            dropped.onDrop(dropActions::incrementAndGet);
            droppedBeforeItsAction = scheduler.enqueue(task.apply(() -> {}), Duration.ofHours(1));
            DelayedTask cancelled = scheduler.enqueue(task.apply(() -> {}), Duration.ofHours(1));
            cancelled.onDrop(notDropped::incrementAndGet);
            assertTrue(cancelled.cancel());
            WaitGroup done = new WaitGroup(1);
            DelayedTask ran = scheduler.enqueue(task.apply(done::done), Duration.ZERO);
            ran.onDrop(notDropped::incrementAndGet);
            done.await();
            IllegalStateException twice = assertThrows(IllegalStateException.class, () -> dropped.onDrop(() -> {}));
            assertTrue(twice.getMessage().contains("onDrop takes one"), twice.getMessage());
            NullPointerException none = assertThrows(NullPointerException.class, () -> droppedBeforeItsAction.onDrop(null));
            assertTrue(none.getMessage().contains("action must not be null"), none.getMessage());
        } finally {
            scheduler.close(Duration.ofMillis(20)); // unbinds this thread; gives up on the hour-long task
        }
        assertTrue(dropped.isCancelled());
        assertEquals(1, dropActions.get(), "the dropped task's action ran once, during the close");
        assertEquals(0, notDropped.get(), "a cancelled or started task's drop action never runs");

        droppedBeforeItsAction.onDrop(dropActions::incrementAndGet);
        assertEquals(2, dropActions.get(), "set after the drop: it runs at once");
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {1, 2})
    void aDropActionThatThrows_goesToTheSchedulersHandler_andTheOtherDropActionsStillRun(int workers) {
        List<Throwable> reported = new CopyOnWriteArrayList<>();
        Scheduler scheduler = new Scheduler(TestSchedulers.config(workers).setUncaughtExceptionHandler((t, e) -> reported.add(e)));
        AtomicInteger ranAfter = new AtomicInteger();
        IllegalStateException failure = new IllegalStateException("a drop action that fails");
        try {
            for (int i = 0; i < 4; i++) {
                DelayedTask task = scheduler.enqueue(new Task(() -> {}), Duration.ofHours(1));
                task.onDrop(i == 0 ? () -> { throw failure; } : ranAfter::incrementAndGet);
            }
        } finally {
            scheduler.close(Duration.ZERO);
        }
        assertEquals(3, ranAfter.get(), "every other dropped task's action ran");
        assertEquals(List.of(failure), reported);
    }

    @Test
    void misuseThrowsWithAMessage() {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(1));
        try {
            assertThrows(NullPointerException.class, () -> scheduler.enqueue(null, Duration.ZERO));
            assertThrows(NullPointerException.class, () -> scheduler.enqueue(new Task(() -> {}), null));
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> scheduler.enqueue(new Task(() -> {}, Task.Flag.SAME_THREAD), Duration.ZERO));
            assertTrue(e.getMessage().contains("SAME_THREAD"), e.getMessage());
        } finally {
            scheduler.close();
        }
        RejectedExecutionException rejected = assertThrows(RejectedExecutionException.class,
                () -> scheduler.enqueue(new Task(() -> {}), Duration.ofMillis(1)));
        assertTrue(rejected.getMessage().contains("closed"), rejected.getMessage());
        try (Scheduler noWorkers = new Scheduler(TestSchedulers.config(0))) {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> noWorkers.enqueue(new Task(() -> {}), Duration.ZERO));
            assertTrue(e.getMessage().contains("bind()"), e.getMessage());
        }
    }

    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {2, 8})
    void aDelayedTaskMadeOnAWorker_waitsInThatWorkersHeap(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            List<Boolean> onOwnWorker = TestSchedulers.runOnFiber(scheduler, () -> {
                Worker own = Worker.current();
                List<Boolean> same = new ArrayList<>();
                for (int i = 0; i < 2 * workers; i++) { // round-robin would spread these over every worker
                    same.add(scheduler.enqueue(new Task(() -> {}), Duration.ofMillis(1)).worker() == own);
                }
                return same;
            });
            assertFalse(onOwnWorker.contains(false), onOwnWorker.toString());
        });
    }
}
