package org.marl4j.benchmarks;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.LockSupport;

/**
 * PingPong is the JDK baseline for a fiber ping-pong: two threads take turns through a volatile
 * flag and park/unpark, so one round trip is two parks and two unparks.
 */
final class PingPong {
    private final int rounds;
    private volatile int turn; // 0: ping's turn, 1: pong's turn
    private volatile Thread ping;
    private volatile Thread pong;

    PingPong(int rounds) {
        this.rounds = rounds;
    }

    /** onVirtualThreads(rounds) plays the given rounds on two new virtual threads, waits for both and returns the game. */
    static PingPong onVirtualThreads(int rounds) throws InterruptedException {
        PingPong p = new PingPong(rounds);
        p.runOnVirtualThreads();
        return p;
    }

    /** onThreads(factory, rounds) plays the given rounds on two new threads of factory, waits for both and returns the game. */
    static PingPong onThreads(ThreadFactory factory, int rounds) throws InterruptedException {
        PingPong p = new PingPong(rounds);
        p.runOn(factory);
        return p;
    }

    /** runOnVirtualThreads() plays all rounds on two new virtual threads and waits for both. */
    void runOnVirtualThreads() throws InterruptedException {
        runOn(Thread.ofVirtual().factory());
    }

    private void runOn(ThreadFactory factory) throws InterruptedException {
        ping = factory.newThread(this::ping);
        pong = factory.newThread(this::pong);
        pong.start();
        ping.start();
        ping.join();
        pong.join();
    }

    private void ping() {
        for (int r = 0; r < rounds; r++) {
            turn = 1;
            LockSupport.unpark(pong);
            while (turn != 0) {
                LockSupport.park(this);
            }
        }
    }

    private void pong() {
        for (int r = 0; r < rounds; r++) {
            while (turn != 1) {
                LockSupport.park(this);
            }
            turn = 0;
            LockSupport.unpark(ping);
        }
    }
}
