package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A socket read on a fiber of {@link FiberEngine#VIRTUAL_THREADS} is woken by the data even when
 * that fiber is the first virtual thread of the JVM to wait for a socket. The JDK starts its I/O
 * poller threads lazily, as virtual threads, from the first thread that waits, and a virtual
 * thread made by a virtual thread inherits its scheduler: here, the fiber's worker. Whether a test
 * run's earlier tests have already started the pollers is a matter of order, so this runs in a
 * fresh JVM where the fiber surely is the first. The child exits with System.exit, so a read
 * that is never woken cannot keep it alive.
 */
class VirtualThreadFirstSocketWaitTest {
    @Test
    void virtualThreads_theFirstSocketReadOfTheJvm_onAFiber_isWokenByItsData() throws Exception {
        ChildJvm.Result result = ChildJvm.run(ChildJvm.addExports(), FirstSocketWaitProbe.class);
        assertEquals(0, result.exitCode(), result.output());
    }

    /**
     * The control: the same read is woken once a virtual thread of the JDK's own scheduler has
     * waited for a socket first, which starts the pollers on that scheduler. It points at the
     * pollers' scheduler as the difference.
     */
    @Test
    void virtualThreads_aSocketReadOnAFiber_isWokenByItsData_oncePollersRunOnTheJdksScheduler() throws Exception {
        ChildJvm.Result result = ChildJvm.run(ChildJvm.addExports(), FirstSocketWaitProbe.class, "startPollersFirst");
        assertEquals(0, result.exitCode(), result.output());
    }

    /** Reads one byte on a fiber from a loopback server that writes it once the read waits; exits 0 if it came. */
    static final class FirstSocketWaitProbe {
        public static void main(String[] args) throws Exception {
            if (args.length > 0 && args[0].equals("startPollersFirst")) {
                startPollersOnTheJdksScheduler();
            }
            try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                    Scheduler scheduler = new Scheduler(new Scheduler.Config().setWorkerThreadCount(1)
                            .setFiberEngine(FiberEngine.VIRTUAL_THREADS))) {
                AtomicReference<Thread> reader = new AtomicReference<>();
                Thread writer = TestSchedulers.startThread("loopback writer", () -> {
                    try (Socket accepted = server.accept()) {
                        // Only once the reader is parked in its read: the byte must wake it.
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                        while ((reader.get() == null || reader.get().getState() != Thread.State.TIMED_WAITING)
                                && System.nanoTime() < deadline) {
                            Thread.onSpinWait();
                        }
                        OutputStream out = accepted.getOutputStream();
                        out.write(42);
                        out.flush();
                        accepted.getInputStream().read(); // until the reader closes
                    } catch (Exception e) {
                        e.printStackTrace();
                    }
                });
                CompletableFuture<Integer> read = TestSchedulers.onFiber(scheduler, () -> {
                    try (Socket socket = new Socket()) {
                        reader.set(Thread.currentThread());
                        socket.connect(server.getLocalSocketAddress(), 10_000);
                        // Far beyond the wait below: a read woken only by its own timeout would still find the byte.
                        socket.setSoTimeout(60_000);
                        return socket.getInputStream().read();
                    }
                });
                int b;
                try {
                    b = read.get(10, TimeUnit.SECONDS); // a loopback byte takes microseconds
                } catch (Exception e) {
                    System.out.println("the read on the fiber failed: " + e);
                    e.printStackTrace(System.out);
                    System.exit(1);
                    return;
                }
                TaskErrors.join(writer);
                System.out.println("read " + b);
                System.exit(b == 42 ? 0 : 1);
            }
        }

        /** A read that times out on a virtual thread of the JDK's scheduler: its wait starts the pollers. */
        private static void startPollersOnTheJdksScheduler() throws Exception {
            try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                Thread.ofVirtual().start(() -> {
                    try (Socket socket = new Socket()) {
                        socket.connect(server.getLocalSocketAddress(), 10_000);
                        socket.setSoTimeout(1);
                        socket.getInputStream().read();
                    } catch (java.net.SocketTimeoutException expected) {
                        // the wait happened
                    } catch (Exception e) {
                        e.printStackTrace();
                    }
                }).join(10_000);
            }
        }
    }
}
