package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** Scheduler.suspendedFibers(): every fiber blocked in a wait is listed with where it waits. */
class FiberDumpTest {
    private static final int PER_KIND = 3;

    @ForEachWorkerCount
    void suspendedFibers_listsEveryBlockedFiberWithItsWaitingFrame(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Event release = new Event(Event.Mode.MANUAL);
            WaitGroup gate = new WaitGroup(1);
            WaitGroup started = new WaitGroup(3 * PER_KIND);
            WaitGroup finished = new WaitGroup(3 * PER_KIND);
            for (int i = 0; i < PER_KIND; i++) {
                Marl.schedule(() -> {
                    started.done();
                    waitOnEvent(release);
                    finished.done();
                });
                Marl.schedule(() -> {
                    started.done();
                    waitOnWaitGroup(gate);
                    finished.done();
                });
                Marl.schedule(() -> {
                    started.done();
                    waitWithTimeout(release);
                    finished.done();
                });
            }
            started.await(); // with 0 workers, the tasks run here, until each has suspended
            await().atMost(Duration.ofSeconds(30)).until(() -> scheduler.suspendedFibers().size() == 3 * PER_KIND);

            List<SuspendedFiber> dump = scheduler.suspendedFibers();
            String printed = dump.toString();
            assertEquals(PER_KIND, count(dump, waitsIn("waitOnEvent", "org.marl4j.Event", "await")), printed);
            assertEquals(PER_KIND, count(dump, waitsIn("waitOnWaitGroup", "org.marl4j.WaitGroup", "await")), printed);
            assertEquals(PER_KIND, count(dump, waitsIn("waitWithTimeout", "org.marl4j.Event", "await")), printed);
            for (SuspendedFiber fiber : dump) {
                assertTrue(fiber.name().startsWith("fiber "), printed);
                assertEquals("org.marl4j.Worker", fiber.stackTrace().get(0).getClassName(), printed);
                assertEquals("suspend", fiber.stackTrace().get(0).getMethodName(), printed);
                assertTrue(workers == 0 ? fiber.workerId() == -1 : fiber.workerId() >= 0 && fiber.workerId() < workers, printed);
                boolean timed = hasFrame(fiber, "waitWithTimeout");
                assertEquals(timed ? SuspendedFiber.State.TIMED_WAITING : SuspendedFiber.State.WAITING, fiber.state(), printed);
                if (timed) {
                    assertTrue(fiber.timeLeft().compareTo(Duration.ofMinutes(1)) > 0, printed);
                } else {
                    assertNull(fiber.timeLeft(), printed);
                }
                assertTrue(fiber.toString().contains(FiberDumpTest.class.getName()), fiber.toString());
            }

            release.signal();
            gate.done();
            finished.await();
            assertEquals(List.of(), scheduler.suspendedFibers(), "every released fiber has resumed");
        });
    }

    @ForEachWorkerCount
    void suspendedFibers_listsABlockedBoundThreadAsItsMainFiber(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Event release = new Event(Event.Mode.MANUAL);
            AtomicReference<SuspendedFiber> seen = new AtomicReference<>();
            String boundThread = Thread.currentThread().getName();
            // A plain thread takes the dump: the bound thread is blocked in waitOnEvent meanwhile.
            Thread dumper = new Thread(() -> {
                try {
                    await().atMost(Duration.ofSeconds(30)).until(() -> {
                        seen.set(scheduler.suspendedFibers().stream()
                                .filter(f -> f.name().equals("main fiber")).findFirst().orElse(null));
                        return seen.get() != null;
                    });
                } finally {
                    release.signal(); // even on a timeout, so the test fails instead of hanging
                }
            });
            dumper.start();
            waitOnEvent(release);
            SuspendedFiber main = seen.get();
            assertNotNull(main);
            assertEquals(-1, main.workerId(), main.toString());
            assertEquals(boundThread, main.threadName(), main.toString());
            assertEquals(SuspendedFiber.State.WAITING, main.state(), main.toString());
            assertTrue(waitsIn("waitOnEvent", "org.marl4j.Event", "await").test(main), main.toString());
            assertTrue(hasFrame(main, "suspendedFibers_listsABlockedBoundThreadAsItsMainFiber"), main.toString());
            assertEquals(List.of(), scheduler.suspendedFibers());
        });
    }

    @Test
    void suspendedFibers_walksTheThreadOfAPinnedFiber() {
        TestSchedulers.withBoundScheduler(1, scheduler -> {
            WaitGroup done = new WaitGroup(1);
            Marl.schedule(() -> {
                assertEquals(44, WaitsInInitializer.VALUE);
                done.done();
            });
            await().atMost(Duration.ofSeconds(30)).until(() -> scheduler.suspendedFibers().size() == 1);
            SuspendedFiber pinned = scheduler.suspendedFibers().get(0);
            // The pinned fiber blocks its worker thread, so its frames come from that thread's stack.
            assertTrue(pinned.stackTrace().stream().anyMatch(f -> f.getMethodName().equals("<clinit>")
                    && f.getClassName().equals(WaitsInInitializer.class.getName())), pinned.toString());
            assertEquals("suspend", pinned.stackTrace().get(0).getMethodName(), pinned.toString());
            PINNED_RELEASE.signal();
            done.await();
            assertEquals(List.of(), scheduler.suspendedFibers());
        });
    }

    static final Event PINNED_RELEASE = new Event(Event.Mode.MANUAL);

    /** Waits inside a class initializer, which the JVM cannot yield: the fiber pins its thread. */
    static final class WaitsInInitializer {
        static final int VALUE;

        static {
            PINNED_RELEASE.await();
            VALUE = 44;
        }

        private WaitsInInitializer() {}
    }

    private static void waitOnEvent(Event event) {
        event.await();
    }

    private static void waitOnWaitGroup(WaitGroup group) {
        group.await();
    }

    private static void waitWithTimeout(Event event) {
        event.await(Duration.ofMinutes(5));
    }

    /** waitsIn(testMethod, ...) matches a fiber waiting in primitive.method called from testMethod. */
    private static Predicate<SuspendedFiber> waitsIn(String testMethod, String primitive, String method) {
        return fiber -> hasFrame(fiber, testMethod) && fiber.stackTrace().stream()
                .anyMatch(f -> f.getClassName().equals(primitive) && f.getMethodName().equals(method));
    }

    private static boolean hasFrame(SuspendedFiber fiber, String testMethod) {
        return fiber.stackTrace().stream().anyMatch(f -> f.getClassName().equals(FiberDumpTest.class.getName())
                && f.getMethodName().equals(testMethod));
    }

    private static long count(List<SuspendedFiber> dump, Predicate<SuspendedFiber> matches) {
        return dump.stream().filter(matches).count();
    }
}
