package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TaskErrors.LONG;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Dag behaviour, ported from marl's {@code dag_test.cpp} and extended to check every edge of random graphs. */
class DagTest {

    /** marl's test Data: the order in which nodes pushed their names. */
    static final class Data {
        final List<String> order = Collections.synchronizedList(new ArrayList<>());
    }

    private static Consumer<Data> push(String name) {
        return data -> data.order.add(name);
    }

    /** Per-run record of when each node started and finished, on one logical clock. */
    static final class Timeline {
        final AtomicInteger clock = new AtomicInteger();
        final AtomicIntegerArray start;
        final AtomicIntegerArray finish;
        final AtomicIntegerArray runs;

        Timeline(int nodes) {
            start = new AtomicIntegerArray(nodes);
            finish = new AtomicIntegerArray(nodes);
            runs = new AtomicIntegerArray(nodes);
        }

        static Consumer<Timeline> node(int id) {
            return t -> {
                t.runs.incrementAndGet(id);
                t.start.set(id, t.clock.incrementAndGet());
                if (Fiber.current() != null && ThreadLocalRandom.current().nextInt(8) == 0) {
                    Fiber.yield(); // stretch the node so that a wrong order has time to show
                }
                t.finish.set(id, t.clock.incrementAndGet());
            };
        }

        /** assertOrdered(edges) checks each node ran once and every edge's child started after its parent finished. */
        void assertOrdered(int nodes, List<int[]> edges) {
            for (int i = 0; i < nodes; i++) {
                assertEquals(1, runs.get(i), "node " + i + " ran " + runs.get(i) + " times");
            }
            for (int[] edge : edges) {
                assertTrue(finish.get(edge[0]) < start.get(edge[1]), "node " + edge[1] + " started at "
                        + start.get(edge[1]) + ", before its predecessor " + edge[0] + " finished at " + finish.get(edge[0]));
            }
        }
    }

    // ------------------------------------------------------------------ marl's dag_test.cpp

    @ForEachWorkerCount
    void chainWithoutData(int workers) {
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Dag.Builder<Void> builder = Dag.builder();
            builder.root()
                    .then(v -> order.add("A"))
                    .then(v -> order.add("B"))
                    .then(v -> order.add("C"));
            builder.build().run();
        });
        assertEquals(List.of("A", "B", "C"), order);
    }

    @ForEachWorkerCount
    void chainWithData(int workers) {
        Data data = new Data();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Dag.Builder<Data> builder = Dag.builder();
            builder.root().then(push("A")).then(push("B")).then(push("C"));
            builder.build().run(data);
        });
        assertEquals(List.of("A", "B", "C"), data.order);
    }

    @ForEachWorkerCount
    void runRepeatedly_withDifferentData(int workers) {
        List<Data> runs = List.of(new Data(), new Data(), new Data());
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Dag.Builder<Data> builder = Dag.builder();
            builder.root().then(push("A")).then(push("B")).then(push("C"));
            Dag<Data> dag = builder.build();
            runs.forEach(dag::run);
        });
        for (Data data : runs) {
            assertEquals(List.of("A", "B", "C"), data.order);
        }
    }

    @ForEachWorkerCount
    void fanOutFromRoot(int workers) {
        Data data = new Data();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Dag.Builder<Data> builder = Dag.builder();
            Dag.Node<Data> root = builder.root();
            root.then(push("A"));
            root.then(push("B"));
            root.then(push("C"));
            root.then(push("D"));
            builder.build().run(data);
        });
        assertEquals(Set.of("A", "B", "C", "D"), Set.copyOf(data.order));
        assertEquals(4, data.order.size());
    }

    @ForEachWorkerCount
    void fanOutFromNonRoot(int workers) {
        Data data = new Data();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Dag.Builder<Data> builder = Dag.builder();
            Dag.Node<Data> n = builder.root().then(push("N"));
            n.then(push("A"));
            n.then(push("B"));
            n.then(push("C"));
            builder.build().run(data);
        });
        assertEquals("N", data.order.get(0));
        assertEquals(Set.of("A", "B", "C"), Set.copyOf(data.order.subList(1, 4)));
        assertEquals(4, data.order.size());
    }

    /**
     * <pre>
     * root -> A0 -> {B0, B1} -> C0 -> {D0, D1, D2} -> E0
     *                                                 ^
     * root ------------------------------------------ F0 (independent of the rest, joined at E0)
     * </pre>
     */
    @ForEachWorkerCount
    void fanOutFanIn(int workers) {
        Data data = new Data();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Dag.Builder<Data> b = Dag.builder();
            Dag.Node<Data> a0 = b.root().then(push("A0"));
            Dag.Node<Data> b0 = a0.then(push("B0"));
            Dag.Node<Data> b1 = a0.then(push("B1"));
            Dag.Node<Data> c0 = b.node(push("C0"), b0, b1);
            Dag.Node<Data> d0 = c0.then(push("D0"));
            Dag.Node<Data> d1 = c0.then(push("D1"));
            Dag.Node<Data> d2 = c0.then(push("D2"));
            Dag.Node<Data> f0 = b.root().then(push("F0"));
            b.node(push("E0"), d0, d1, d2, f0);
            b.build().run(data);
        });
        List<String> o = data.order;
        assertEquals(9, o.size(), o.toString());
        List<String> withoutF = new ArrayList<>(o);
        withoutF.remove("F0");
        assertEquals("A0", withoutF.get(0));
        assertEquals(Set.of("B0", "B1"), Set.copyOf(withoutF.subList(1, 3)));
        assertEquals("C0", withoutF.get(3));
        assertEquals(Set.of("D0", "D1", "D2"), Set.copyOf(withoutF.subList(4, 7)));
        assertEquals("E0", o.get(8));
    }

    // ------------------------------------------------------------------ every edge of random graphs

    @ForEachWorkerCount
    void randomDag_everyNodeRunsOnceAfterAllItsPredecessors_repeatedly(int workers) {
        int nodes = 300;
        Random random = new Random(workers * 31L + 7);
        List<int[]> edges = new ArrayList<>();
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Dag.Builder<Timeline> b = Dag.builder();
            List<Dag.Node<Timeline>> made = new ArrayList<>();
            for (int id = 0; id < nodes; id++) {
                if (id == 0 || random.nextInt(10) == 0) {
                    made.add(b.root().then(Timeline.node(id))); // a few more entry points
                    continue;
                }
                int predecessors = 1 + random.nextInt(Math.min(4, id));
                List<Dag.Node<Timeline>> after = new ArrayList<>();
                for (int p : random.ints(0, id).distinct().limit(predecessors).toArray()) {
                    after.add(made.get(p));
                    edges.add(new int[] {p, id});
                }
                made.add(b.node(Timeline.node(id), after));
            }
            Dag<Timeline> dag = b.build();
            assertEquals(nodes + 1, dag.size());
            for (int run = 0; run < 3; run++) {
                Timeline timeline = new Timeline(nodes);
                dag.run(timeline);
                timeline.assertOrdered(nodes, edges);
            }
        });
    }

    @ForEachWorkerCount
    void independentNodes_runInParallel(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            // Each sibling arrives, then waits for the other: if the DAG ran them one after the
            // other, the first would wait in vain and report false.
            WaitGroup bothStarted = new WaitGroup(2);
            List<Boolean> metTheOther = Collections.synchronizedList(new ArrayList<>());
            Consumer<Void> rendezvous = v -> {
                bothStarted.done();
                metTheOther.add(bothStarted.await(LONG));
            };
            Dag.Builder<Void> b = Dag.builder();
            Dag.Node<Void> start = b.root().then(v -> {});
            start.then(rendezvous);
            start.then(rendezvous);
            b.build().run();
            assertEquals(List.of(true, true), metTheOther);
        });
    }

    @ForEachWorkerCount
    void concurrentRuns_ofOneDag_keepTheirOwnCounters(int workers) {
        int runs = 20;
        List<Data> results = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            results.add(new Data());
        }
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Dag.Builder<Data> b = Dag.builder();
            Dag.Node<Data> a = b.root().then(push("A"));
            Dag.Node<Data> x = a.then(push("X"));
            Dag.Node<Data> y = a.then(push("Y"));
            b.node(push("Z"), x, y);
            Dag<Data> dag = b.build();
            WaitGroup done = new WaitGroup(runs);
            for (Data data : results) {
                Marl.schedule(() -> {
                    dag.run(data); // on a task: waiting for the nodes suspends this fiber
                    done.done();
                });
            }
            assertTrue(done.await(LONG));
        });
        for (Data data : results) {
            assertEquals(4, data.order.size(), data.order.toString());
            assertEquals("A", data.order.get(0));
            assertEquals("Z", data.order.get(3));
        }
    }

    @Test
    void longChain_doesNotOverflowTheStack() {
        int length = 100_000;
        AtomicInteger ran = new AtomicInteger();
        TestSchedulers.withBoundScheduler(1, scheduler -> {
            Dag.Builder<Void> b = Dag.builder();
            Dag.Node<Void> node = b.root();
            for (int i = 0; i < length; i++) {
                int expected = i;
                node = node.then(v -> assertEquals(expected, ran.getAndIncrement()));
            }
            b.build().run();
        });
        assertEquals(length, ran.get());
    }

    // ------------------------------------------------------------------ exceptions

    @ForEachWorkerCount
    void failingNode_skipsItsDescendants_runsTheRest_andRunRethrows(int workers) {
        Data data = new Data();
        IllegalStateException boom = new IllegalStateException("boom");
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Dag.Builder<Data> b = Dag.builder();
            Dag.Node<Data> a = b.root().then(push("A"));
            Dag.Node<Data> failing = a.then(d -> {
                d.order.add("F");
                throw boom;
            });
            Dag.Node<Data> afterFailure = failing.then(push("skipped1"));
            Dag.Node<Data> independent = a.then(push("I"));
            independent.then(push("I2"));
            b.node(push("skipped2"), afterFailure, independent); // one predecessor skipped is enough
            Dag<Data> dag = b.build();
            Throwable thrown = assertThrows(IllegalStateException.class, () -> dag.run(data));
            assertSame(boom, thrown);
            // The DAG is still usable: the next run fails the same way, with fresh counters.
            Data second = new Data();
            assertThrows(IllegalStateException.class, () -> dag.run(second));
            assertEquals(Set.of("A", "F", "I", "I2"), Set.copyOf(second.order));
        });
        assertEquals(Set.of("A", "F", "I", "I2"), Set.copyOf(data.order));
        assertEquals(4, data.order.size());
    }

    @ForEachWorkerCount
    void severalFailures_firstIsThrownOthersSuppressed(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            Dag.Builder<Void> b = Dag.builder();
            Dag.Node<Void> first = b.root().then(v -> {
                throw new IllegalArgumentException("first");
            });
            first.then(v -> {}); // skipped
            b.root().then(v -> {}).then(v -> {}).then(v -> {
                throw new UnsupportedOperationException("second");
            });
            RuntimeException thrown = assertThrows(RuntimeException.class, () -> b.build().run());
            assertEquals(1, thrown.getSuppressed().length);
            Set<String> messages = Set.of(thrown.getMessage(), thrown.getSuppressed()[0].getMessage());
            assertEquals(Set.of("first", "second"), messages);
        });
    }

    @ForEachWorkerCount
    void twoNodesThrowingTheSameInstance_throwIt_once(int workers) {
        TestSchedulers.withBoundScheduler(workers, scheduler -> {
            IllegalStateException shared = new IllegalStateException("shared");
            Dag.Builder<Void> b = Dag.builder();
            b.root().then(v -> {
                throw shared;
            });
            b.root().then(v -> {
                throw shared;
            });
            RuntimeException thrown = assertThrows(RuntimeException.class, () -> b.build().run());
            assertSame(shared, thrown, "not the node's exception: an instance cannot suppress itself");
            assertEquals(0, thrown.getSuppressed().length);
        });
    }

    /**
     * FIFO, but enqueued() refuses the first task offered once armed: a custom policy that throws.
     * Armed by a node's own work, not by a count of enqueues: with several workers a thief re-offers
     * a task it steals to its own policy, which a count would take for the enqueue to refuse.
     */
    static final class RefusingOnce extends ForwardingPolicy {
        static final AtomicBoolean ARMED = new AtomicBoolean();

        @Override
        public void enqueued(Task task) {
            if (ARMED.compareAndSet(true, false)) {
                throw new IllegalStateException("policy refused the task");
            }
            super.enqueued(task);
        }
    }

    @ForEachWorkerCount
    void aNodeWhoseTaskIsRefused_isSkippedWithItsDescendants_andRunRethrows_insteadOfHanging(int workers) {
        // run() counted a node's task before enqueuing it: when the enqueue threw inside another node's
        // task, the count never came back down and run() waited for ever; and the successors after it
        // in that node's loop were dropped without a word.
        TaskErrors errors = new TaskErrors();
        Data data = new Data();
        Scheduler scheduler = new Scheduler(errors.config(workers).setSchedulingPolicy(RefusingOnce::new));
        try {
            if (workers == 0) {
                scheduler.bind(); // close() unbinds
            }
            Throwable thrown = TestSchedulers.runOnFiber(scheduler, () -> {
                Dag.Builder<Data> b = Dag.builder();
                Dag.Node<Data> p = b.root().then(d -> { // a task: the enqueue let through
                    d.order.add("P");
                    RefusingOnce.ARMED.set(true); // the next task offered to a policy is A's
                });
                b.root().then(push("Q")); // inline on the caller
                p.then(push("A")).then(push("A2")); // A's task, enqueued from P's, is refused: A, A2 skipped
                p.then(push("B")); // inline after P, in P's task
                Dag<Data> dag = b.build();
                try {
                    dag.run(data);
                    return null;
                } catch (IllegalStateException refused) {
                    return refused;
                }
            });
            assertTrue(thrown != null && thrown.getMessage().contains("refused"), "run() rethrows the refusal: " + thrown);
            assertEquals(Set.of("P", "Q", "B"), Set.copyOf(data.order));
            assertEquals(3, data.order.size());
        } finally {
            RefusingOnce.ARMED.set(false);
            scheduler.close(java.time.Duration.ofSeconds(1)); // cancels a run() left waiting instead of hanging
        }
        errors.assertNone();
    }

    // ------------------------------------------------------------------ misuse

    @Test
    void run_withNoSchedulerBound_saysToBind() {
        Dag.Builder<Void> b = Dag.builder();
        AtomicInteger ran = new AtomicInteger();
        b.root().then(v -> ran.incrementAndGet());
        Dag<Void> dag = b.build();
        IllegalStateException e = assertThrows(IllegalStateException.class, dag::run);
        assertTrue(e.getMessage().contains("bind()"), e.getMessage());
        assertEquals(0, ran.get());
    }

    @Test
    void nodeOfAnotherBuilder_isRejected() {
        Dag.Builder<Void> mine = Dag.builder();
        Dag.Builder<Void> other = Dag.builder();
        Dag.Node<Void> foreign = other.root().then(v -> {});
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> mine.node(v -> {}, foreign));
        assertTrue(e.getMessage().contains("another Dag.Builder"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> mine.node(v -> {}, mine.root(), other.root()));
        assertEquals(1, mine.build().size(), "a rejected node must not be added");
    }

    @Test
    void nodeWithNoPredecessor_isRejected() {
        Dag.Builder<Void> b = Dag.builder();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.node(v -> {}));
        assertTrue(e.getMessage().contains("root()"), e.getMessage());
        assertThrows(NullPointerException.class, () -> b.node(null, b.root()));
        assertThrows(NullPointerException.class, () -> b.root().then(null));
    }

    @Test
    void builder_cannotBeUsedAfterBuild() {
        Dag.Builder<Void> b = Dag.builder();
        Dag.Node<Void> a = b.root().then(v -> {});
        b.build();
        assertThrows(IllegalStateException.class, b::build);
        assertThrows(IllegalStateException.class, b::root);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> a.then(v -> {}));
        assertTrue(e.getMessage().contains("Dag.builder()"), e.getMessage());
    }

    @Test
    void emptyDag_runsAndReturns() {
        Dag<Void> dag = Dag.<Void>builder().build();
        assertEquals(1, dag.size());
        TestSchedulers.withBoundScheduler(0, scheduler -> dag.run());
    }
}
