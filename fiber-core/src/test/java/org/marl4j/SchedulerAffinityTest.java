package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
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

    /**
     * A policy that throws for the last worker fails the constructor, on the caller's thread (as
     * marl's Worker::start asks the policy), and the worker threads started before it are stopped
     * and joined: left running, these non-daemon threads would keep the JVM from exiting.
     */
    @ParameterizedTest1to8
    void aPolicyThatThrowsFailsTheConstructorAndStopsTheStartedWorkers(int workers) {
        RuntimeException failure = new IllegalStateException("no CPU for worker " + (workers - 1));
        List<Thread> askedOn = new CopyOnWriteArrayList<>();
        Scheduler.Config config = TestSchedulers.config(workers).setAffinityPolicy(id -> {
            askedOn.add(Thread.currentThread());
            if (id == workers - 1) {
                throw failure;
            }
            return null;
        });
        IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class, () -> new Scheduler(config));
        assertSame(failure, thrown.getCause());
        assertTrue(thrown.getMessage().contains("affinity policy") && thrown.getMessage().contains("worker " + (workers - 1)),
                thrown.getMessage());
        assertEquals(List.of(Thread.currentThread()), askedOn.stream().distinct().toList(),
                "the policy is asked on the constructing thread");
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    /** An Error from the policy (here a StackOverflowError) reaches the caller as it is, after the same clean-up. */
    @Test
    void anErrorFromThePolicyReachesTheCallerUnwrapped() {
        StackOverflowError failure = new StackOverflowError("policy recursed");
        Scheduler.Config config = TestSchedulers.config(3).setAffinityPolicy(id -> {
            if (id == 2) {
                throw failure;
            }
            return null;
        });
        assertSame(failure, assertThrows(StackOverflowError.class, () -> new Scheduler(config)));
        TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix());
    }

    /**
     * A worker thread whose initializer waits for something its scheduler's constructing thread
     * holds (here a lock taken around {@code new Scheduler}) cannot end while the failed
     * constructor joins it: the constructor gives up on it after the close warning's delay, names it
     * in a suppressed exception and throws, rather than deadlock; the thread ends once its
     * initializer returns.
     */
    @Test
    void aFailedConstructorDoesNotDeadlockOnAWorkerInitializerThatWaitsForItsCaller() throws Exception {
        Object registry = new Object();
        CountDownLatch initializing = new CountDownLatch(1);
        RuntimeException failure = new IllegalStateException("no CPU for worker 1");
        Scheduler.Config config = TestSchedulers.config(2).setWorkerThreadInitializer(id -> {
            initializing.countDown();
            synchronized (registry) { // registers the thread, say: waits for the constructing thread's lock
                assertTrue(Thread.holdsLock(registry));
            }
        }).setAffinityPolicy(id -> {
            if (id == 1) {
                try {
                    initializing.await(); // worker 0 is in its initializer
                } catch (InterruptedException e) {
                    throw new AssertionError("nobody interrupts the constructor", e);
                }
                throw failure;
            }
            return null;
        });
        config.closeWarningAfter = Duration.ofMillis(200);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread constructing = TestSchedulers.startThread("constructing", () -> {
            synchronized (registry) {
                try {
                    new Scheduler(config);
                } catch (Throwable t) {
                    thrown.set(t);
                }
            }
        });
        constructing.join(TestSchedulers.PATIENCE.toMillis());
        assertFalse(constructing.isAlive(), "the failed constructor waits for a worker thread that waits for its caller");
        assertSame(failure, thrown.get().getCause());
        assertTrue(Arrays.stream(thrown.get().getSuppressed()).anyMatch(s -> s.getMessage().contains(config.getThreadNamePrefix() + "0")),
                Arrays.toString(thrown.get().getSuppressed()));
        await().atMost(TestSchedulers.PATIENCE).untilAsserted(() -> TestSchedulers.assertNoThreadsLeft(config.getThreadNamePrefix()));
    }
}
