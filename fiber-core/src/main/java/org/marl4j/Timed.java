package org.marl4j;

/**
 * Timed is something with a deadline in its worker's {@link Deadlines} heap: a fiber waiting with
 * a timeout (its {@link FiberTimer}), or a {@link DelayedTask} not yet due. Fields are guarded by the worker's lock.
 */
abstract class Timed {
    /** The deadline, in {@link System#nanoTime()} units. */
    long deadline;
    /** The entry's index in its worker's heap, or -1 when it is in none. */
    int heapIndex = -1;
}
