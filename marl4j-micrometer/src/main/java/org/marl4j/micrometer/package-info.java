/**
 * Micrometer meters for marl4j: {@link org.marl4j.micrometer.SchedulerMetrics} for a
 * {@link org.marl4j.Scheduler}, {@link org.marl4j.micrometer.MarlExecutorServiceMetrics} for a
 * {@link org.marl4j.futures.MarlExecutorService}. Both follow Micrometer's executor conventions
 * ({@code executor.completed}, {@code executor.active}, {@code executor.queued},
 * {@code executor.pool.size}, ...) and add marl4j's own figures ({@code marl4j.fibers.blocked},
 * {@code marl4j.tasks.blocking}, ...).
 */
package org.marl4j.micrometer;
