package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.junit.jupiter.api.Timeout;

/**
 * The shared fixtures report a failing test body as that failure, promptly, even when the body left
 * fibers waiting for a signal it never sent (an unbounded close would wait for them for ever, and
 * the test's timeout would report a hang instead of the assertion).
 */
class TestSchedulersTest {

    @ForEachWorkerCount
    @Timeout(30)
    void withBoundScheduler_aBodyThatFailsWithFibersWaiting_reportsItsFailure(int workers) {
        assertReportsFailure(workers, TestSchedulers::withBoundScheduler);
    }

    @ForEachWorkerCount
    @Timeout(30)
    void withScheduler_aBodyThatFailsWithFibersWaiting_reportsItsFailure(int workers) {
        assertReportsFailure(workers, TestSchedulers::withScheduler);
    }

    private static void assertReportsFailure(int workers, BiConsumer<Integer, Consumer<Scheduler>> fixture) {
        AssertionError failure = new AssertionError("the body's own assertion");
        AssertionError reported = assertThrows(AssertionError.class, () -> fixture.accept(workers, scheduler -> {
            Event never = new Event(Event.Mode.MANUAL);
            WaitGroup waiting = new WaitGroup(3);
            for (int i = 0; i < 3; i++) {
                scheduler.enqueue(new Task(() -> {
                    waiting.done();
                    never.await();
                }));
            }
            waiting.await();
            throw failure;
        }));
        assertEquals(failure, reported);
    }
}
