/**
 * marl4j for {@code java.util.concurrent} code: await any
 * {@link java.util.concurrent.CompletionStage} on a fiber, and run an
 * {@link java.util.concurrent.ExecutorService}'s tasks on fibers.
 *
 * <ul>
 *   <li>{@link org.marl4j.futures.Futures#await(java.util.concurrent.CompletionStage)} suspends only
 *       the calling fiber until the stage completes (off a fiber it blocks the thread), and
 *       rethrows the stage's own exception;
 *       {@link org.marl4j.futures.Futures#supplyAsync(org.marl4j.Scheduler, java.util.function.Supplier)}
 *       starts a fiber task and hands back a {@link java.util.concurrent.CompletableFuture}.</li>
 *   <li>{@link org.marl4j.futures.MarlExecutorService} is a complete {@code ExecutorService} over a
 *       marl4j {@link org.marl4j.Scheduler}: a drop-in {@link java.util.concurrent.Executor} for
 *       code that takes one ({@code CompletableFuture.supplyAsync(..., executor)},
 *       {@code HttpServer.setExecutor}), whose tasks may await without holding a thread.</li>
 * </ul>
 */
package org.marl4j.futures;
