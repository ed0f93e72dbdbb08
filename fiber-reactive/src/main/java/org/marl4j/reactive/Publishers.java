package org.marl4j.reactive;

import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import org.marl4j.Fiber;
import org.marl4j.Scheduler;
import org.marl4j.Task;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import reactor.core.scheduler.Schedulers;

/**
 * Publishers bridges Reactive Streams and marl4j fibers in both directions: a fiber awaits or
 * iterates any {@link Publisher} (Reactor's {@code Flux} and {@code Mono}, RxJava, JDK
 * {@code Flow} adapters...), and a fiber produces a {@code Publisher} by plain sequential code.
 *
 * <pre>{@code
 * scheduler.enqueue(new Task(() -> {
 *     User user = Publishers.awaitSingle(users.findById(42));          // suspends this fiber only
 *     List<Order> orders = Publishers.awaitList(orders.byUser(user));
 *     try (FiberIterator<Event> events = Publishers.iterate(feed, 32)) {
 *         while (events.hasNext()) handle(events.next());
 *     }
 * }));
 * Publisher<Integer> squares = Publishers.publish(scheduler, emitter -> {
 *     for (int i = 1; ; i++) emitter.emit(i * i);                       // waits for demand
 * });
 * }</pre>
 *
 * <p>Waiting: on a fiber ({@link org.marl4j.Fiber#current()} non-null: inside a marl4j task, a
 * {@link MarlScheduler} task, or on a thread bound to a scheduler) the await and iterate calls
 * suspend only that fiber while its worker thread runs other tasks; anywhere else they block the
 * thread, as {@code Mono.block()} would. Waits are not interruptible. Like {@code Mono.block()},
 * they refuse to block a thread that Reactor marks non-blocking ({@code Schedulers.parallel()},
 * {@code single()}, ...: {@code Schedulers.isInNonBlockingThread()}): where they would have to
 * wait there, they cancel the subscription and throw {@link IllegalStateException}. Run such code
 * on a {@link MarlScheduler} instead ({@code publishOn}/{@code subscribeOn}), where it suspends only
 * its fiber.
 *
 * <p>Failures: the caller gets the publisher's error itself: a runtime exception or error is
 * rethrown as the very same object, and a checked exception is thrown as is, undeclared (as Kotlin
 * does), so catch {@code Exception} to see one. The await semantics are kotlinx.coroutines'
 * ({@code kotlinx-coroutines-reactive}'s {@code awaitFirst}, {@code awaitSingle}, ...).
 */
public final class Publishers {
    private Publishers() {}

    /**
     * awaitFirst(publisher) subscribes, waits for the first element, cancels the subscription and
     * returns the element.
     *
     * @param publisher the publisher to subscribe to
     * @param <T> the element type
     * @return the first element
     * @throws NoSuchElementException if the publisher completes without an element
     * @throws NullPointerException if {@code publisher} is null
     */
    public static <T> T awaitFirst(Publisher<T> publisher) {
        return await(publisher, AwaitSubscriber.Mode.FIRST);
    }

    /**
     * awaitFirstOrNull(publisher) is {@link #awaitFirst} that returns null for an empty publisher.
     *
     * @param publisher the publisher to subscribe to
     * @param <T> the element type
     * @return the first element, or null if there was none
     * @throws NullPointerException if {@code publisher} is null
     */
    public static <T> T awaitFirstOrNull(Publisher<T> publisher) {
        return await(publisher, AwaitSubscriber.Mode.FIRST_OR_NULL);
    }

    /**
     * awaitSingle(publisher) subscribes, waits for the stream to complete, and returns its only
     * element. If a second element arrives, it cancels the subscription at once and throws.
     *
     * @param publisher the publisher to subscribe to
     * @param <T> the element type
     * @return the only element
     * @throws NoSuchElementException if the publisher completes without an element
     * @throws IllegalArgumentException if the publisher emits more than one element
     * @throws NullPointerException if {@code publisher} is null
     */
    public static <T> T awaitSingle(Publisher<T> publisher) {
        return await(publisher, AwaitSubscriber.Mode.SINGLE);
    }

    /**
     * awaitSingleOrNull(publisher) is {@link #awaitSingle} that returns null for an empty publisher.
     *
     * @param publisher the publisher to subscribe to
     * @param <T> the element type
     * @return the only element, or null if there was none
     * @throws IllegalArgumentException if the publisher emits more than one element
     * @throws NullPointerException if {@code publisher} is null
     */
    public static <T> T awaitSingleOrNull(Publisher<T> publisher) {
        return await(publisher, AwaitSubscriber.Mode.SINGLE_OR_NULL);
    }

    /**
     * awaitLast(publisher) subscribes with unbounded demand, waits for the stream to complete and
     * returns its last element.
     *
     * @param publisher the publisher to subscribe to
     * @param <T> the element type
     * @return the last element
     * @throws NoSuchElementException if the publisher completes without an element
     * @throws NullPointerException if {@code publisher} is null
     */
    public static <T> T awaitLast(Publisher<T> publisher) {
        return await(publisher, AwaitSubscriber.Mode.LAST);
    }

    /**
     * awaitList(publisher) subscribes with unbounded demand, waits for the stream to complete and
     * returns every element in order (an empty list for an empty stream).
     *
     * @param publisher the publisher to subscribe to
     * @param <T> the element type
     * @return a new modifiable list of the elements
     * @throws NullPointerException if {@code publisher} is null
     */
    @SuppressWarnings("unchecked")
    public static <T> List<T> awaitList(Publisher<T> publisher) {
        return (List<T>) await(publisher, AwaitSubscriber.Mode.LIST);
    }

    /**
     * iterate(publisher, prefetch) subscribes and returns an iterator over the elements, which waits
     * for each (see {@link FiberIterator}). At most {@code prefetch} elements are requested ahead of
     * those consumed, so at most that many are ever buffered: more are requested as the consumer
     * takes them. Close the iterator (try-with-resources) to cancel the subscription when leaving
     * the loop before the end.
     *
     * @param publisher the publisher to subscribe to (subscribed now, so elements start arriving
     *     before the first {@code hasNext()})
     * @param prefetch how many elements to request ahead; at least 1
     * @param <T> the element type
     * @return an iterator that must be closed if not iterated to the end
     * @throws IllegalArgumentException if {@code prefetch < 1}
     * @throws NullPointerException if {@code publisher} is null
     */
    public static <T> FiberIterator<T> iterate(Publisher<T> publisher, int prefetch) {
        Objects.requireNonNull(publisher, "publisher must not be null");
        if (prefetch < 1) {
            throw new IllegalArgumentException("prefetch must be at least 1 (got " + prefetch
                    + "): it is how many elements are requested ahead of consumption");
        }
        IteratorSubscriber<T> iterator = new IteratorSubscriber<>(prefetch);
        publisher.subscribe(iterator);
        return iterator;
    }

    /**
     * publish(scheduler, producer) returns a cold publisher whose elements a fiber produces by
     * straight-line code. At each subscription the subscriber gets its subscription, then a task on
     * {@code scheduler} runs {@code producer} on a fiber:
     * <ul>
     *   <li>{@link Emitter#emit} delivers an element, suspending the fiber while the subscriber has
     *       requested nothing more (demand adds up and saturates at {@code Long.MAX_VALUE});
     *   <li>the producer returning completes the stream; throwing fails it with what it threw (after
     *       a cancel, anything but a {@link CancellationException} goes to Reactor's
     *       {@code Hooks.onErrorDropped}, as an error after cancel does with Reactor's own sources);
     *   <li>cancelling the subscription makes the pending or next {@code emit} throw
     *       {@link CancellationException}, so the producer unwinds and its {@code finally} blocks
     *       run; a subscription cancelled before its fiber started never runs the producer;
     *   <li>{@code request(n)} with {@code n <= 0} is reported to the subscriber as an
     *       {@link IllegalArgumentException} in {@code onError} (rule 3.9), at the producer's next
     *       {@code emit} or return, and that {@code emit} throws {@code CancellationException};
     *   <li>only the producer's own fiber may emit, until the producer returns: an {@code emit} from
     *       another thread or fiber, or through an emitter kept after the producer returned, throws
     *       {@link IllegalStateException} (see {@link Emitter}).
     * </ul>
     * If the scheduler rejects the task (it is closed), the subscriber gets that
     * {@link java.util.concurrent.RejectedExecutionException} in {@code onError}.
     *
     * <p>Lifetime: a producer waiting for demand keeps its fiber suspended for as long as nobody
     * requests or cancels. Such a fiber holds up {@link Scheduler#close()}, which waits for every
     * fiber to finish, so cancel the subscriptions you abandon (Reactor operators such as
     * {@code take} and {@code timeout} do). {@link Scheduler#close(java.time.Duration)} bounds that
     * wait: once its timeout has passed it cancels the fibers still suspended, so the producer's
     * pending {@code emit} throws a {@link org.marl4j.FiberCancelledException}, its
     * {@code finally} blocks run, and the close completes.
     *
     * @param scheduler where the producer runs; with no worker threads, subscribe from a thread bound
     *     to it
     * @param producer the body run once per subscription
     * @param <T> the element type
     * @return a publisher that passes the Reactive Streams TCK
     * @throws NullPointerException if an argument is null
     */
    public static <T> Publisher<T> publish(Scheduler scheduler, Producer<T> producer) {
        Objects.requireNonNull(scheduler, "scheduler must not be null");
        Objects.requireNonNull(producer, "producer must not be null");
        return new FiberPublisher<>(scheduler, producer);
    }

    private static <T> T await(Publisher<T> publisher, AwaitSubscriber.Mode mode) {
        Objects.requireNonNull(publisher, "publisher must not be null");
        AwaitSubscriber<T> subscriber = new AwaitSubscriber<>(mode);
        publisher.subscribe(subscriber);
        @SuppressWarnings("unchecked")
        T result = (T) subscriber.await();
        return result;
    }

    /**
     * checkMayWait(what) is called just before an await or iterate waits: off a fiber, on a thread
     * Reactor marks non-blocking, it refuses to block, as Reactor's own {@code block()} does there.
     * On a fiber the wait suspends only the fiber, so any thread is fine.
     *
     * @throws IllegalStateException on a Reactor non-blocking thread that is not running a fiber
     */
    static void checkMayWait(String what) {
        if (Schedulers.isInNonBlockingThread() && Fiber.current() == null) {
            throw new IllegalStateException(what + " would block thread " + Thread.currentThread().getName()
                    + ", which Reactor marks non-blocking, as Mono.block() refuses to; run it on a MarlScheduler "
                    + "fiber instead (publishOn or subscribeOn a MarlScheduler), where the wait suspends only the fiber");
        }
    }

    /** sneaky(error) throws error as itself, checked or not (the caller writes {@code throw sneaky(e)}). */
    @SuppressWarnings("unchecked")
    static <E extends Throwable> E sneaky(Throwable error) throws E {
        throw (E) error;
    }

    /** The publisher publish() returns: each subscription gets its own producer fiber. */
    private record FiberPublisher<T>(Scheduler scheduler, Producer<T> producer) implements Publisher<T> {
        @Override
        public void subscribe(Subscriber<? super T> subscriber) {
            Objects.requireNonNull(subscriber, "subscribe(null) violates Reactive Streams rule 1.9");
            FiberProducerSubscription<T> subscription = new FiberProducerSubscription<>(subscriber, producer);
            subscriber.onSubscribe(subscription);
            try {
                scheduler.enqueue(new Task(subscription));
            } catch (RuntimeException rejected) {
                subscription.startFailed(rejected);
            }
        }
    }
}
