package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Affinity and Affinity.Policy, ported from marl's {@code thread_test.cpp} and extended with real
 * pinning on Linux (the test JVM runs Java 25 with {@code --enable-native-access=ALL-UNNAMED}).
 */
@Timeout(30)
class AffinityTest {

    // ------------------------------------------------------------------ values (marl's tests)

    @Test
    void count_isTheNumberOfCpus() {
        assertEquals(4, Affinity.of(10, 20, 30, 40).count());
    }

    @Test
    void add_mergesInAscendingOrder() {
        Affinity affinity = Affinity.of(10, 20, 30, 40)
                .add(Affinity.of(25, 15))
                .add(Affinity.of(35));
        assertEquals(7, affinity.count());
        assertArrayEquals(new int[] {10, 15, 20, 25, 30, 35, 40}, affinity.toArray());
        assertEquals(15, affinity.cpu(1));
        assertEquals(40, affinity.cpu(6));
    }

    @Test
    void add_keepsEachCpuOnce() {
        assertEquals(Affinity.of(1, 2, 3), Affinity.of(1, 2).add(Affinity.of(2, 3)));
    }

    @Test
    void remove_dropsTheGivenCpus_andIgnoresAbsentOnes() {
        Affinity affinity = Affinity.of(10, 20, 30, 40)
                .remove(Affinity.of(25, 20))
                .remove(Affinity.of(40));
        assertEquals(2, affinity.count());
        assertEquals(10, affinity.cpu(0));
        assertEquals(30, affinity.cpu(1));
    }

    @Test
    void of_sortsAndDeduplicates() {
        Affinity affinity = Affinity.of(40, 10, 30, 20, 10);
        assertArrayEquals(new int[] {10, 20, 30, 40}, affinity.toArray());
        List<Integer> iterated = new ArrayList<>();
        affinity.forEach(iterated::add);
        assertEquals(List.of(10, 20, 30, 40), iterated);
        assertEquals(100, affinity.stream().sum());
        assertTrue(affinity.contains(30));
        assertFalse(affinity.contains(35));
        assertEquals("Affinity[10, 20, 30, 40]", affinity.toString());
    }

    @Test
    void addAndRemove_returnNewValues_leavingTheOriginalUnchanged() {
        Affinity original = Affinity.of(1, 2);
        int[] array = original.toArray();
        array[0] = 99;
        assertNotEquals(original, original.add(Affinity.of(3)));
        assertNotEquals(original, original.remove(Affinity.of(1)));
        assertEquals(Affinity.of(2, 1), original);
        assertEquals(Affinity.of(1, 2).hashCode(), original.hashCode());
        assertTrue(original.remove(original).isEmpty());
    }

    @Test
    void all_isNeverEmpty() {
        Affinity all = Affinity.all();
        assertTrue(all.count() > 0, all::toString);
        assertTrue(all.stream().allMatch(cpu -> cpu >= 0 && cpu <= Affinity.MAX_CPU), all::toString);
    }

    @Test
    void policyOneOf_pinsWorkerIToCpuIModCount() {
        Affinity.Policy policy = Affinity.Policy.oneOf(Affinity.of(10, 20, 30, 40));
        int[] expected = {10, 20, 30, 40, 10, 20, 30, 40, 10};
        for (int worker = 0; worker < expected.length; worker++) {
            assertEquals(Affinity.of(expected[worker]), policy.get(worker), "worker " + worker);
        }
        assertEquals(10, policy.get(Integer.MAX_VALUE - 3).cpu(0));
    }

    @Test
    void policyAnyOf_givesEveryWorkerTheWholeSet() {
        Affinity cpus = Affinity.of(10, 20, 30);
        Affinity.Policy policy = Affinity.Policy.anyOf(cpus);
        for (int worker : new int[] {0, 1, 2, 3, 63, 64}) {
            assertEquals(cpus, policy.get(worker), "worker " + worker);
        }
        assertEquals("Policy.anyOf(Affinity[10, 20, 30])", policy.toString());
    }

    // ------------------------------------------------------------------ bad input

    @Test
    void of_negativeOrTooLargeCpu_throwsNamingTheValue() {
        var negative = assertThrows(IllegalArgumentException.class, () -> Affinity.of(0, -3));
        assertTrue(negative.getMessage().contains("-3"), negative.getMessage());
        var tooLarge = assertThrows(IllegalArgumentException.class, () -> Affinity.of(Affinity.MAX_CPU + 1));
        assertTrue(tooLarge.getMessage().contains(String.valueOf(Affinity.MAX_CPU + 1)), tooLarge.getMessage());
    }

    @Test
    void policies_rejectAnEmptyAffinity() {
        var anyOf = assertThrows(IllegalArgumentException.class, () -> Affinity.Policy.anyOf(Affinity.of()));
        assertTrue(anyOf.getMessage().contains("anyOf") && anyOf.getMessage().contains("Affinity[]"),
                anyOf.getMessage());
        var oneOf = assertThrows(IllegalArgumentException.class,
                () -> Affinity.Policy.oneOf(Affinity.of(1).remove(Affinity.of(1))));
        assertTrue(oneOf.getMessage().contains("oneOf"), oneOf.getMessage());
    }

    @Test
    void negativeWorkerId_throwsNamingTheValue() {
        Affinity.Policy policy = Affinity.Policy.oneOf(Affinity.of(0));
        var get = assertThrows(IllegalArgumentException.class, () -> policy.get(-1));
        assertTrue(get.getMessage().contains("-1"), get.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Affinity.Policy.anyOf(Affinity.of(0)).get(-2));
    }

    @Test
    void cpu_outOfRange_throws() {
        assertThrows(IndexOutOfBoundsException.class, () -> Affinity.of(1, 2).cpu(2));
        assertThrows(IndexOutOfBoundsException.class, () -> Affinity.of(1, 2).cpu(-1));
    }

    // ------------------------------------------------------------------ applying to threads

    @Test
    void isSupported_onLinuxWithJava22AndNativeAccess() {
        assumeTrue(System.getProperty("os.name").startsWith("Linux"), "Linux only");
        assumeTrue(Runtime.version().feature() >= NativeAffinity.FIRST_FFM_RELEASE, "Java 22+ only");
        assertTrue(Affinity.isSupported(), NativeAffinity::unsupportedReason);
    }

    @Test
    void policyOneOf_pinsEachFreshThreadToExactlyItsCpu() throws Exception {
        assumeTrue(Affinity.isSupported(), NativeAffinity::unsupportedReason);
        Affinity all = Affinity.all();
        Affinity.Policy policy = Affinity.Policy.oneOf(all);
        for (int worker = 0; worker < all.count() + 1; worker++) {
            int id = worker;
            Affinity pinned = onFreshThread(() -> {
                assertTrue(policy.get(id).applyToCurrentThread());
                return Affinity.ofCurrentThread();
            });
            assertEquals(Affinity.of(all.cpu(worker % all.count())), pinned, "worker " + worker);
        }
    }

    @Test
    void policyAnyOf_givesAPinnedThreadTheWholeSetBack() throws Exception {
        assumeTrue(Affinity.isSupported(), NativeAffinity::unsupportedReason);
        Affinity all = Affinity.all();
        Affinity widened = onFreshThread(() -> {
            assertTrue(Affinity.Policy.oneOf(all).get(0).applyToCurrentThread());
            assertEquals(1, Affinity.ofCurrentThread().count());
            assertTrue(Affinity.Policy.anyOf(all).get(0).applyToCurrentThread());
            return Affinity.ofCurrentThread();
        });
        assertEquals(all, widened);
    }

    @Test
    void pinning_touchesOnlyTheCallingThread_andAllStillReportsTheProcess() throws Exception {
        assumeTrue(Affinity.isSupported(), NativeAffinity::unsupportedReason);
        Affinity before = Affinity.ofCurrentThread();
        Affinity all = Affinity.all();
        Affinity allSeenFromPinned = onFreshThread(() -> {
            assertTrue(Affinity.of(all.cpu(all.count() - 1)).applyToCurrentThread());
            return Affinity.all();
        });
        assertEquals(all, allSeenFromPinned);
        assertEquals(before, Affinity.ofCurrentThread());
    }

    @Test
    void applyRefusedByTheKernel_isALoggedNoOp() throws Exception {
        assumeTrue(Affinity.isSupported(), NativeAffinity::unsupportedReason);
        int absent = Affinity.MAX_CPU; // no machine this runs on has CPU 65535
        assumeTrue(!Affinity.all().contains(absent));
        List<LogRecord> records = captureAffinityLog(() -> {
            Affinity unchanged = onFreshThread(() -> {
                Affinity initial = Affinity.ofCurrentThread();
                assertFalse(Affinity.Policy.oneOf(Affinity.of(absent)).get(0).applyToCurrentThread());
                assertEquals(initial, Affinity.ofCurrentThread());
                return initial;
            });
            assertFalse(unchanged.isEmpty());
        });
        assertTrue(records.stream().anyMatch(r -> r.getMessage().contains("sched_setaffinity")), records::toString);
    }

    @Test
    void apply_isANoOp_onEmptyAffinity_andOnVirtualThreads() throws Exception {
        assertFalse(Affinity.of().applyToCurrentThread());
        AtomicReference<Boolean> applied = new AtomicReference<>();
        Thread virtual = Thread.ofVirtual().start(() -> applied.set(Affinity.of(0).applyToCurrentThread()));
        virtual.join();
        assertEquals(Boolean.FALSE, applied.get());
    }

    @Test
    void customPolicy_isAppliedLikeMarls() throws Exception {
        assumeTrue(Affinity.isSupported(), NativeAffinity::unsupportedReason);
        Affinity all = Affinity.all();
        Affinity.Policy lastCpu = worker -> Affinity.of(all.cpu(all.count() - 1));
        Affinity pinned = onFreshThread(() -> {
            assertTrue(lastCpu.get(7).applyToCurrentThread());
            return Affinity.ofCurrentThread();
        });
        assertEquals(lastCpu.get(7), pinned);
    }

    // ------------------------------------------------------------------ helpers

    /** Runs body on a new platform thread (so pinning never leaks into the test runner's threads). */
    private static <T> T onFreshThread(Callable<T> body) throws Exception {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = Thread.ofPlatform().name("affinity-test").start(() -> {
            try {
                result.set(body.call());
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        thread.join();
        if (failure.get() instanceof Exception e) {
            throw e;
        }
        if (failure.get() instanceof Error e) {
            throw e;
        }
        return result.get();
    }

    /** Runs body with the Affinity logger's records captured instead of printed. */
    private static List<LogRecord> captureAffinityLog(ThrowingRunnable body) throws Exception {
        Logger logger = Logger.getLogger(Affinity.class.getName());
        List<LogRecord> records = new ArrayList<>();
        Handler handler = new Handler() {
            @Override
            public synchronized void publish(LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Level level = logger.getLevel();
        boolean parents = logger.getUseParentHandlers();
        logger.addHandler(handler);
        logger.setLevel(Level.ALL);
        logger.setUseParentHandlers(false);
        try {
            body.run();
        } finally {
            logger.removeHandler(handler);
            logger.setLevel(level);
            logger.setUseParentHandlers(parents);
        }
        synchronized (handler) {
            return List.copyOf(records);
        }
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
