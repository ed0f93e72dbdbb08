package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** Scheduler.Config.setAffinityPolicy pins worker threads as they start (marl's thread affinity). */
class SchedulerAffinityTest {

    @Test
    void oneOfPinsEachWorkerThreadToItsOwnCpu() {
        assumeTrue(Affinity.isSupported(), "pinning needs Linux and Java 22+ (see Affinity.isSupported)");
        Affinity cpus = Affinity.all();
        int workers = 2 * cpus.count();
        Map<Integer, Affinity> seen = new ConcurrentHashMap<>();
        Scheduler.Config config = TestSchedulers.config(workers)
                .setAffinityPolicy(Affinity.Policy.oneOf(cpus))
                .setWorkerThreadInitializer(id -> seen.put(id, Affinity.ofCurrentThread()));
        Affinity boundBefore = Affinity.ofCurrentThread();
        TestSchedulers.withBoundScheduler(config, scheduler -> {
            WaitGroup started = new WaitGroup(1);
            Marl.schedule(started::done);
            started.await();
        });
        assertEquals(workers, seen.size());
        for (int id = 0; id < workers; id++) {
            assertEquals(Affinity.of(cpus.cpu(id % cpus.count())), seen.get(id), "worker " + id);
        }
        assertEquals(boundBefore, Affinity.ofCurrentThread(), "the bound thread is never pinned");
    }

    @Test
    void theConfigRejectsANullPolicy() {
        assertThrows(NullPointerException.class, () -> new Scheduler.Config().setAffinityPolicy(null));
    }
}
