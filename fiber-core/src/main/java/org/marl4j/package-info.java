/**
 * marl4j's core: Google marl's task and fiber scheduler on Loom continuations, and marl's
 * synchronisation primitives.
 *
 * <p>A {@link org.marl4j.Scheduler} runs {@link org.marl4j.Task}s on a fixed set of worker threads,
 * and on application threads that {@link org.marl4j.Scheduler#bind() bind} to it. A task that waits
 * on one of this package's primitives suspends only its {@link org.marl4j.Fiber}; the worker thread
 * goes on running other tasks. The primitives:
 * <ul>
 *   <li>{@link org.marl4j.WaitGroup}: wait until a count of outstanding work reaches zero;</li>
 *   <li>{@link org.marl4j.Event}: an auto- or manual-reset signal;</li>
 *   <li>{@link org.marl4j.ConditionVariable} and {@link org.marl4j.Fiber#await}: wait for a predicate
 *       under a lock;</li>
 *   <li>{@link org.marl4j.Mutex}: a lock owned by a fiber, the one to hold across a wait;</li>
 *   <li>{@link org.marl4j.Ticket}: run work concurrently, then hand over in a strict order;</li>
 *   <li>{@link org.marl4j.BoundedPool} and {@link org.marl4j.UnboundedPool}: pools of reusable
 *       items;</li>
 *   <li>{@link org.marl4j.Dag}: a graph of tasks, each run after its predecessors;</li>
 *   <li>{@link org.marl4j.Marl}: {@code schedule}, {@code parallelize} and {@code blockingCall}.</li>
 * </ul>
 *
 * <p>Every primitive also works on a plain thread, where waiting blocks the thread. Worker ordering
 * is pluggable ({@link org.marl4j.SchedulingPolicy}), worker threads can be pinned to CPUs
 * ({@link org.marl4j.Affinity}), and a scheduler reports counters
 * ({@link org.marl4j.Scheduler#stats()}) and its suspended fibers
 * ({@link org.marl4j.Scheduler#suspendedFibers()}).
 *
 * <p>The JVM must be started with {@code --add-exports java.base/jdk.internal.vm=ALL-UNNAMED} (or
 * an application jar whose manifest says {@code Add-Exports: java.base/jdk.internal.vm}); without
 * it the first {@code new Scheduler(...)} throws an {@link java.lang.IllegalStateException} naming
 * the flag. Never let a fiber wait while it holds a {@code synchronized} monitor or a
 * {@link java.util.concurrent.locks.ReentrantLock}: the fibers of a worker share its thread.
 *
 * <p>Start with {@link org.marl4j.Scheduler}. The bridges to other libraries are separate modules,
 * with javadoc of their own: {@code fiber-futures} ({@code org.marl4j.futures.Futures}, to await a
 * {@code CompletableFuture} on a fiber, and {@code MarlExecutorService}, an {@code ExecutorService}
 * on fibers), {@code fiber-reactive} ({@code org.marl4j.reactive.MarlScheduler}, a Reactor
 * {@code Scheduler}) and {@code fiber-kotlin} ({@code scheduler.asCoroutineDispatcher()} in
 * {@code org.marl4j.kotlin}).
 */
package org.marl4j;
