package org.marl4j.concurrency;

import java.time.Duration;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Test;
import org.marl4j.Event;

/**
 * Lincheck model check of an AUTO {@link Event} from plain threads (see {@link MutexLincheckTest}
 * for why not fibers): signal, clear, test, isSignalled and a non-blocking await must be
 * linearizable against the same Event run sequentially: an AUTO signal is consumed exactly once.
 * A blocking wait racing a signal is the jcstress tests' job ({@code EventSignalAwaitTest}): here
 * a scenario without a signal would make a blocking await wait forever, legitimately.
 */
public class EventLincheckTest {
    private final Event event = new Event(Event.Mode.AUTO);

    /** signal(): raises the signal. */
    @Operation
    public void signal() {
        event.signal();
    }

    /** clear(): lowers it. */
    @Operation
    public void clear() {
        event.clear();
    }

    /** test(): consumes the signal if raised. */
    @Operation
    public boolean test() {
        return event.test();
    }

    /** isSignalled(): reads it without consuming. */
    @Operation
    public boolean isSignalled() {
        return event.isSignalled();
    }

    /** await(Duration.ZERO): consumes the signal if raised, never waits. */
    @Operation
    public boolean awaitNow() {
        return event.await(Duration.ZERO);
    }

    @Test
    void modelCheck() {
        Budget.modelChecking().check(getClass());
    }
}
