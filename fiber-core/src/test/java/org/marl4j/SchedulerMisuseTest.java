package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Every misuse of the scheduler's entry points is a clear exception that says what to do. */
class SchedulerMisuseTest {

    private static void assertThrowsMentioning(Class<? extends Throwable> type, String hint, Executable call) {
        Throwable thrown = assertThrows(type, call);
        assertTrue(thrown.getMessage().contains(hint), "message should mention '" + hint + "': " + thrown.getMessage());
    }

    @Test
    void bindingTwiceThrows() {
        TestSchedulers.withBoundScheduler(0, scheduler ->
                assertThrowsMentioning(IllegalStateException.class, "already bound", scheduler::bind));
    }

    @Test
    void bindingASecondSchedulerThrows() {
        try (Scheduler other = new Scheduler(TestSchedulers.config(0))) {
            TestSchedulers.withBoundScheduler(0, scheduler ->
                    assertThrowsMentioning(IllegalStateException.class, "unbind()", other::bind));
        }
    }

    @Test
    void enqueueOnAZeroWorkerScheduler_fromAThreadBoundToAnother_namesThatBinding_notBind() {
        try (Scheduler zeroWorkers = new Scheduler(TestSchedulers.config(0))) {
            TestSchedulers.withBoundScheduler(1, other -> {
                IllegalStateException refused = assertThrows(IllegalStateException.class,
                        () -> zeroWorkers.enqueue(new Task(() -> {})));
                assertTrue(refused.getMessage().contains("this thread belongs to " + other), refused.getMessage());
                assertFalse(refused.getMessage().contains("call bind()"), refused.getMessage());
            });
        }
    }

    @Test
    void unbindingAnUnboundThreadThrows() {
        try (Scheduler scheduler = new Scheduler(TestSchedulers.config(1))) {
            assertThrowsMentioning(IllegalStateException.class, "call bind()", scheduler::unbind);
        }
    }

    @Test
    void unbindingFromATaskThrows() {
        Throwable thrown = thrownByATask(0, Scheduler::unbind);
        assertTrue(thrown instanceof IllegalStateException, String.valueOf(thrown));
    }

    @Test
    void unbindingAWorkerThreadThrows() {
        Throwable thrown = thrownByATask(1, Scheduler::unbind);
        assertTrue(thrown instanceof IllegalStateException, String.valueOf(thrown));
        assertTrue(thrown.getMessage().contains("worker thread"), thrown.getMessage());
    }

    @Test
    void closingFromATaskOnABoundThreadThrows() {
        // With no worker threads the task runs on the bound thread, while its main fiber waits.
        Throwable thrown = thrownByATask(0, Scheduler::close);
        assertTrue(thrown instanceof IllegalStateException, String.valueOf(thrown));
        assertTrue(thrown.getMessage().contains("thread's own code"), thrown.getMessage());
    }

    @Test
    void closingFromATaskThrows() {
        Throwable thrown = thrownByATask(2, Scheduler::close);
        assertTrue(thrown instanceof IllegalStateException, String.valueOf(thrown));
        assertTrue(thrown.getMessage().contains("another thread"), thrown.getMessage());
    }

    /** thrownByATask(workers, misuse) is what misuse threw inside a task of a bound scheduler, or null. */
    private static Throwable thrownByATask(int workers, Consumer<Scheduler> misuse) {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            WaitGroup done = new WaitGroup(1);
            Marl.schedule(() -> {
                try {
                    misuse.accept(scheduler);
                } catch (Throwable t) {
                    thrown.set(t);
                }
                done.done();
            });
            done.await();
        });
        return thrown.get();
    }

    @Test
    void enqueueWithNoWorkersOnAnUnboundThreadThrows() {
        try (Scheduler scheduler = new Scheduler(TestSchedulers.config(0))) {
            assertThrowsMentioning(IllegalStateException.class, "bind()", () -> scheduler.enqueue(new Task(() -> {})));
        }
    }

    @Test
    void sameThreadTaskFromAnUnboundThreadThrows() {
        try (Scheduler scheduler = new Scheduler(TestSchedulers.config(2))) {
            assertThrowsMentioning(IllegalStateException.class, "SAME_THREAD",
                    () -> scheduler.enqueue(new Task(() -> {}, Task.Flag.SAME_THREAD)));
        }
    }

    @Test
    void marlScheduleWithNothingBoundThrows() {
        assertNull(Scheduler.get());
        assertThrowsMentioning(IllegalStateException.class, "bind()", () -> Marl.schedule(() -> {}));
    }

    @Test
    void enqueueAfterCloseIsRejected() {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(2));
        scheduler.close();
        assertThrowsMentioning(RejectedExecutionException.class, "closed", () -> scheduler.enqueue(new Task(() -> {})));
        scheduler.close(); // a second close does nothing
    }

    @Test
    void bindAfterCloseThrows() {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(0));
        scheduler.close();
        assertThrowsMentioning(IllegalStateException.class, "closed", scheduler::bind);
        assertNull(Scheduler.get(), "a failed bind leaves the thread unbound");
    }

    @Test
    void nullArgumentsAreRejectedWithAMessage() {
        assertThrowsMentioning(NullPointerException.class, "config", () -> new Scheduler(null));
        assertThrowsMentioning(NullPointerException.class, "task body", () -> new Task(null));
        assertThrowsMentioning(NullPointerException.class, "flag", () -> new Task(() -> {}, null));
        assertThrowsMentioning(NullPointerException.class, "task body", () -> Marl.schedule((Runnable) null));
        try (Scheduler scheduler = new Scheduler(TestSchedulers.config(1))) {
            assertThrowsMentioning(NullPointerException.class, "task", () -> scheduler.enqueue(null));
        }
    }

    @Test
    void invalidConfigValuesAreRejectedWithTheValue() {
        Scheduler.Config config = new Scheduler.Config();
        assertThrowsMentioning(IllegalArgumentException.class, "-1", () -> config.setWorkerThreadCount(-1));
        assertThrowsMentioning(IllegalArgumentException.class, "257", () -> config.setWorkerThreadCount(257));
        assertThrowsMentioning(IllegalArgumentException.class, "PT-1S", () -> config.setSpinDuration(Duration.ofSeconds(-1)));
        assertThrowsMentioning(NullPointerException.class, "handler", () -> config.setUncaughtExceptionHandler(null));
        assertThrowsMentioning(NullPointerException.class, "initializer", () -> config.setWorkerThreadInitializer(null));
        assertThrowsMentioning(NullPointerException.class, "prefix", () -> config.setThreadNamePrefix(null));
        assertEquals(0, config.getWorkerThreadCount(), "a rejected value leaves the config unchanged");
    }

    @Test
    void waitGroupMisuseThrows() {
        assertThrowsMentioning(IllegalArgumentException.class, "-1", () -> new WaitGroup(-1));
        WaitGroup wg = new WaitGroup(1);
        assertThrowsMentioning(IllegalArgumentException.class, "done()", () -> wg.add(-2));
        assertTrue(wg.done());
        assertThrowsMentioning(IllegalStateException.class, "more times", wg::done);
        assertEquals(0, wg.count(), "a rejected done() leaves the count at zero");
    }
}
