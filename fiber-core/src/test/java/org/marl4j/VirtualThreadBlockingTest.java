package org.marl4j;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.marl4j.TestSchedulers.PATIENCE;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What {@link FiberEngine#VIRTUAL_THREADS} promises for blocking calls of the JDK: they suspend only
 * the fiber that makes them, so the worker thread runs the scheduler's other tasks meanwhile, the
 * task that will unblock them included. Each scenario is also run on
 * {@link FiberEngine#CONTINUATIONS}, where the same call holds the worker thread, to show the
 * assertions are about the engine and not about luck.
 *
 * <p>No timing is asserted. A scenario starts {@value #TASKS} tasks that each make the same
 * blocking call; the call returns only once a helper thread releases it, and the helper releases
 * only after it has seen every task's thread blocked in the call at once (or, on the engine that
 * cannot, after a short limit). So "all tasks entered their blocking call before the first was
 * released" is an ordering that the test observes, not a duration it measures.
 */
class VirtualThreadBlockingTest {
    private static final int TASKS = 16;
    /** The sleep of {@link Blocking#SLEEP}: long enough that all tasks enter it before the first wakes. */
    private static final Duration SLEEP = Duration.ofMillis(200);
    /**
     * How long the contrast on CONTINUATIONS lets the helper wait for all tasks to block before it
     * releases them anyway: there they never can, since the first blocked task holds the thread.
     */
    private static final Duration CONTRAST_LIMIT = Duration.ofMillis(400);
    /**
     * The bound of each socket call: shorter than {@link TestSchedulers#PATIENCE} since a loopback
     * byte takes microseconds, so that a read that is never woken fails the test in seconds.
     */
    private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(10);

    /** The blocking calls of the JDK under test. */
    enum Blocking {
        SLEEP, COUNT_DOWN_LATCH, OBJECT_WAIT, REENTRANT_LOCK, SYNCHRONIZED, COMPLETABLE_FUTURE_JOIN, BLOCKING_QUEUE_TAKE,
        SOCKET_READ;

        Scenario open() throws IOException {
            return switch (this) {
                case SLEEP -> new Sleep();
                case COUNT_DOWN_LATCH -> new Latch();
                case OBJECT_WAIT -> new ObjectWait();
                case REENTRANT_LOCK -> new ContendedLock();
                case SYNCHRONIZED -> new ContendedMonitor();
                case COMPLETABLE_FUTURE_JOIN -> new FutureJoin();
                case BLOCKING_QUEUE_TAKE -> new QueueTake();
                case SOCKET_READ -> new SocketRead();
            };
        }
    }

    static Stream<Arguments> blockingCallsAndWorkerCounts() {
        return Stream.of(Blocking.values())
                .flatMap(kind -> Stream.of(0, 1, 2, 4).map(workers -> Arguments.of(kind, workers)));
    }

    @ParameterizedTest(name = "{0}, {1} worker threads")
    @MethodSource("blockingCallsAndWorkerCounts")
    void virtualThreads_aBlockingJdkCallSuspendsOnlyItsFiber_soAllTasksAreInsideItAtOnce(Blocking kind, int workers)
            throws Exception {
        Outcome outcome = run(FiberEngine.VIRTUAL_THREADS, workers, kind, PATIENCE);
        assertEquals(TASKS, outcome.enteredWhenFirstReturned, () -> "tasks inside " + kind
                + " when the first came out (all should be: the call suspends only its fiber): " + outcome);
        if (kind != Blocking.SLEEP) {
            assertEquals(Boolean.TRUE, outcome.allBlockedBeforeRelease,
                    () -> "the helper saw all " + TASKS + " tasks' threads blocked in " + kind + " at once: " + outcome);
            assertEquals(TASKS, outcome.distinctThreads,
                    () -> "each blocked task is a thread of its own (its fiber's virtual thread): " + outcome);
        }
    }

    /**
     * The contrast: on CONTINUATIONS a blocking JDK call holds the worker thread, so on one worker
     * the tasks go through the call one at a time, and the helper never sees them all blocked.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Blocking.class)
    void continuations_aBlockingJdkCallHoldsTheWorkerThread_soTheTasksGoThroughItOneAtATime(Blocking kind)
            throws Exception {
        Outcome outcome = run(FiberEngine.CONTINUATIONS, 1, kind, CONTRAST_LIMIT);
        assertEquals(1, outcome.enteredWhenFirstReturned,
                () -> "on one worker thread held by the call, only the first task is inside it: " + outcome);
        if (kind != Blocking.SLEEP) {
            assertEquals(Boolean.FALSE, outcome.allBlockedBeforeRelease,
                    () -> "the tasks cannot all be blocked at once on one held thread: " + outcome);
        }
        assertEquals(1, outcome.distinctThreads, () -> "every task ran on the worker thread itself: " + outcome);
    }

    /**
     * The task that unblocks another runs on the same single worker while the other is blocked in
     * the JDK: the blocked one's waker is a later task of its own thread.
     */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1})
    void virtualThreads_aTaskBlockedInTheJdk_isWokenByALaterTaskOnTheSameWorkerThread(int workers) {
        WakerOutcome outcome = blockedAndWaker(FiberEngine.VIRTUAL_THREADS, workers, PATIENCE);
        assertTrue(outcome.released, "the blocked task was released by the later task, not by its timeout");
        assertEquals(outcome.blockedCarrier, outcome.wakerCarrier, "the waker ran on the blocked task's worker thread");
        assertTrue(outcome.blockedWasVirtual, "the blocked task ran on a virtual thread");
    }

    /** The contrast: on CONTINUATIONS the later task cannot run until the blocked one's wait times out. */
    @ParameterizedTest(name = "{0} worker threads")
    @ValueSource(ints = {0, 1})
    void continuations_aTaskBlockedInTheJdk_holdsTheWorkerThreadUntilItsWaitTimesOut(int workers) {
        WakerOutcome outcome = blockedAndWaker(FiberEngine.CONTINUATIONS, workers, CONTRAST_LIMIT);
        assertFalse(outcome.released, "the waker could not run while the worker thread was blocked");
        assertEquals(outcome.blockedCarrier, outcome.wakerCarrier);
        assertFalse(outcome.blockedWasVirtual);
    }

    // ---------------------------------------------------------------- the waker scenario

    record WakerOutcome(boolean released, String blockedCarrier, String wakerCarrier, boolean blockedWasVirtual) {}

    private static WakerOutcome blockedAndWaker(FiberEngine engine, int workers, Duration blockedLimit) {
        AtomicReference<WakerOutcome> outcome = new AtomicReference<>();
        VirtualThreadFixtures.withScheduler(engine, workers, scheduler -> {
            CountDownLatch latch = new CountDownLatch(1);
            AtomicBoolean released = new AtomicBoolean();
            AtomicReference<String> blockedCarrier = new AtomicReference<>();
            AtomicReference<String> wakerCarrier = new AtomicReference<>();
            AtomicBoolean virtual = new AtomicBoolean();
            WaitGroup done = new WaitGroup(2);
            // Both tasks are queued before either runs: on one worker the blocked one runs first.
            scheduler.enqueue(new Task(() -> {
                try {
                    blockedCarrier.set(VirtualThreadFixtures.carrierName());
                    virtual.set(Thread.currentThread().isVirtual());
                    released.set(latch.await(blockedLimit.toMillis(), TimeUnit.MILLISECONDS));
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                } finally {
                    done.done();
                }
            }));
            scheduler.enqueue(new Task(() -> {
                wakerCarrier.set(VirtualThreadFixtures.carrierName());
                latch.countDown();
                done.done();
            }));
            VirtualThreadFixtures.awaitAll(done);
            outcome.set(new WakerOutcome(released.get(), blockedCarrier.get(), wakerCarrier.get(), virtual.get()));
        });
        return outcome.get();
    }

    // ---------------------------------------------------------------- the N-task scenario

    /**
     * What a run saw: how many tasks had entered the call when the first came out of it; whether
     * the helper saw every task's thread blocked in the call at once before it released them (null
     * for a call the helper does not release, a sleep); how many distinct threads the tasks ran on.
     */
    record Outcome(int enteredWhenFirstReturned, Boolean allBlockedBeforeRelease, int distinctThreads) {}

    private static Outcome run(FiberEngine engine, int workers, Blocking kind, Duration releaseLimit) throws Exception {
        Queue<Thread> threads = new ConcurrentLinkedQueue<>();
        AtomicInteger entered = new AtomicInteger();
        AtomicInteger enteredWhenFirstReturned = new AtomicInteger(-1);
        AtomicReference<Boolean> allBlockedBeforeRelease = new AtomicReference<>();
        try (Scenario scenario = kind.open()) {
            VirtualThreadFixtures.withScheduler(engine, workers, scheduler -> {
                CountDownLatch holding = new CountDownLatch(1);
                Thread helper = TestSchedulers.startThread("releaser of " + kind, () -> {
                    try {
                        scenario.holdThenRelease(() -> {
                            holding.countDown();
                            allBlockedBeforeRelease.set(awaitAllBlocked(threads, releaseLimit));
                        });
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    } finally {
                        holding.countDown();
                    }
                });
                try {
                    assertTrue(holding.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS), "the helper took its hold");
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                WaitGroup done = new WaitGroup(TASKS);
                for (int i = 0; i < TASKS; i++) {
                    scheduler.enqueue(new Task(() -> {
                        try {
                            threads.add(Thread.currentThread());
                            entered.incrementAndGet();
                            scenario.block();
                            enteredWhenFirstReturned.compareAndSet(-1, entered.get());
                        } catch (Exception e) {
                            throw new AssertionError(kind + " failed in a task", e);
                        } finally {
                            done.done();
                        }
                    }));
                }
                VirtualThreadFixtures.awaitAll(done);
                TaskErrors.join(helper);
            });
        }
        int distinct = (int) threads.stream().distinct().count();
        return new Outcome(enteredWhenFirstReturned.get(), allBlockedBeforeRelease.get(), distinct);
    }

    /**
     * awaitAllBlocked(threads, limit) is whether, within limit, all {@value #TASKS} tasks' threads
     * were seen at once in a blocked state (parked, timed-parked, or blocked on a monitor).
     */
    private static boolean awaitAllBlocked(Collection<Thread> threads, Duration limit) {
        try {
            await().atMost(limit).pollInterval(Duration.ofMillis(5)).until(() -> threads.size() == TASKS
                    && threads.stream().allMatch(t -> switch (t.getState()) {
                        case WAITING, TIMED_WAITING, BLOCKED -> true;
                        default -> false;
                    }));
            return true;
        } catch (ConditionTimeoutException e) {
            return false;
        }
    }

    // ---------------------------------------------------------------- the blocking calls

    /**
     * A blocking call and its release. {@link #holdThenRelease} runs on a helper thread: it takes
     * whatever the call waits for (a lock, a monitor), runs {@code untilReleased} (which returns
     * once all tasks are blocked, or at a limit), then lets every present and future call through.
     * Every call is bounded: by its own timeout, or by the helper's release, which always comes.
     */
    interface Scenario extends AutoCloseable {
        void block() throws Exception;

        void holdThenRelease(Runnable untilReleased) throws Exception;

        @Override
        default void close() throws IOException {}
    }

    private static TimeoutException notReleased(String what) {
        return new TimeoutException(what + " was not released within " + PATIENCE);
    }

    private static final class Sleep implements Scenario {
        @Override
        public void block() throws InterruptedException {
            Thread.sleep(SLEEP);
        }

        @Override
        public void holdThenRelease(Runnable untilReleased) {} // a sleep ends by itself
    }

    private static final class Latch implements Scenario {
        private final CountDownLatch gate = new CountDownLatch(1);

        @Override
        public void block() throws Exception {
            if (!gate.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
                throw notReleased("CountDownLatch.await");
            }
        }

        @Override
        public void holdThenRelease(Runnable untilReleased) {
            untilReleased.run();
            gate.countDown();
        }
    }

    private static final class ObjectWait implements Scenario {
        private final Object monitor = new Object();
        private boolean open; // guarded by monitor

        @Override
        public void block() throws Exception {
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            synchronized (monitor) {
                while (!open) {
                    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    if (left <= 0) {
                        throw notReleased("Object.wait");
                    }
                    monitor.wait(left);
                }
            }
        }

        @Override
        public void holdThenRelease(Runnable untilReleased) {
            untilReleased.run();
            synchronized (monitor) {
                open = true;
                monitor.notifyAll();
            }
        }
    }

    private static final class ContendedLock implements Scenario {
        private final ReentrantLock lock = new ReentrantLock();

        @Override
        public void block() throws Exception {
            if (!lock.tryLock(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
                throw notReleased("ReentrantLock.tryLock");
            }
            lock.unlock();
        }

        @Override
        public void holdThenRelease(Runnable untilReleased) {
            lock.lock(); // held by the helper: every task contends for it
            try {
                untilReleased.run();
            } finally {
                lock.unlock();
            }
        }
    }

    private static final class ContendedMonitor implements Scenario {
        private final Object monitor = new Object();
        private int entries; // guarded by monitor

        @Override
        public void block() {
            synchronized (monitor) { // bounded: the helper always leaves the monitor
                entries++;
            }
        }

        @Override
        public void holdThenRelease(Runnable untilReleased) {
            synchronized (monitor) { // held by the helper: every task contends for it
                untilReleased.run();
            }
        }
    }

    private static final class FutureJoin implements Scenario {
        private final CompletableFuture<String> future = new CompletableFuture<String>()
                .orTimeout(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);

        @Override
        public void block() {
            assertEquals("released", future.join());
        }

        @Override
        public void holdThenRelease(Runnable untilReleased) {
            untilReleased.run();
            future.complete("released");
        }
    }

    private static final class QueueTake implements Scenario {
        private final BlockingQueue<Integer> queue = new LinkedBlockingQueue<>();

        @Override
        public void block() throws InterruptedException {
            queue.take(); // bounded: the helper always puts one item per task
        }

        @Override
        public void holdThenRelease(Runnable untilReleased) {
            untilReleased.run();
            for (int i = 0; i < TASKS; i++) {
                queue.add(i);
            }
        }
    }

    /**
     * Each task connects to a loopback server and reads one byte; the server writes it to each
     * connection only once released, and at once to connections made after that.
     */
    private static final class SocketRead implements Scenario {
        private final ServerSocket server = new ServerSocket(0, 2 * TASKS, InetAddress.getLoopbackAddress());
        private final CountDownLatch released = new CountDownLatch(1);
        private final Queue<Socket> accepted = new ConcurrentLinkedQueue<>();
        private final List<Thread> helpers = new CopyOnWriteArrayList<>();
        private final Thread acceptor;

        SocketRead() throws IOException {
            acceptor = TestSchedulers.startThread("loopback acceptor", this::acceptAll);
        }

        private void acceptAll() {
            try {
                while (true) {
                    Socket socket = server.accept();
                    accepted.add(socket);
                    helpers.add(TestSchedulers.startThread("loopback writer", () -> {
                        try {
                            if (released.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
                                OutputStream out = socket.getOutputStream();
                                out.write(42);
                                out.flush();
                            }
                        } catch (IOException | InterruptedException e) {
                            // the test is over: close() closed the socket
                        }
                    }));
                }
            } catch (IOException closed) {
                // close() closed the server
            }
        }

        @Override
        public void block() throws IOException {
            try (Socket socket = new Socket()) {
                socket.connect(server.getLocalSocketAddress(), (int) SOCKET_TIMEOUT.toMillis());
                socket.setSoTimeout((int) SOCKET_TIMEOUT.toMillis());
                InputStream in = socket.getInputStream();
                assertEquals(42, in.read());
            }
        }

        @Override
        public void holdThenRelease(Runnable untilReleased) {
            untilReleased.run();
            released.countDown();
        }

        @Override
        public void close() throws IOException {
            released.countDown();
            server.close();
            for (Socket socket : accepted) {
                socket.close();
            }
            TaskErrors.join(acceptor);
            helpers.forEach(TaskErrors::join);
        }
    }
}
