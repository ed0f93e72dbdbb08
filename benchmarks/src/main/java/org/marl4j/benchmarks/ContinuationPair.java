package org.marl4j.benchmarks;

import jdk.internal.vm.Continuation;
import jdk.internal.vm.ContinuationScope;

/**
 * ContinuationPair is the floor under the CONTINUATIONS engine's switch: two raw continuations that
 * yield to the thread that runs them, taken in turns, with nothing else (no lock, no queue, no
 * state). One round trip is two runs and two yields. Needs
 * {@code --add-exports java.base/jdk.internal.vm=ALL-UNNAMED}.
 */
final class ContinuationPair {
    private static final ContinuationScope SCOPE = new ContinuationScope("marl4j-benchmark-floor");

    private ContinuationPair() {}

    /** play(rounds) runs both continuations in turn until each has yielded rounds times; returns the passes made. */
    static int play(int rounds) {
        Continuation ping = new Continuation(SCOPE, () -> yieldTimes(rounds));
        Continuation pong = new Continuation(SCOPE, () -> yieldTimes(rounds));
        int passes = 0;
        while (!ping.isDone() || !pong.isDone()) {
            ping.run();
            pong.run();
            passes++;
        }
        return passes;
    }

    private static void yieldTimes(int n) {
        for (int i = 0; i < n; i++) {
            Continuation.yield(SCOPE);
        }
    }
}
