package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Pluggable scheduling policies (Boost.Fiber's sched_algorithm) and PriorityPolicy. */
class SchedulingPolicyTest {

    private static Scheduler.Config priority(int workers) {
        return TestSchedulers.config(workers).setSchedulingPolicy(PriorityPolicy::new);
    }

    /** With no worker threads everything queues on the bound thread until it blocks: a clean order. */
    @Test
    void priorityPolicy_runsIntegerMinValueLast_andMaxValueFirst() {
        PriorityPolicy policy = new PriorityPolicy();
        int[] priorities = {0, Integer.MIN_VALUE, 5, Integer.MAX_VALUE, -1};
        for (int p : priorities) {
            policy.enqueued(new Task(() -> {}).withPriority(p));
        }
        List<Integer> order = new ArrayList<>();
        for (Task t; (t = policy.pickNextTask()) != null; ) {
            order.add(t.priority());
        }
        assertEquals(List.of(Integer.MAX_VALUE, 5, 0, -1, Integer.MIN_VALUE), order);
    }

    @Test
    void fifoPolicy_neverGivesAThiefASameThreadTask_asTheyComeAndGo() {
        FifoPolicy policy = new FifoPolicy();
        Task s1 = new Task(() -> {}, Task.Flag.SAME_THREAD);
        Task s2 = new Task(() -> {}, Task.Flag.SAME_THREAD);
        Task t1 = new Task(() -> {});
        Task t2 = new Task(() -> {});
        Task t3 = new Task(() -> {});
        policy.enqueued(s1);
        policy.enqueued(t1);
        assertSame(t1, policy.steal(), "the thief did not look past the SAME_THREAD task");
        assertSame(s1, policy.pickNextTask());
        assertSame(null, policy.steal());
        policy.enqueued(s2); // after the first SAME_THREAD task left: it must still count
        policy.enqueued(t2);
        assertSame(t2, policy.steal());
        assertSame(null, policy.steal(), "a SAME_THREAD task was given to a thief");
        assertSame(s2, policy.pickNextTask());
        policy.enqueued(t3);
        assertSame(t3, policy.steal());
    }

    @Test
    void priorityPolicyStartsHigherPriorityTasksFirstAndEqualOnesInOrder() {
        List<String> order = new ArrayList<>();
        TestSchedulers.withBoundScheduler(priority(0), scheduler -> {
            int[] priorities = {0, 5, 1, 5, 9, 0, 1};
            WaitGroup done = new WaitGroup(priorities.length);
            for (int i = 0; i < priorities.length; i++) {
                String name = priorities[i] + "/" + i;
                scheduler.enqueue(new Task(() -> {
                    order.add(name);
                    done.done();
                }).withPriority(priorities[i]));
            }
            done.await();
        });
        assertEquals(List.of("9/4", "5/1", "5/3", "1/2", "1/6", "0/0", "0/5"), order);
    }

    @Test
    void theFifoDefaultIgnoresPriorities() {
        List<Integer> order = new ArrayList<>();
        TestSchedulers.withBoundScheduler(0, scheduler -> {
            WaitGroup done = new WaitGroup(5);
            for (int i = 0; i < 5; i++) {
                int index = i;
                scheduler.enqueue(new Task(() -> {
                    order.add(index);
                    done.done();
                }).withPriority(index));
            }
            done.await();
        });
        assertEquals(List.of(0, 1, 2, 3, 4), order);
    }

    /**
     * The default keeps its ready fibers in the worker ({@code Work.readyFibers}); a policy that
     * wraps a FifoPolicy is handed them through the interface. Both resume in wake order, before
     * a task queued after the wakes.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"default", "FifoPolicy wrapped"})
    void fifoOrder_resumesReadyFibersInTheOrderTheyWereWoken_beforeALaterTask(String policy) {
        Scheduler.Config config = TestSchedulers.config(0);
        if (policy.equals("FifoPolicy wrapped")) {
            config.setSchedulingPolicy(ForwardingPolicy::new);
        }
        List<String> order = new ArrayList<>();
        TestSchedulers.withBoundScheduler(config, scheduler -> {
            int fibers = 4;
            Event[] wake = new Event[fibers];
            WaitGroup blocked = new WaitGroup(fibers);
            WaitGroup done = new WaitGroup(fibers + 1);
            for (int i = 0; i < fibers; i++) {
                Event event = wake[i] = new Event();
                String name = "fiber " + i;
                scheduler.enqueue(new Task(() -> {
                    blocked.done();
                    event.await();
                    order.add(name);
                    done.done();
                }));
            }
            blocked.await(); // all four suspended; this bound thread runs none of them until it waits
            for (int i : new int[] {2, 0, 3, 1}) {
                wake[i].signal();
            }
            scheduler.enqueue(new Task(() -> { order.add("task"); done.done(); }));
            done.await();
        });
        assertEquals(List.of("fiber 2", "fiber 0", "fiber 3", "fiber 1", "task"), order);
    }

    @Test
    void aFiberRunsAtThePriorityOfItsTask() {
        AtomicInteger seen = new AtomicInteger(-1);
        TestSchedulers.withBoundScheduler(priority(1), scheduler -> {
            WaitGroup done = new WaitGroup(1);
            scheduler.enqueue(new Task(() -> {
                seen.set(Fiber.current().priority());
                done.done();
            }).withPriority(7));
            done.await();
        });
        assertEquals(7, seen.get());
    }

    /** Two fibers blocked on events, then woken: returns the order in which they resumed. */
    private static List<String> resumeOrder(boolean changeWhileWaiting) {
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        TestSchedulers.withBoundScheduler(priority(0), scheduler -> {
            Event wakeA = new Event();
            Event wakeB = new Event();
            AtomicReference<Fiber> fiberB = new AtomicReference<>();
            WaitGroup blocked = new WaitGroup(2);
            WaitGroup done = new WaitGroup(2);
            scheduler.enqueue(new Task(() -> {
                blocked.done();
                wakeA.await();
                order.add("A");
                done.done();
            }).withPriority(1));
            scheduler.enqueue(new Task(() -> {
                fiberB.set(Fiber.current());
                blocked.done();
                wakeB.await();
                order.add("B");
                done.done();
            }).withPriority(1));
            blocked.await(); // both fibers are now suspended; the bound thread runs again
            if (changeWhileWaiting) {
                fiberB.get().setPriority(5); // B is still waiting: counts when it is woken
            }
            wakeA.signal(); // A is ready first...
            wakeB.signal(); // ...then B: both queued on this thread, which does not run them yet
            if (!changeWhileWaiting) {
                fiberB.get().setPriority(5); // B is ready: re-ordered at once
            }
            done.await();
        });
        return order;
    }

    @Test
    void raisingThePriorityOfAReadyFiberReordersIt() {
        assertEquals(List.of("B", "A"), resumeOrder(false));
    }

    @Test
    void raisingThePriorityOfAWaitingFiberCountsWhenItIsWoken() {
        assertEquals(List.of("B", "A"), resumeOrder(true));
    }

    @Test
    void aHigherPriorityTaskGoesBeforeALowerPriorityReadyFiber() {
        List<String> order = new ArrayList<>();
        TestSchedulers.withBoundScheduler(priority(0), scheduler -> {
            Event wake = new Event();
            WaitGroup blocked = new WaitGroup(1);
            WaitGroup done = new WaitGroup(3);
            scheduler.enqueue(new Task(() -> {
                blocked.done();
                wake.await();
                order.add("fiber 1");
                done.done();
            }).withPriority(1));
            blocked.await();
            wake.signal();
            scheduler.enqueue(new Task(() -> { order.add("task 3"); done.done(); }).withPriority(3));
            scheduler.enqueue(new Task(() -> { order.add("task 0"); done.done(); }).withPriority(0));
            done.await();
        });
        assertEquals(List.of("task 3", "fiber 1", "task 0"), order);
    }

    /** A custom policy, as a user would write one: newest task first, fibers first. */
    static final class LifoPolicy implements SchedulingPolicy {
        private final ArrayDeque<Fiber> fibers = new ArrayDeque<>();
        private final ArrayDeque<Task> tasks = new ArrayDeque<>();

        @Override public void awakened(Fiber fiber) { fibers.addLast(fiber); }
        @Override public void enqueued(Task task) { tasks.addLast(task); }
        @Override public Fiber pickNextFiber() { return fibers.pollFirst(); }
        @Override public Task pickNextTask() { return tasks.pollLast(); }
        @Override public Task steal() { return null; }
        @Override public boolean remove(Fiber fiber) { return fibers.remove(fiber); }
    }

    @Test
    void aCustomPolicyDecidesTheOrder() {
        List<Integer> order = new ArrayList<>();
        TestSchedulers.withBoundScheduler(TestSchedulers.config(0).setSchedulingPolicy(LifoPolicy::new), scheduler -> {
            WaitGroup done = new WaitGroup(4);
            for (int i = 0; i < 4; i++) {
                int index = i;
                scheduler.enqueue(new Task(() -> {
                    order.add(index);
                    done.done();
                }));
            }
            done.await();
        });
        assertEquals(List.of(3, 2, 1, 0), order);
    }

    @ForEachWorkerCount
    void priorityPolicyLosesNoWorkUnderLoad(int workers) {
        AtomicInteger ran = new AtomicInteger();
        TestSchedulers.withBoundScheduler(priority(workers), scheduler -> {
            int tasks = 2_000;
            Event gate = new Event(Event.Mode.MANUAL);
            WaitGroup done = new WaitGroup(tasks);
            for (int i = 0; i < tasks; i++) {
                int p = ThreadLocalRandom.current().nextInt(-3, 4);
                scheduler.enqueue(new Task(() -> {
                    if (ThreadLocalRandom.current().nextBoolean()) {
                        gate.await();
                    }
                    if (ThreadLocalRandom.current().nextInt(4) == 0) {
                        Fiber.current().setPriority(ThreadLocalRandom.current().nextInt(-3, 4));
                        Fiber.yield();
                    }
                    ran.incrementAndGet();
                    done.done();
                }).withPriority(p));
                if (i == tasks / 2) {
                    gate.signal();
                }
            }
            done.await();
        });
        assertEquals(2_000, ran.get());
    }

    @Test
    void misconfiguredPoliciesAreRejectedWithAMessage() {
        assertThrows(NullPointerException.class, () -> new Scheduler.Config().setSchedulingPolicy(null));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new Scheduler(TestSchedulers.config(1).setSchedulingPolicy(() -> null)));
        assertTrue(e.getMessage().contains("returned null"), e.getMessage());
    }
}
