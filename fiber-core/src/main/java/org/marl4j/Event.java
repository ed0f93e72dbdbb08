package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.marl4j.WaitQueue.Waiter;

/**
 * Event is a synchronization primitive used to block until a signal is raised: marl's
 * {@code marl::Event}. On a fiber, waiting suspends only the fiber; on a plain thread it blocks.
 *
 * <pre>{@code
 * Event ready = new Event(Event.Mode.MANUAL);
 * for (int i = 0; i < 10; i++) {
 *     Marl.schedule(() -> { ready.await(); work(); });
 * }
 * ready.signal();   // releases all ten
 * }</pre>
 *
 * <p>In {@link Mode#AUTO} mode a signal releases one waiter and is consumed by it (or by the next
 * {@link #await} or {@link #test}); in {@link Mode#MANUAL} mode it releases every waiter and stays
 * raised until {@link #clear()}. Signalling an event that is already signalled does nothing.
 */
public final class Event {
    /** How a signal is consumed. */
    public enum Mode {
        /** AUTO: a signal wakes one waiter and is cleared when that waiter returns. */
        AUTO,
        /** MANUAL: a signal wakes every waiter and stays raised until {@link Event#clear()}. */
        MANUAL
    }

    private final Mode mode;
    private final ReentrantLock lock = new ReentrantLock();
    /**
     * Written only with lock held. Volatile so that a raised MANUAL signal can be seen without the
     * lock ({@link #raisedForGood()}): a crowd of fibers released by one signal would otherwise
     * queue on lock one by one to read it, parking their workers' threads on the lock.
     */
    private volatile boolean signalled;
    @GuardedBy("lock")
    private final WaitQueue waiters = new WaitQueue();
    /** Callbacks registered with {@link #onSignal}; guarded by lock. */
    @SuppressWarnings("GuardedBy") // the queue calls pinWhileCallbacksWait back with lock held
    private final CallbackQueue callbacks = new CallbackQueue(this::pinWhileCallbacksWait);
    /**
     * Events made by {@link #any} that this event also signals; guarded by lock. Held weakly: an
     * any-event nobody references can never be awaited, so a long-lived source must not keep it
     * (and grow by one entry per {@code any} call for good). A fiber waiting on an any-event holds
     * it on its own stack, and its worker holds the suspended fiber, so a waited-on event stays.
     * Cleared entries are dropped by {@link #signal()} and by {@link #addDependent} once the list
     * has doubled since its last sweep, so the list stays within twice the live dependents.
     */
    @GuardedBy("lock")
    private final List<Dependent> dependents = new ArrayList<>(0);
    /**
     * For an event made by {@link #any}: its entries in its sources' {@code dependents}, through
     * which it pins itself while onSignal callbacks wait on it; null for any other event. Written
     * before any source can see the event, then only read.
     */
    private Dependent[] asDependent;
    /** Size at which addDependent sweeps cleared entries next; guarded by lock. */
    @GuardedBy("lock")
    private int sweepAt = MIN_SWEEP;
    /** Smallest dependents list that addDependent sweeps: below it a sweep costs more than it saves. */
    private static final int MIN_SWEEP = 16;
    private static final Event[] NO_EVENTS = new Event[0];

    /** Event() creates an unsignalled AUTO event. */
    public Event() {
        this(Mode.AUTO, false);
    }

    /**
     * Event(mode) creates an unsignalled event of the given mode.
     *
     * @param mode AUTO or MANUAL
     */
    public Event(Mode mode) {
        this(mode, false);
    }

    /**
     * Event(mode, initiallySignalled) creates an event of the given mode and initial state.
     *
     * @param mode AUTO or MANUAL
     * @param initiallySignalled whether the event starts signalled
     */
    public Event(Mode mode, boolean initiallySignalled) {
        this.mode = Objects.requireNonNull(mode, "mode must not be null");
        this.signalled = initiallySignalled;
    }

    /**
     * any(mode, events) returns a new event that is signalled whenever any of {@code events} is
     * signalled (and at once if one already is). The sources hold the new event only weakly: once
     * it is no longer referenced it costs them nothing, so calling {@code any} in a loop on a
     * long-lived event does not grow it; while {@link #onSignal} callbacks wait on it, its sources
     * hold it strongly, so the callbacks run even if nothing else references it (an any-event of
     * any-events is kept only by its direct sources: keep a reference to the outer ones, or
     * register on the inner one). With no sources, nothing ever signals the new event but
     * its own {@link #signal()}, as {@code CompletableFuture.anyOf()} with no futures never
     * completes.
     *
     * @param mode the new event's mode
     * @param events the source events
     * @return the new event
     * @throws NullPointerException if mode, the array or one of its events is null (the message
     *     names its index)
     */
    public static Event any(Mode mode, Event... events) {
        Objects.requireNonNull(events, "events must not be null");
        for (int i = 0; i < events.length; i++) {
            if (events[i] == null) {
                throw new NullPointerException("events[" + i + "] is null: every source of Event.any must be an event");
            }
        }
        return any(mode, Arrays.asList(events));
    }

    /**
     * any(mode, events) is {@link #any(Mode, Event...)} over an iterable.
     *
     * @param mode the new event's mode
     * @param events the source events
     * @return the new event
     * @throws NullPointerException if mode, the iterable or one of its events is null (the message
     *     names its index)
     */
    public static Event any(Mode mode, Iterable<Event> events) {
        Objects.requireNonNull(mode, "mode must not be null");
        Objects.requireNonNull(events, "events must not be null");
        List<Event> sources = new ArrayList<>();
        for (Event event : events) {
            if (event == null) {
                throw new NullPointerException("events contains null at index " + sources.size()
                        + ": every source of Event.any must be an event");
            }
            sources.add(event);
        }
        Event any = new Event(mode, false);
        any.asDependent = new Dependent[sources.size()];
        for (int i = 0; i < sources.size(); i++) {
            any.asDependent[i] = new Dependent(any);
        }
        int index = 0;
        for (Event event : sources) {
            event.lock.lock();
            try {
                if (event.signalled) {
                    any.signal();
                }
                event.addDependent(any.asDependent[index++]);
            } finally {
                event.lock.unlock();
            }
        }
        return any;
    }

    /** Called with lock held: registers an any-event's entry, sweeping cleared ones when the list has doubled. */
    @GuardedBy("lock")
    private void addDependent(Dependent entry) {
        if (dependents.size() >= sweepAt) {
            dependents.removeIf(ref -> ref.get() == null);
            sweepAt = Math.max(MIN_SWEEP, 2 * dependents.size());
        }
        dependents.add(entry);
    }

    /**
     * A source's weak entry for an event made by {@link #any}, which the event turns strong while
     * onSignal callbacks wait on it: a callback's registration holds the event's queue, not the
     * event, so an any-event nobody else references would be collected with its callbacks, which
     * would then never run. While it is pinned so, only its sources (and a source's any-events,
     * once pinned themselves) keep it: it goes with them.
     */
    private static final class Dependent extends WeakReference<Event> {
        /** The any-event itself while callbacks wait on it, else null; written under that event's lock, read only by the GC. */
        @SuppressWarnings({"unused", "FieldCanBeLocal"})
        private Event pinned;

        Dependent(Event any) {
            super(any);
        }
    }

    /** Called with lock held, whenever the callback queue becomes empty or non-empty: see {@link Dependent}. */
    @GuardedBy("lock")
    private void pinWhileCallbacksWait() {
        if (asDependent != null) {
            Event pin = callbacks.isEmpty() ? null : this;
            for (Dependent entry : asDependent) {
                entry.pinned = pin;
            }
        }
    }

    /** waiterCount() is how many waiters a signal could pick now; for tests. */
    int waiterCount() {
        lock.lock();
        try {
            return waiters.size();
        } finally {
            lock.unlock();
        }
    }

    /** dependentCount() is how many any-events this event holds (some perhaps already collected); for tests. */
    int dependentCount() {
        lock.lock();
        try {
            return dependents.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * mode() returns this event's mode.
     *
     * @return AUTO or MANUAL
     */
    public Mode mode() {
        return mode;
    }

    /** signal() raises the signal, waking one waiter (AUTO) or all of them (MANUAL). */
    public void signal() {
        if (raisedForGood()) {
            return; // already raised: nothing to do, as under the lock
        }
        Waiter wake;
        Registration run;
        Event[] signalNext;
        lock.lock();
        try {
            if (signalled) {
                return;
            }
            if (mode == Mode.AUTO) {
                wake = waiters.poll(); // unlinked: a chain of one for wakeChain
                // A woken waiter consumes the signal when it runs; a callback consumes it here, so
                // then it is never raised: not even for a moment, since isSignalled() reads it
                // without the lock (a signal() that saw it raised for that moment would be lost).
                run = wake == null ? callbacks.poll() : null;
                signalled = run == null;
            } else {
                signalled = true;
                wake = waiters.pollAll();
                run = callbacks.pollAll();
            }
            signalNext = liveDependents();
        } finally {
            lock.unlock();
        }
        // The any-events are signalled after this lock is released, not under it (as marl does):
        // their onSignal callbacks run inside their signal(), and a callback run under this lock
        // shut out every other thread that touched this event; two callbacks signalling each
        // other's source from two threads deadlocked. No signal is lost: any() registers under
        // this lock and signals at once if it finds the event signalled.
        Throwable failure = null;
        try {
            WaitQueue.wakeChain(wake);
        } catch (RuntimeException | Error e) { // a scheduling policy's: the callbacks and any-events still go on
            failure = e;
        } finally {
            CallbackQueue.runChain(run);
        }
        for (Event dependent : signalNext) {
            try {
                dependent.signal();
            } catch (RuntimeException | Error e) { // a scheduling policy's: the other any-events are still signalled
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure instanceof Error e) {
            throw e;
        } else if (failure != null) {
            throw (RuntimeException) failure;
        }
    }

    /** Called with lock held: the any-events still referenced, compacting out the collected ones. */
    @GuardedBy("lock")
    private Event[] liveDependents() {
        if (dependents.isEmpty()) {
            return NO_EVENTS;
        }
        List<Event> live = new ArrayList<>(dependents.size());
        int kept = 0;
        for (int i = 0; i < dependents.size(); i++) {
            Dependent ref = dependents.get(i);
            Event dependent = ref.get();
            if (dependent != null) {
                live.add(dependent);
                dependents.set(kept++, ref);
            }
        }
        dependents.subList(kept, dependents.size()).clear();
        return live.toArray(NO_EVENTS);
    }

    /**
     * onSignal(callback) registers a one-shot callback that runs when this event is signalled, the
     * callback form of {@link #await()} for code that must not hold a fiber or a thread while it
     * waits (a coroutine, a reactive pipeline). Like a waiter, the callback consumes the signal of an
     * {@link Mode#AUTO} event: one signal releases one callback (or one waiting fiber or thread:
     * those come first, the callbacks in registration order); a {@link Mode#MANUAL} signal releases
     * them all. If the event is already signalled, the signal is consumed as {@link #test()} does and
     * the callback runs at once, on the calling thread, before this returns.
     *
     * <p>Otherwise the callback runs on the thread that calls {@link #signal()}, after the event's
     * lock is released, so it must be short and must not block: hand longer work to a scheduler. A
     * callback that throws is reported to the uncaught-exception handler (the bound scheduler's,
     * else the thread's); the signal stays delivered. {@link Registration#cancel()} withdraws the
     * callback and unlinks it at once: a withdrawn callback never runs and never consumed a signal.
     *
     * @param callback what to run once the event is signalled
     * @return the handle that withdraws the callback
     * @throws NullPointerException if callback is null
     */
    @SuppressWarnings("GuardedBy") // register calls consume back with lock held
    public Registration onSignal(Runnable callback) {
        Objects.requireNonNull(callback, "callback must not be null: onSignal runs it when the event is signalled");
        return callbacks.register(lock, this::consume, callback);
    }

    /** callbackCount() is how many {@link #onSignal} callbacks wait for a signal; for tests. */
    int callbackCount() {
        lock.lock();
        try {
            return callbacks.size();
        } finally {
            lock.unlock();
        }
    }

    /** clear() lowers the signal. */
    public void clear() {
        lock.lock();
        try {
            signalled = false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * await() blocks until the event is signalled; an AUTO event is then cleared. On a fiber it
     * suspends the fiber; on a plain thread it parks the thread. Not interruptible (as every
     * marl4j wait): on a plain or bound thread an interrupt stays pending for the code after the
     * wait (on a worker thread, see {@link Fiber}).
     */
    public void await() {
        Fiber fiber = Fiber.current();
        if (fiber != null) {
            awaitOnFiber(fiber); // its loop reads the raised signal first
        } else if (!raisedForGood()) {
            await(false, 0);
        }
    }

    /**
     * await(timeout) is {@link #await()} with a timeout; returns false if it timed out.
     *
     * @param timeout how long to wait at most
     * @return true if the event was signalled, false if the wait timed out
     */
    public boolean await(Duration timeout) {
        long deadline = Fiber.deadlineAfter(timeout);
        return raisedForGood() || await(true, deadline);
    }

    /**
     * test() returns true, consuming the signal of an AUTO event, if the event is signalled; never blocks.
     *
     * @return whether the event was signalled
     */
    public boolean test() {
        if (raisedForGood()) {
            return true;
        }
        lock.lock();
        try {
            return consume();
        } finally {
            lock.unlock();
        }
    }

    /**
     * isSignalled() returns whether the event is signalled, without consuming the signal.
     *
     * @return whether the event is signalled
     */
    public boolean isSignalled() {
        return signalled;
    }

    /**
     * raisedForGood() is whether this is a MANUAL event whose signal is raised: then a wait or test
     * returns true at once, without the lock (nothing to consume), as it would under it.
     */
    private boolean raisedForGood() {
        return mode == Mode.MANUAL && signalled;
    }

    private boolean await(boolean timed, long deadline) {
        Registration stranded = null;
        lock.lock();
        try {
            while (!signalled) {
                if (timed && deadline - System.nanoTime() <= 0) {
                    return false;
                }
                try {
                    waiters.await(lock, timed, deadline); // holds lock again when it returns or throws
                } catch (RuntimeException | Error ended) { // a bounded close cancelled the wait
                    stranded = strandedCallback();
                    throw ended;
                }
            }
            return consume();
        } finally {
            lock.unlock();
            CallbackQueue.runChain(stranded); // never throws: a callback's exception is reported
        }
    }

    /**
     * awaitOnFiber(fiber) is the untimed {@link #await()} of a fiber, the most common wait, kept lean
     * for memory: a suspended fiber's stack chunk holds every frame, and every value live across the
     * suspend, from its task down to here (see Worker, "Memory"). So this path queues the fiber's
     * own node under the event's lock, releases the lock and suspends with nothing else held, instead
     * of suspending inside {@link WaitQueue#await} with the lock to take back and a deadline to carry.
     * The same guarantees: the refusal checks run before the node is queued; the node's notified
     * flag, set before the wake, is checked under the worker lock before suspending, so a signal in
     * between is not lost; a wait that ends un-notified (spurious wake, cancellation) leaves the
     * queue, passing on a notification a signaller had already taken it for.
     */
    private void awaitOnFiber(Fiber fiber) {
        while (true) {
            Waiter waiter;
            if (raisedForGood()) {
                return; // a woken crowd leaves without taking the lock one by one
            }
            lock.lock();
            try {
                if (consume()) {
                    return;
                }
                waiter = fiber.waiterForWait();
                fiber.checkMaySuspend(lock);
                waiters.add(waiter);
            } finally {
                lock.unlock();
            }
            try {
                Worker.park(fiber, waiter);
            } catch (RuntimeException | Error ended) { // a bounded close cancelled the wait
                leave(waiter, true);
                throw ended;
            }
            if (!waiter.notified) {
                leave(waiter, false); // a spurious wake: look again
            }
        }
    }

    /**
     * leave(waiter, forGood) unlinks a waiter whose wait ended un-notified; see {@link WaitQueue#leave}.
     * A wait that ends for good (it threw) also releases a callback the signal would otherwise strand.
     */
    private void leave(Waiter waiter, boolean forGood) {
        Registration stranded = null;
        lock.lock();
        try {
            waiters.leave(waiter);
            if (forGood) {
                stranded = strandedCallback();
            }
        } finally {
            lock.unlock();
        }
        CallbackQueue.runChain(stranded);
    }

    /**
     * strandedCallback() is called, with lock held, by a waiter whose wait ends by an exception (a
     * bounded close cancelled it) without consuming the signal: an AUTO signal that was handed to it
     * and that {@link WaitQueue#leave} found no other waiter to pass on to would stay raised while
     * onSignal callbacks wait, and nothing would release them (signal() does nothing on a signalled
     * event). It hands the signal to the first callback instead, as signal() does when nobody
     * waits, and returns it to run once the lock is released; null if there is none to release.
     */
    @GuardedBy("lock")
    private Registration strandedCallback() {
        if (mode != Mode.AUTO || !signalled || waiters.size() > 0) {
            return null; // MANUAL signals release every callback at once; a queued waiter has the signal
        }
        Registration run = callbacks.poll();
        if (run != null) {
            signalled = false;
        }
        return run;
    }

    /** Called with lock held. */
    @GuardedBy("lock")
    private boolean consume() {
        if (!signalled) {
            return false;
        }
        if (mode == Mode.AUTO) {
            signalled = false;
        }
        return true;
    }

    @Override
    public String toString() {
        return "Event[" + mode + (isSignalled() ? ", signalled]" : "]");
    }
}
