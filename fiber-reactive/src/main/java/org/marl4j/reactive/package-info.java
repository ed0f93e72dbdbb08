/**
 * marl4j under Project Reactor and Reactive Streams: a Reactor scheduler whose tasks run on marl4j
 * fibers, and fibers that await, iterate and produce any Reactive Streams {@code Publisher}.
 *
 * <ul>
 *   <li>{@link org.marl4j.reactive.MarlScheduler}: a {@code reactor.core.scheduler.Scheduler} over a
 *       marl4j {@link org.marl4j.Scheduler}, borrowed ({@code from}) or owned ({@code create}), for
 *       {@code publishOn}, {@code subscribeOn}, {@code Flux.interval}, {@code parallel().runOn}...
 *       Code inside operators may wait on a marl4j primitive or a future: only its fiber
 *       suspends.</li>
 *   <li>{@link org.marl4j.reactive.MarlSchedulersFactory}: a {@code Schedulers.Factory} that puts
 *       Reactor's own {@code parallel()}, {@code single()}, {@code boundedElastic()} and the timers
 *       of its time operators on a marl4j scheduler, with one {@code Schedulers.setFactory} call.</li>
 *   <li>{@link org.marl4j.reactive.Publishers}: {@code awaitFirst}, {@code awaitSingle},
 *       {@code awaitLast}, {@code awaitList} (and the {@code OrNull} forms) wait for a publisher's
 *       elements; {@code iterate} walks one with real backpressure through a
 *       {@link org.marl4j.reactive.FiberIterator}; {@code publish} turns a fiber's plain loop of
 *       {@link org.marl4j.reactive.Emitter#emit} calls into a publisher paced by demand.</li>
 * </ul>
 *
 * <p>On a fiber these calls suspend only the fiber; on any other thread they block it, like
 * Reactor's {@code block()}. The JVM needs the flag that every marl4j program needs:
 * {@code --add-exports java.base/jdk.internal.vm=ALL-UNNAMED}.
 */
package org.marl4j.reactive;
