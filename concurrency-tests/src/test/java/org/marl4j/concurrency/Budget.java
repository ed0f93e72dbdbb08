package org.marl4j.concurrency;

import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.marl4j.TestSchedulers;

/**
 * Lincheck's budget here: model checking is slow on 2 cores, so few scenarios of 2 threads with
 * 3 operations each, every one explored through many interleavings. {@code -DstressTest=true}
 * runs ten times as many scenarios.
 */
final class Budget {
    private Budget() {}

    static ModelCheckingOptions modelChecking() {
        int scale = TestSchedulers.stress() ? 10 : 1;
        return new ModelCheckingOptions()
                .iterations(8 * scale)
                .invocationsPerIteration(200)
                .threads(2)
                .actorsPerThread(3)
                .actorsBefore(1)
                .actorsAfter(1);
    }
}
