package org.marl4j;

import java.util.concurrent.RejectedExecutionException;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class TicketTest {

    @ForEachWorkerCount
    void ticketsAreCalledInTakeOrderEvenWhenTasksRunInParallel(int workers) {
        int count = 1000;
        int[] result = new int[count];
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Ticket.Queue queue = new Ticket.Queue();
            AtomicInteger next = new AtomicInteger();
            for (int i = 0; i < count; i++) {
                Ticket ticket = queue.take();
                int index = i;
                Marl.schedule(() -> {
                    if (ThreadLocalRandom.current().nextInt(4) == 0) {
                        Fiber.yield();
                    }
                    ticket.await();
                    result[next.getAndIncrement()] = index;
                    ticket.done();
                });
            }
            queue.take().await();
        });
        assertArrayEquals(IntStream.range(0, count).toArray(), result);
    }

    @ForEachWorkerCount
    void takeManyHandsOutConsecutiveTickets(int workers) {
        List<Integer> order = new ArrayList<>();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Ticket.Queue queue = new Ticket.Queue();
            AtomicInteger index = new AtomicInteger();
            queue.take(100, ticket -> {
                int mine = index.getAndIncrement();
                Marl.schedule(() -> {
                    ticket.await();
                    order.add(mine); // serialised by the tickets
                    ticket.done();
                });
            });
            queue.take().await();
        });
        assertEquals(IntStream.range(0, 100).boxed().toList(), order);
    }

    @Test
    void theFirstTicketIsCalledAtOnceAndTheNextWhenItIsDone() {
        Ticket.Queue queue = new Ticket.Queue();
        Ticket first = queue.take();
        Ticket second = queue.take();
        assertTrue(first.isCalled());
        assertFalse(second.isCalled());
        first.done();
        assertTrue(second.isCalled());
        first.done(); // again: nothing
    }

    @Test
    void aTicketFinishedBeforeItIsCalledLeavesTheLine() {
        Ticket.Queue queue = new Ticket.Queue();
        Ticket first = queue.take();
        Ticket second = queue.take();
        Ticket third = queue.take();
        second.done();
        assertFalse(third.isCalled());
        first.done();
        assertTrue(third.isCalled());
    }

    @Test
    void takeMany_whoseConsumerThrows_leavesNoTicketItDidNotKeepInTheLine() {
        Ticket.Queue queue = new Ticket.Queue();
        List<Ticket> kept = new ArrayList<>();
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> queue.take(4, ticket -> {
            if (kept.size() == 2) {
                throw new IllegalStateException("consumer failed");
            }
            kept.add(ticket);
        }));
        assertEquals("consumer failed", thrown.getMessage());
        Ticket later = queue.take();
        assertTrue(kept.get(0).isCalled());
        kept.get(0).done();
        assertTrue(kept.get(1).isCalled(), "the tickets the consumer kept keep their places");
        assertFalse(later.isCalled());
        kept.get(1).done();
        assertTrue(later.isCalled(), "the third and fourth tickets, never kept, held the line");
    }

    @ForEachWorkerCount
    void onCallSchedulesTheCallbackWhenTheTicketIsCalled(int workers) {
        AtomicInteger calls = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Ticket.Queue queue = new Ticket.Queue();
            Ticket first = queue.take();
            Ticket second = queue.take();
            WaitGroup called = new WaitGroup(3);
            second.onCall(() -> { calls.incrementAndGet(); called.done(); });
            second.onCall(() -> { calls.incrementAndGet(); called.done(); });
            assertEquals(0, calls.get());
            first.done();
            first.onCall(() -> { calls.incrementAndGet(); called.done(); }); // already called: runs soon
            called.await();
            second.done();
        });
        assertEquals(3, calls.get());
    }

    /**
     * A ticket's callbacks run side by side, not each inside the previous: with 100,000 of them a
     * nested chain overflowed the stack when the ticket was called, and none after the overflow ran.
     * One that throws stops none of the others; the failure reaches the scheduler's handler.
     */
    @ForEachWorkerCount
    void manyOnCallCallbacks_allRunInOrder_withoutOverflowingTheStack(int workers) {
        int callbacks = 100_000;
        int[] order = new int[callbacks];
        AtomicInteger ran = new AtomicInteger();
        List<Throwable> reported = new java.util.concurrent.CopyOnWriteArrayList<>();
        Scheduler.Config config = TestSchedulers.config(workers).setUncaughtExceptionHandler((thread, e) -> reported.add(e));
        try (Scheduler scheduler = new Scheduler(config)) {
            scheduler.bind();
            Ticket.Queue queue = new Ticket.Queue();
            Ticket first = queue.take();
            Ticket second = queue.take();
            WaitGroup allRan = new WaitGroup(1);
            IllegalStateException boom = new IllegalStateException("callback 7 failed");
            for (int i = 0; i < callbacks; i++) {
                int index = i;
                second.onCall(() -> {
                    order[index] = ran.getAndIncrement();
                    if (index == callbacks - 1) {
                        allRan.done();
                    }
                    if (index == 7) {
                        throw boom;
                    }
                });
            }
            first.done();
            assertTrue(allRan.await(TestSchedulers.PATIENCE), "the last callback never ran");
            second.done();
            for (int i = 0; i < callbacks; i++) {
                assertEquals(i, order[i], "callback " + i + " ran out of order");
            }
            await().atMost(TestSchedulers.PATIENCE).until(() -> !reported.isEmpty());
            assertEquals(List.of(boom), reported);
        }
    }

    /** onCall's Registration withdraws a callback until the ticket's call has run it, as onSignal's does. */
    @ForEachWorkerCount
    void onCallRegistration_cancelWithdrawsTheCallback_untilItHasRun(int workers) {
        List<String> ran = new java.util.concurrent.CopyOnWriteArrayList<>();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Ticket.Queue queue = new Ticket.Queue();
            Ticket first = queue.take();
            Ticket second = queue.take();
            WaitGroup called = new WaitGroup(1);
            Registration a = second.onCall(() -> ran.add("a"));
            Registration b = second.onCall(() -> ran.add("b"));
            Registration c = second.onCall(() -> {
                ran.add("c");
                called.done();
            });
            assertTrue(b.cancel(), "a callback not yet run is withdrawn");
            assertFalse(b.cancel(), "and only once");
            first.done();
            called.await();
            assertEquals(List.of("a", "c"), ran);
            assertFalse(a.cancel(), "a callback that ran cannot be withdrawn");
            WaitGroup late = new WaitGroup(1);
            Registration spent = second.onCall(late::done); // already called: runs soon
            late.await();
            assertFalse(spent.cancel());
            // Every callback withdrawn: the call has nothing to run and the next ticket still gets its turn.
            Ticket third = queue.take();
            Registration withdrawn = third.onCall(() -> ran.add("never"));
            assertTrue(withdrawn.cancel());
            second.done();
            assertTrue(third.isCalled());
            third.done();
        });
        assertEquals(List.of("a", "c"), ran);
    }

    @Test
    void misuseThrowsWithAMessage() {
        Ticket.Queue queue = new Ticket.Queue();
        assertThrows(IllegalArgumentException.class, () -> queue.take(-1, t -> {}));
        assertThrows(NullPointerException.class, () -> queue.take(1, null));
        Ticket ticket = queue.take();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ticket.onCall(() -> {}));
        assertTrue(e.getMessage().contains("bind()"), e.getMessage());
        NullPointerException npe = assertThrows(NullPointerException.class, () -> ticket.onCall(null));
        assertTrue(npe.getMessage().contains("callback"), npe.getMessage());
    }

    // ---------------------------------------------------------------- closed scheduler

    /**
     * done() whose successor's onCall scheduler is closed: it throws and changes nothing (throwing
     * after calling the successor would lose the successor's callback).
     */
    @ForEachWorkerCount
    void done_whenTheNextTicketsCallbackSchedulerIsClosed_throwsAndChangesNothing(int workers) {
        Ticket.Queue queue = new Ticket.Queue();
        Ticket first = queue.take();
        Ticket second = queue.take();
        Scheduler scheduler = new Scheduler(TestSchedulers.config(workers));
        scheduler.bind();
        try {
            second.onCall(() -> {});
        } finally {
            scheduler.unbind();
            scheduler.close();
        }
        assertThrows(RejectedExecutionException.class, first::done);
        assertTrue(first.isCalled());
        assertFalse(second.isCalled(), "the successor is not called when its callback could not be handed over");
        assertTrue(first.toString().contains("called"), first.toString());
        assertThrows(RejectedExecutionException.class, first::done, "still unfinished, so done() tries again");
    }

    /** The same line with a live scheduler: done() calls the successor and runs its callback. */
    @ForEachWorkerCount
    void done_callsTheNextTicketsCallbackOnItsScheduler(int workers) {
        AtomicInteger calls = new AtomicInteger();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Ticket.Queue queue = new Ticket.Queue();
            Ticket first = queue.take();
            Ticket second = queue.take();
            WaitGroup called = new WaitGroup(1);
            second.onCall(() -> {
                calls.incrementAndGet();
                called.done();
            });
            first.done();
            called.await();
            assertTrue(second.isCalled());
            second.done();
        });
        assertEquals(1, calls.get());
    }
}
