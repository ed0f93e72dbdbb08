package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A policy whose enqueued() throws (a bounded queue that is full) must not lose a task that
 * another worker's policy accepted and a thief then stole: the contract says a throwing enqueued()
 * changes nothing, and every task given is handed back.
 */
@Timeout(60)
class StolenTaskRefusalTest {

    /** While {@link #ACCEPTING} is set, refuses every task added on any other thread: a thief's full queue. */
    static final class FullOffTheAcceptingThread extends ForwardingPolicy {
        static final AtomicReference<Thread> ACCEPTING = new AtomicReference<>();
        static final AtomicInteger REFUSED = new AtomicInteger();

        @Override
        public void enqueued(Task task) {
            Thread accepting = ACCEPTING.get();
            if (accepting != null && accepting != Thread.currentThread()) {
                REFUSED.incrementAndGet();
                throw new IllegalStateException("Queue full");
            }
            super.enqueued(task);
        }
    }

    /**
     * A task queues TASKS tasks on its own worker, accepted there, then holds that worker in a spin;
     * idle workers steal them, and their policies refuse them (full). The stolen task has left its
     * victim: it must wait in the thief's pending tasks and run once the policy takes it (if
     * Steals.addStolen let it go, tens of tasks in 1000 would never run on 2 workers).
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {2, 4})
    void aStolenTaskTheThiefsPolicyRefuses_isNotLost(int workers) throws Exception {
        TaskErrors errors = new TaskErrors();
        AtomicInteger ran = new AtomicInteger();
        FullOffTheAcceptingThread.REFUSED.set(0);
        try (Scheduler scheduler = new Scheduler(errors.config(workers).setSchedulingPolicy(FullOffTheAcceptingThread::new))) {
            CompletableFuture<Void> queued = new CompletableFuture<>();
            scheduler.enqueue(new Task(() -> {
                FullOffTheAcceptingThread.ACCEPTING.set(Thread.currentThread());
                for (int i = 0; i < TASKS; i++) {
                    scheduler.enqueue(new Task(ran::incrementAndGet)); // to this worker's own queue
                }
                queued.complete(null);
                // Hold this worker (not its fiber) until the others have tried to steal a while.
                long until = System.nanoTime() + 200_000_000L;
                while (System.nanoTime() < until && FullOffTheAcceptingThread.REFUSED.get() < 10) {
                    Thread.onSpinWait();
                }
                FullOffTheAcceptingThread.ACCEPTING.set(null);
            }));
            queued.get(TestSchedulers.PATIENCE.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } finally {
            FullOffTheAcceptingThread.ACCEPTING.set(null);
        } // close waits for every queued task
        assertEquals(TASKS, ran.get(), FullOffTheAcceptingThread.REFUSED.get() + " steals refused; errors " + errors.errors());
    }

    private static final int TASKS = 1_000;
}
