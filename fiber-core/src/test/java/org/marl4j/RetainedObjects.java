package org.marl4j;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.ref.Reference;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntConsumer;
import java.util.function.IntSupplier;

/**
 * RetainedObjects counts the objects a long-lived object keeps reachable, for the leak tests of
 * waits that end without their condition (a timeout, a cancellation, a bounded close): they repeat
 * such a wait thousands of times on one waitable and check that the count stays bounded.
 *
 * <p>The count walks references (fields, array elements), so it needs no garbage collection and
 * cannot flake on when the collector runs or on what other tests left in the heap: a node, a
 * callback or a fiber a wait left behind is still reachable, and counted, however much memory is
 * free. It stops at threads, classes and class loaders (counted, not entered), and, for a
 * waitable, at the scheduler machinery ({@link Scheduler}, its workers and fibers): a waitable that
 * kept a fiber shows as that fiber, not as the whole scheduler behind it. The JDK's own classes
 * are not open to reflection here: their collections, maps and atomic references are walked
 * through their public views, any other JDK object counts as one object (a lock's internal queue
 * is not seen). Count only while nothing changes the graph (between rounds, with every waiter
 * done): a collection changing under the walk is read as far as it can be.
 */
public final class RetainedObjects {
    /** A walk that reaches more than this many objects has found a leak, or a boundary is missing. */
    private static final int LIMIT = 10_000_000;
    private static final ClassValue<List<Field>> REFERENCE_FIELDS = new ClassValue<>() {
        @Override
        protected List<Field> computeValue(Class<?> type) {
            List<Field> fields = new ArrayList<>();
            for (Class<?> c = type; c != null; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (!Modifier.isStatic(f.getModifiers()) && !f.getType().isPrimitive() && f.trySetAccessible()) {
                        fields.add(f);
                    }
                }
            }
            return List.copyOf(fields);
        }
    };

    private RetainedObjects() {}

    /**
     * count(root) is how many objects {@code root} keeps reachable, itself included, not entering
     * schedulers, workers, fibers, threads, classes and class loaders (each of those reached counts
     * one).
     *
     * @param root the waitable (or a list of the objects that together make it)
     * @return the number of objects reached
     */
    public static int count(Object root) {
        return walk(root, true);
    }

    /**
     * countInScheduler(scheduler) is how many objects the scheduler keeps reachable, entering its
     * workers and queues but not its fibers (each counts one: a worker keeps up to a fixed number of
     * idle ones for reuse), threads, classes and class loaders. It grows with what a worker keeps
     * per wait (deadline entries, queued wakes), which a wait that ended must not leave behind.
     * Count it only with every task done: the workers' own collections are read without their lock.
     *
     * @param scheduler the scheduler
     * @return the number of objects reached
     */
    public static int countInScheduler(Scheduler scheduler) {
        return walk(scheduler, false);
    }

    /**
     * A quantity that must stay bounded over the rounds: its value after the warm-up rounds and
     * after all of them may differ by at most {@code slack}.
     *
     * @param name what is measured, for the failure message
     * @param objects reads the quantity (an object count, a queue length)
     * @param slack how much it may grow without counting as a leak
     */
    public record Gauge(String name, IntSupplier objects, int slack) {
        /**
         * of(name, root) is the {@link #count(Object)} of root, which may grow by a few objects
         * (structures a waitable makes lazily, at its first wait of a kind).
         *
         * @param name what root is
         * @param root the waitable
         * @return the gauge
         */
        public static Gauge of(String name, Object root) {
            return new Gauge(name + " (objects it keeps reachable)", () -> count(root), 16);
        }
    }

    /**
     * assertBoundedOverRounds(rounds, round, gauges) runs {@code round} (given its index) one tenth
     * of {@code rounds} times as a warm-up (lazily made parts, pooled fibers), reads every gauge,
     * runs the other rounds, reads every gauge again, and fails if one grew by more than its slack:
     * something each round left behind. A leak of one object per wait shows as thousands.
     *
     * @param rounds how many rounds in all, at least 10
     * @param round one round: waits that end without their condition, all ended when it returns
     * @param gauges what must stay bounded
     */
    public static void assertBoundedOverRounds(int rounds, IntConsumer round, Gauge... gauges) {
        if (rounds < 10) {
            throw new IllegalArgumentException("at least 10 rounds, one tenth of them as a warm-up; was " + rounds);
        }
        int warmUp = rounds / 10;
        for (int i = 0; i < warmUp; i++) {
            round.accept(i);
        }
        int[] before = new int[gauges.length];
        for (int g = 0; g < gauges.length; g++) {
            before[g] = gauges[g].objects().getAsInt();
        }
        for (int i = warmUp; i < rounds; i++) {
            round.accept(i);
        }
        StringBuilder grown = new StringBuilder();
        for (int g = 0; g < gauges.length; g++) {
            int after = gauges[g].objects().getAsInt();
            if (after - before[g] > gauges[g].slack()) {
                grown.append(String.format("%n  %s: %,d after %,d rounds, %,d after %,d (+%,d, allowed +%,d)",
                        gauges[g].name(), before[g], warmUp, after, rounds, after - before[g], gauges[g].slack()));
            }
        }
        if (!grown.isEmpty()) {
            fail("waits that ended without their condition left something behind:" + grown);
        }
    }

    private static int walk(Object root, boolean stopAtScheduler) {
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        ArrayDeque<Object> pending = new ArrayDeque<>();
        pending.add(root);
        seen.add(root);
        while (!pending.isEmpty()) {
            Object o = pending.poll();
            if (seen.size() > LIMIT) {
                throw new AssertionError("more than " + LIMIT + " objects reachable from " + root);
            }
            if (isBoundary(o, stopAtScheduler)) {
                continue;
            }
            for (Object next : referencesOf(o)) {
                if (next != null && seen.add(next)) {
                    pending.add(next);
                }
            }
        }
        return seen.size();
    }

    private static boolean isBoundary(Object o, boolean stopAtScheduler) {
        return o instanceof Thread || o instanceof Class<?> || o instanceof ClassLoader || o instanceof Fiber
                || (stopAtScheduler && (o instanceof Scheduler || o instanceof Worker));
    }

    /** What o refers to: its reachable fields, or for a JDK object closed to reflection, its public view. */
    private static List<Object> referencesOf(Object o) {
        List<Object> refs = new ArrayList<>();
        Class<?> type = o.getClass();
        if (type.isArray()) {
            if (!type.getComponentType().isPrimitive()) {
                int n = Array.getLength(o);
                for (int i = 0; i < n; i++) {
                    refs.add(Array.get(o, i));
                }
            }
            return refs;
        }
        for (Field f : REFERENCE_FIELDS.get(type)) {
            try {
                refs.add(f.get(o));
            } catch (IllegalAccessException e) {
                throw new AssertionError("trySetAccessible() allowed " + f + " but get() refused it", e);
            }
        }
        if (isJdk(type)) {
            addPublicView(o, refs);
        }
        return refs;
    }

    private static boolean isJdk(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getModule().isNamed() && c.getModule().getName().startsWith("java.")
                    && !c.getModule().isOpen(c.getPackageName(), RetainedObjects.class.getModule())) {
                return true;
            }
        }
        return false;
    }

    /**
     * addPublicView(o, refs) adds what a closed JDK object holds as far as its public API shows it;
     * a weak, soft or phantom reference does not keep its referent.
     */
    private static void addPublicView(Object o, List<Object> refs) {
        try {
            switch (o) {
                case Reference<?> weak -> { }
                case Collection<?> c -> refs.addAll(Arrays.asList(c.toArray()));
                case Map<?, ?> m -> {
                    for (Map.Entry<?, ?> e : List.copyOf(m.entrySet())) {
                        refs.add(e.getKey());
                        refs.add(e.getValue());
                    }
                }
                case AtomicReference<?> a -> refs.add(a.get());
                case AtomicReferenceArray<?> a -> {
                    for (int i = 0; i < a.length(); i++) {
                        refs.add(a.get(i));
                    }
                }
                default -> { }
            }
        } catch (RuntimeException changedUnderTheWalk) {
            // read what could be read: see the class comment
        }
    }
}
