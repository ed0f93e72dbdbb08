package org.marl4j.reactive;

import org.marl4j.Fiber;
import org.marl4j.FiberCancellation;

/**
 * ReactorInterrupt is what disposing a running task does on a {@link MarlScheduler}: where Reactor
 * interrupts the thread of a task disposed while it runs (but not when the task disposes itself,
 * from its own thread), a marl task's fiber waits are cancelled through the
 * {@link FiberCancellation} its body runs in, unless the dispose comes from that task's own fiber.
 */
final class ReactorInterrupt {
    private ReactorInterrupt() {}

    /** cancelWaits(scope) cancels the waits of the body running in scope; nothing if scope is null. */
    static void cancelWaits(FiberCancellation scope) {
        if (scope != null && scope.fiber() != Fiber.current()) {
            scope.cancel();
        }
    }
}
