package org.marl4j.benchmarks;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.marl4j.Event;
import org.marl4j.Scheduler;
import org.marl4j.Task;

/**
 * A Resident is a fiber parked on one known worker thread that runs commands sent to it. marl4j
 * has no API to pick a task's worker, but a fiber never leaves its worker, so the benchmarks place
 * one resident per worker and use it to start work on that worker (inline, or through SAME_THREAD
 * tasks it enqueues).
 */
final class Resident {
    private final Event go = new Event(Event.Mode.AUTO);
    private volatile Runnable command;

    /** place(scheduler, workers) starts one resident on each of the scheduler's worker threads. */
    static Resident[] place(Scheduler scheduler, int workers) throws InterruptedException {
        AtomicReferenceArray<Resident> slots = new AtomicReferenceArray<>(workers);
        CountDownLatch placed = new CountDownLatch(workers);
        while (placed.getCount() > 0) {
            // Tasks land on workers round-robin or by stealing: keep sending until each worker has
            // one; a task that finds its worker taken just ends.
            scheduler.enqueue(new Task(() -> {
                Resident resident = new Resident();
                if (slots.compareAndSet(BenchSupport.workerId(), null, resident)) {
                    placed.countDown();
                    resident.loop();
                }
            }));
            placed.await(1, TimeUnit.MILLISECONDS);
        }
        Resident[] residents = new Resident[workers];
        for (int i = 0; i < workers; i++) {
            residents[i] = slots.get(i);
        }
        return residents;
    }

    /** run(command) has this resident run {@code command} on its fiber; null makes it end. */
    void run(Runnable command) {
        this.command = command;
        go.signal();
    }

    /** endAll(residents) has each resident end its fiber, so that the scheduler can close. */
    static void endAll(Resident[] residents) {
        for (Resident r : residents) {
            r.run(null);
        }
    }

    private void loop() {
        while (true) {
            go.await();
            Runnable c = command;
            if (c == null) {
                return;
            }
            c.run();
        }
    }
}
