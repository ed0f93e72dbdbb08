package org.marl4j;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Consumer;

/**
 * Dag is a directed acyclic graph of work, declared ahead of time with a {@link Builder} and run as
 * tasks on the bound scheduler, each node after all of its predecessors: marl's {@code marl::DAG}.
 *
 * <pre>{@code
 * Dag.Builder<Frame> builder = Dag.builder();
 * Dag.Node<Frame> decode = builder.root().then(Frame::decode);
 * Dag.Node<Frame> audio = decode.then(Frame::mixAudio);        // audio and video run in parallel
 * Dag.Node<Frame> video = decode.then(Frame::scaleVideo);
 * builder.node(Frame::present, audio, video);                   // after both
 * Dag<Frame> dag = builder.build();
 * for (Frame frame : frames) {
 *     dag.run(frame);                                           // returns when every node has run
 * }
 * }</pre>
 *
 * <p>Guarantees, as marl's: a node's work starts only after the work of every node it was built
 * after has finished (and everything those nodes wrote is visible to it); nodes with no path
 * between them may run in parallel; {@link #run} returns when every node has finished. A DAG is
 * immutable and may be run repeatedly, and concurrently, with different data: each run has its own
 * counters.
 *
 * <p>How it runs: when a node finishes, each successor's count of unfinished predecessors is
 * decremented; the successors that reach zero are ready. All ready successors but the last are
 * enqueued as tasks, and the last runs next on the same fiber, so a chain costs no scheduling.
 *
 * <p>Failure: if a node's work throws (or the scheduler refuses the task that would run it, as a
 * custom scheduling policy may), the nodes that depend on it (directly or through other nodes) are
 * skipped for that run, and the nodes that do not still run. Once all have finished or
 * been skipped, {@link #run} rethrows the first exception thrown, with any later ones attached as
 * suppressed exceptions.
 *
 * @param <T> the data each run passes to every node's work
 */
public final class Dag<T> {
    /** Index of the root node, which has no work and no predecessors. */
    private static final int ROOT = 0;

    private final List<Consumer<? super T>> work;
    private final int[][] successors;
    private final int[] predecessorCounts;

    private Dag(List<Consumer<? super T>> work, int[][] successors, int[] predecessorCounts) {
        this.work = work;
        this.successors = successors;
        this.predecessorCounts = predecessorCounts;
    }

    /**
     * builder() returns a new builder holding only the root node.
     *
     * @param <T> the type of the data every node's work receives
     * @return a builder
     */
    public static <T> Builder<T> builder() {
        return new Builder<>();
    }

    /**
     * size() returns the number of nodes, the root included.
     *
     * @return the node count
     */
    public int size() {
        return work.size();
    }

    /** run() is {@link #run(Object) run(null)}, for DAGs whose work takes no data (marl's {@code DAG<void>}). */
    public void run() {
        run(null);
    }

    /**
     * run(data) runs every node's work with {@code data}, starting with the successors of the root,
     * on the scheduler bound to the calling thread, and returns when all have finished. On a fiber,
     * waiting suspends only the fiber.
     *
     * @param data passed to every node's work
     * @throws IllegalStateException if no scheduler is bound to the calling thread
     */
    public void run(T data) {
        Scheduler scheduler = Scheduler.get();
        if (scheduler == null) {
            throw new IllegalStateException("Dag.run() needs a scheduler bound to thread "
                    + Thread.currentThread().getName() + ": call scheduler.bind() first, or run it from a task");
        }
        Run run = new Run(scheduler, data);
        run.invoke(ROOT);
        run.finished.await();
        Throwable first = run.failures.poll();
        if (first != null) {
            for (Throwable later; (later = run.failures.poll()) != null; ) {
                if (later != first) { // two nodes may throw the same instance; it cannot suppress itself
                    first.addSuppressed(later);
                }
            }
            throw Dag.<RuntimeException>sneaky(first);
        }
    }

    /** Rethrows t as it is; node work is a Consumer, so only unchecked (or sneaky) exceptions come here. */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
        throw (E) t;
    }

    @Override
    public String toString() {
        return "Dag[" + size() + " nodes]";
    }

    /** One run's state: its data, its counters, the tasks in flight and what was thrown. */
    private final class Run {
        private final Scheduler scheduler;
        private final T data;
        /** Per node, predecessors not yet finished. */
        private final AtomicIntegerArray remaining;
        /**
         * Per node, whether a predecessor failed or was skipped. Plain writes: each is made before the
         * writer's decrement of {@code remaining}, and read only by whoever decrements it to zero, so
         * the atomic decrements order the writes before the read.
         */
        private final boolean[] skip;
        private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        /** Counts the tasks of this run still in flight. */
        private final WaitGroup finished = new WaitGroup();

        Run(Scheduler scheduler, T data) {
            this.scheduler = scheduler;
            this.data = data;
            this.remaining = new AtomicIntegerArray(predecessorCounts);
            this.skip = new boolean[predecessorCounts.length];
        }

        /** invoke(node) runs node, then each successor it made ready: the last inline, the rest as tasks. */
        void invoke(int node) {
            for (int next = node; next >= 0; ) {
                int current = next;
                next = -1;
                boolean failed = runWork(current);
                for (int successor : successors[current]) {
                    if (failed) {
                        skip[successor] = true;
                    }
                    if (remaining.decrementAndGet(successor) != 0) {
                        continue;
                    }
                    if (next >= 0) {
                        spawn(next);
                    }
                    next = successor;
                }
            }
        }

        /** runWork(node) runs the node's work unless it is to be skipped; returns whether it failed or was skipped. */
        private boolean runWork(int node) {
            if (skip[node]) {
                return true;
            }
            try {
                work.get(node).accept(data);
                return false;
            } catch (Throwable t) {
                failures.add(t);
                return true;
            }
        }

        /**
         * spawn(node) runs node as a task of its own. If the scheduler refuses the task (a custom
         * policy's enqueued() threw), the refusal counts as the node's failure: the node and its
         * descendants are skipped, here and now, and run() rethrows it. Throwing instead lost the
         * successors still to be visited by the caller's loop, and the count taken for the task,
         * so run() waited for ever.
         */
        private void spawn(int node) {
            finished.add(1);
            try {
                scheduler.enqueue(new Task(() -> {
                    try {
                        invoke(node);
                    } finally {
                        finished.done();
                    }
                }));
            } catch (RuntimeException | Error refused) {
                finished.done();
                failures.add(refused);
                skip[node] = true; // this thread brought its count to zero: no one else reads or writes it now
                invoke(node);      // skips it and passes the skip on, so its successors are counted down
            }
        }
    }

    /**
     * Node is a handle to a node of a DAG being built, returned by {@link Builder}; use it to add
     * nodes that run after this one.
     *
     * @param <T> the type of the data the node's work receives
     */
    public static final class Node<T> {
        private final Builder<T> builder;
        private final int index;

        private Node(Builder<T> builder, int index) {
            this.builder = builder;
            this.index = index;
        }

        /**
         * then(work) adds and returns a new node whose work runs after this node's has finished.
         *
         * @param work the new node's work, given the data passed to {@link Dag#run}
         * @return the new node
         */
        public Node<T> then(Consumer<? super T> work) {
            return builder.node(work, List.of(this));
        }

        @Override
        public String toString() {
            return index == ROOT ? "Dag.Node[root]" : "Dag.Node[" + index + "]";
        }
    }

    /**
     * Builder declares a {@link Dag}'s nodes and edges. Every node it makes runs after at least one
     * other, so the graph has no cycle and every node is reachable from the root. Not thread-safe:
     * build a DAG on one thread, then run it from any number.
     *
     * <pre>{@code
     * Dag.Builder<Data> b = Dag.builder();
     * Dag.Node<Data> a = b.root().then(d -> d.load());
     * Dag.Node<Data> x = a.then(d -> d.left()), y = a.then(d -> d.right());
     * b.node(d -> d.merge(), x, y);
     * Dag<Data> dag = b.build();
     * }</pre>
     *
     * @param <T> the type of the data every node's work receives
     */
    public static final class Builder<T> {
        private final List<Consumer<? super T>> work = new ArrayList<>();
        private final List<List<Integer>> successors = new ArrayList<>();
        private final List<Integer> predecessorCounts = new ArrayList<>();
        private boolean built;

        private Builder() {
            work.add(data -> {}); // the root has no work
            successors.add(new ArrayList<>());
            predecessorCounts.add(0);
        }

        /**
         * root() returns the root node: it has no work and runs first; attach the first nodes with {@code root().then(...)}.
         *
         * @return the root node
         */
        public Node<T> root() {
            checkNotBuilt();
            return new Node<>(this, ROOT);
        }

        /**
         * node(work, after) adds and returns a new node whose work runs after the work of every node
         * in {@code after} has finished (marl's {@code node(work, {after...})}).
         *
         * @param work the new node's work, given the data passed to {@link Dag#run}
         * @param after the nodes that must finish first; at least one
         * @return the new node
         * @throws IllegalArgumentException if {@code after} is empty (a node must come after
         *     another, start with {@code root()}), or holds a node of another builder
         */
        @SafeVarargs
        @SuppressWarnings("varargs") // the array is only read (copied into a list), never written or kept
        public final Node<T> node(Consumer<? super T> work, Node<T>... after) {
            Objects.requireNonNull(after, "after must not be null");
            return node(work, List.of(after));
        }

        /**
         * node(work, after) is {@link #node(Consumer, Node[])} over a collection of predecessors.
         *
         * @param work the new node's work, given the data passed to {@link Dag#run}
         * @param after the nodes that must finish first; at least one
         * @return the new node
         */
        public Node<T> node(Consumer<? super T> work, List<Node<T>> after) {
            checkNotBuilt();
            Objects.requireNonNull(work, "work must not be null");
            Objects.requireNonNull(after, "after must not be null");
            if (after.isEmpty()) {
                throw new IllegalArgumentException("a DAG node must run after at least one node: "
                        + "pass builder.root() to run it first, or use root().then(work)");
            }
            for (Node<T> predecessor : after) {
                Objects.requireNonNull(predecessor, "after must not contain null");
                if (predecessor.builder != this) {
                    throw new IllegalArgumentException(predecessor + " belongs to another Dag.Builder: "
                            + "a DAG can only link nodes made by its own builder");
                }
            }
            int index = this.work.size();
            this.work.add(work);
            successors.add(new ArrayList<>());
            predecessorCounts.add(after.size());
            for (Node<T> predecessor : after) {
                successors.get(predecessor.index).add(index);
            }
            return new Node<>(this, index);
        }

        /**
         * build() returns the DAG. The builder cannot be used afterwards.
         *
         * @return the finished DAG
         * @throws IllegalStateException if build() was already called
         */
        public Dag<T> build() {
            checkNotBuilt();
            built = true;
            int[][] edges = new int[successors.size()][];
            for (int i = 0; i < edges.length; i++) {
                edges[i] = successors.get(i).stream().mapToInt(Integer::intValue).toArray();
            }
            int[] counts = predecessorCounts.stream().mapToInt(Integer::intValue).toArray();
            return new Dag<T>(List.copyOf(work), edges, counts);
        }

        private void checkNotBuilt() {
            if (built) {
                throw new IllegalStateException("this Dag.Builder has already built its DAG: start a new one with Dag.builder()");
            }
        }
    }
}
