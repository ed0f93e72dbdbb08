package org.marl4j.futures;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * The waits on one incomplete stage behind a single {@code whenComplete} callback: what lets a
 * timed-out {@link Futures#await(CompletionStage, java.time.Duration)}, the losers of
 * {@link Futures#awaitAny}, and an untimed wait cancelled before its stage completed
 * ({@link FiberStageWait}) leave nothing behind on a stage.
 *
 * <p>Why: a {@link CompletionStage} cannot unregister a callback, so one callback per wait would
 * make a long-lived stage (a shutdown signal, a cache entry) awaited with timeouts in a loop grow
 * by one callback, and everything it references, per call, for as long as the stage lives. Here
 * the first wait on a stage registers this object as the stage's only callback from marl4j and
 * enters it in a process-wide registry; later waits find it there and add themselves to its
 * waiter set, and a wait that gives up removes itself. Whatever the number of waits, the stage
 * carries one callback, and the registry one entry.
 *
 * <p>Registry: keyed by the stage's identity, held weakly, so a stage nobody references any more
 * is collected with its callback and its entry is dropped ({@link #expungeCollected}). The stage
 * references its StageWaiters (through the callback), never the other way round. The entry is
 * removed when the stage completes: a later wait on it registers anew and is answered at once.
 *
 * <p>Concurrency: {@code waiters}, {@code completed}, {@code value} and {@code failure} are guarded
 * by this object's monitor, held only for a few field writes (never while a waiter runs or
 * suspends). A waiter added after completion is delivered to directly, by {@link #add}; one
 * removed after the completion took its snapshot is delivered to anyway, harmlessly: each waiter
 * accepts only its first outcome.
 */
final class StageWaiters<T> implements BiConsumer<T, Throwable> {
    private static final ConcurrentHashMap<Object, StageWaiters<?>> REGISTRY = new ConcurrentHashMap<>();
    private static final ReferenceQueue<Object> COLLECTED = new ReferenceQueue<>();

    private final Key key;
    // Guarded by this.
    @GuardedBy("this")
    private Set<BiConsumer<? super T, ? super Throwable>> waiters = new HashSet<>();
    @GuardedBy("this")
    private boolean completed;
    @GuardedBy("this")
    private T value;
    @GuardedBy("this")
    private Throwable failure;

    private StageWaiters(Key key) {
        this.key = key;
    }

    /**
     * existing(stage) returns the waiter set of {@code stage} if it has one (a timed wait on it is
     * pending, or a wait on it ended without its completion: see {@link FiberStageWait}), else
     * null, registering nothing. Cheap when no stage has a set, as in a program that never times
     * out or cancels a wait: one read of the registry's size.
     */
    @SuppressWarnings("unchecked")
    static <T> StageWaiters<T> existing(CompletionStage<T> stage) {
        if (REGISTRY.isEmpty()) {
            return null;
        }
        return (StageWaiters<T>) REGISTRY.get(new Probe(stage));
    }

    /**
     * of(stage) returns the waiter set of {@code stage}, registering its one callback on the stage
     * if this is the first wait on it since it was last seen (or completed).
     */
    @SuppressWarnings("unchecked")
    static <T> StageWaiters<T> of(CompletionStage<T> stage) {
        expungeCollected();
        StageWaiters<?> existing = REGISTRY.get(new Probe(stage));
        if (existing != null) {
            return (StageWaiters<T>) existing;
        }
        StageWaiters<T> created = new StageWaiters<>(new Key(stage));
        existing = REGISTRY.putIfAbsent(created.key, created);
        if (existing != null) {
            return (StageWaiters<T>) existing;
        }
        try {
            // Outside any map operation: an already-complete stage calls accept() right here,
            // which removes the entry just added.
            stage.whenComplete(created);
        } catch (RuntimeException | Error e) {
            REGISTRY.remove(created.key, created);
            throw e;
        }
        return created;
    }

    /** add(waiter) makes waiter receive the stage's outcome: later, or now if it is already known. */
    void add(BiConsumer<? super T, ? super Throwable> waiter) {
        T v;
        Throwable f;
        synchronized (this) {
            if (!completed) {
                waiters.add(waiter);
                return;
            }
            v = value;
            f = failure;
        }
        waiter.accept(v, f);
    }

    /** remove(waiter) forgets a waiter that gave up (or was answered by another stage). */
    synchronized void remove(Object waiter) {
        if (!completed) {
            waiters.remove(waiter);
        }
    }

    /** size() is the number of waiters still registered; for tests. */
    synchronized int size() {
        return completed ? 0 : waiters.size();
    }

    /** The stage's one callback: records the outcome, drops the registry entry, answers every waiter. */
    @Override
    public void accept(T v, Throwable f) {
        List<BiConsumer<? super T, ? super Throwable>> snapshot;
        synchronized (this) {
            completed = true;
            value = v;
            failure = f;
            snapshot = new ArrayList<>(waiters);
            waiters = Set.of();
        }
        REGISTRY.remove(key, this);
        for (BiConsumer<? super T, ? super Throwable> waiter : snapshot) {
            waiter.accept(v, f);
        }
    }

    /** registered() is the number of stages with an entry in the registry; for tests. */
    static int registered() {
        expungeCollected();
        return REGISTRY.size();
    }

    /** Drops the entries of stages that were garbage collected. */
    private static void expungeCollected() {
        for (Object collected; (collected = COLLECTED.poll()) != null; ) {
            REGISTRY.remove(collected); // a cleared Key equals only itself
        }
    }

    /** A registry key: the stage, weakly, compared by identity. */
    private static final class Key extends WeakReference<Object> {
        private final int hash;

        Key(Object stage) {
            super(stage, COLLECTED);
            hash = System.identityHashCode(stage);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            if (o == this) {
                return true;
            }
            Object stage = get();
            return stage != null && o instanceof Key other && other.get() == stage;
        }
    }

    /** A lookup key that allocates no reference: equal to the Key of the same stage. */
    private record Probe(Object stage) {
        @Override
        public int hashCode() {
            return System.identityHashCode(stage);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key key && key.get() == stage;
        }
    }
}
