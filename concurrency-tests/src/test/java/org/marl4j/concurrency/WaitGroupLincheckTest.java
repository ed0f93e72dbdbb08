package org.marl4j.concurrency;

import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Test;
import org.marl4j.WaitGroup;

/**
 * Lincheck model check of {@link WaitGroup} from plain threads (see {@link MutexLincheckTest} for
 * why not fibers): every operation adds one, finishes it, and waits for the count to reach zero.
 * Each operation's own add is matched by its done, so every wait must end once every thread has
 * passed its done: a waiter left parked is a lost wake-up, which the model checker reports as a
 * deadlock. (The operations return nothing: whether a done() reached zero depends on the other
 * thread's add, so it would not be linearizable as one compound operation.)
 */
public class WaitGroupLincheckTest {
    private final WaitGroup group = new WaitGroup();

    /** add(); done(); await(): blocks while another thread's add is not yet done. */
    @Operation
    public void addDoneAwait() {
        group.add();
        group.done();
        group.await();
    }

    /** add(2); two done()s; await(). */
    @Operation
    public void addTwoDoneTwiceAwait() {
        group.add(2);
        group.done();
        group.done();
        group.await();
    }

    @Test
    void modelCheck() {
        Budget.modelChecking().check(getClass());
    }
}
