package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Two signals racing on an AUTO event whose one callback consumes the first: the second must raise
 * the event, never be lost because it saw the first signal's raise before the callback took it
 * (signal() and isSignalled() read the flag without the event's lock).
 */
class EventSignalRaceTest {
    private static final int ROUNDS = 20_000;

    @Test
    void twoSignalsAndOneConsumingCallback_leaveTheEventRaised() throws Exception {
        CyclicBarrier start = new CyclicBarrier(2);
        Event[] events = new Event[1];
        Thread other = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < ROUNDS; i++) {
                awaitBarrier(start);
                events[0].signal();
                awaitBarrier(start);
            }
        });
        for (int i = 0; i < ROUNDS; i++) {
            Event event = new Event(Event.Mode.AUTO);
            AtomicInteger count = new AtomicInteger();
            event.onSignal(count::incrementAndGet);
            events[0] = event;
            awaitBarrier(start);
            event.signal();
            awaitBarrier(start);
            assertEquals(1, count.get(), "round " + i + ": the callback runs once");
            assertTrue(event.isSignalled(), "round " + i + ": the second signal was lost");
        }
        other.join();
    }

    private static void awaitBarrier(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
