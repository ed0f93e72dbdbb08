package org.marl4j.reactive;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.marl4j.Fiber;
import org.marl4j.ForEachWorkerCount;
import org.marl4j.Scheduler;
import org.marl4j.TestSchedulers;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/** Publishers.publish: a fiber producer driven by the subscriber's demand. */
class PublishTest {
    @ForEachWorkerCount
    void theProducerRunsOnAFiber_andReturningCompletes(int workers) {
        TestSchedulers.withScheduler(workers, scheduler -> {
            Publisher<Integer> p = Publishers.publish(scheduler, emitter -> {
                for (int i = 0; i < 100; i++) {
                    emitter.emit(Fiber.current() != null ? i : -1);
                }
            });
            List<Integer> got = TestSchedulers.runOnFiber(scheduler, () -> Publishers.awaitList(p));
            assertEquals(java.util.stream.IntStream.range(0, 100).boxed().toList(), got);
        });
    }

    @Test
    void emit_suspendsTheProducerWhileDemandIsZero() {
        withWorkers(2, scheduler -> {
            AtomicInteger attempts = new AtomicInteger();
            Publisher<Integer> p = Publishers.publish(scheduler, emitter -> {
                for (int i = 0; ; i++) {
                    attempts.incrementAndGet();
                    emitter.emit(i);
                }
            });
            Recorder<Integer> r = new Recorder<>();
            p.subscribe(r);
            r.subscription.request(1);
            await().atMost(TestSchedulers.PATIENCE).until(() -> attempts.get() == 2); // now waiting in the second emit
            assertEquals(List.of(0), List.copyOf(r.items), "emitted without demand");
            r.subscription.request(2);
            await().atMost(TestSchedulers.PATIENCE).until(() -> r.items.size() == 3 && attempts.get() == 4);
            assertEquals(List.of(0, 1, 2), List.copyOf(r.items));
            r.subscription.cancel();
        });
    }

    @Test
    void cancel_makesThePendingEmitThrow_soTheProducerUnwinds() {
        withWorkers(1, scheduler -> {
            Unwinding<Integer> producer = new Unwinding<>(emitter -> {
                emitter.emit(1);
                emitter.emit(2); // waits for demand that never comes
            });
            Publisher<Integer> p = Publishers.publish(scheduler, producer);
            Recorder<Integer> r = new Recorder<>();
            p.subscribe(r);
            r.subscription.request(1);
            await().atMost(TestSchedulers.PATIENCE).until(() -> r.items.size() == 1);
            r.subscription.cancel();
            assertTrue(TestSchedulers.get(producer.thrown) instanceof CancellationException);
            await().atMost(TestSchedulers.PATIENCE).untilTrue(producer.finallyRan);
            assertEquals(0, r.terminals.get(), "no terminal signal after cancel");
        });
    }

    /** The producer's javadoc promises this: an abandoned producer does not hold up a bounded close. */
    @Test
    void anAbandonedProducer_isCancelledByABoundedClose() {
        Scheduler scheduler = new Scheduler(new Scheduler.Config().setWorkerThreadCount(1));
        Unwinding<Integer> producer = new Unwinding<>(emitter -> {
            emitter.emit(1); // nobody requests nor cancels: waits for good
        });
        Publisher<Integer> p = Publishers.publish(scheduler, producer);
        Recorder<Integer> r = new Recorder<>();
        p.subscribe(r);
        await().atMost(TestSchedulers.PATIENCE).until(() -> scheduler.suspendedFibers().size() == 1);
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(TestSchedulers.PATIENCE,
                () -> scheduler.close(java.time.Duration.ZERO));
        assertTrue(TestSchedulers.get(producer.thrown) instanceof org.marl4j.FiberCancelledException);
        assertTrue(producer.finallyRan.get());
        assertTrue(r.items.isEmpty());
    }

    @Test
    void aThrowingProducer_failsTheStreamWithWhatItThrew() {
        withWorkers(1, scheduler -> {
            IllegalStateException boom = new IllegalStateException("boom");
            StepVerifier.create(Publishers.publish(scheduler, emitter -> {
                        emitter.emit("a");
                        throw boom;
                    }))
                    .expectNext("a")
                    .expectErrorMatches(e -> e == boom)
                    .verify(TestSchedulers.PATIENCE);
            java.io.IOException checked = new java.io.IOException("checked");
            StepVerifier.create(Publishers.<String>publish(scheduler, emitter -> {
                        throw checked;
                    }))
                    .expectErrorMatches(e -> e == checked)
                    .verify(TestSchedulers.PATIENCE);
        });
    }

    @Test
    void requestOfZeroOrLess_isAnIllegalArgumentInOnError() {
        withWorkers(1, scheduler -> {
            AtomicBoolean unwound = new AtomicBoolean();
            Publisher<Integer> p = Publishers.publish(scheduler, emitter -> {
                try {
                    while (true) {
                        emitter.emit(1);
                    }
                } finally {
                    unwound.set(true);
                }
            });
            Recorder<Integer> r = new Recorder<>();
            p.subscribe(r);
            r.subscription.request(0);
            await().atMost(TestSchedulers.PATIENCE).until(() -> r.error.get() != null);
            assertTrue(r.error.get() instanceof IllegalArgumentException);
            assertTrue(r.error.get().getMessage().contains("3.9"));
            await().atMost(TestSchedulers.PATIENCE).untilTrue(unwound);
        });
    }

    @Test
    void demandSaturatesAtLongMaxValue() {
        withWorkers(2, scheduler -> {
            Publisher<Integer> p = Publishers.publish(scheduler, emitter -> {
                for (int i = 0; i < 1_000; i++) {
                    emitter.emit(i);
                }
            });
            Recorder<Integer> r = new Recorder<>();
            p.subscribe(r);
            r.subscription.request(Long.MAX_VALUE);
            r.subscription.request(Long.MAX_VALUE); // would overflow without saturation
            await().atMost(TestSchedulers.PATIENCE).until(() -> r.terminals.get() == 1);
            assertEquals(1_000, r.items.size());
        });
    }

    @Test
    void eachSubscriptionRunsItsOwnProducer_andReactorOperatorsCompose() {
        withWorkers(2, scheduler -> {
            AtomicInteger runs = new AtomicInteger();
            Publisher<Integer> p = Publishers.publish(scheduler, emitter -> {
                runs.incrementAndGet();
                for (int i = 1; ; i++) {
                    emitter.emit(i);
                }
            });
            StepVerifier.create(Flux.from(p).take(5)).expectNext(1, 2, 3, 4, 5).expectComplete().verify(TestSchedulers.PATIENCE);
            StepVerifier.create(Flux.from(p).map(x -> x * 10).take(2)).expectNext(10, 20).expectComplete().verify(TestSchedulers.PATIENCE);
            assertEquals(2, runs.get());
        });
    }

    @Test
    void aClosedScheduler_failsTheSubscriptionWithRejectedExecution() {
        Scheduler scheduler = new Scheduler(TestSchedulers.config(1));
        scheduler.close();
        StepVerifier.create(Publishers.publish(scheduler, emitter -> emitter.emit(1)))
                .expectError(RejectedExecutionException.class)
                .verify(TestSchedulers.PATIENCE);
    }

    @Test
    void badArguments_areRejected() {
        withWorkers(1, scheduler -> {
            assertThrows(NullPointerException.class, () -> Publishers.publish(null, e -> {}));
            assertThrows(NullPointerException.class, () -> Publishers.publish(scheduler, null));
            StepVerifier.create(Publishers.<String>publish(scheduler, e -> e.emit(null)))
                    .expectError(NullPointerException.class)
                    .verify(TestSchedulers.PATIENCE);
        });
    }

    @Test
    void emit_fromAnotherThread_throwsIllegalState_andNeverReachesTheSubscriber() {
        withWorkers(2, scheduler -> {
            CompletableFuture<Throwable> foreign = new CompletableFuture<>();
            ConcurrentLinkedQueue<String> onNextThreads = new ConcurrentLinkedQueue<>();
            Publisher<Integer> p = Publishers.publish(scheduler, emitter -> {
                TestSchedulers.startThread("foreign-emitter", () -> {
                    try {
                        emitter.emit(-1);
                        foreign.complete(null);
                    } catch (Throwable t) {
                        foreign.complete(t);
                    }
                });
                TestSchedulers.get(foreign); // suspends this fiber until the other thread has tried
                emitter.emit(1);
            });
            StepVerifier.create(Flux.from(p).doOnNext(x -> onNextThreads.add(Thread.currentThread().getName())))
                    .expectNext(1)
                    .expectComplete()
                    .verify(TestSchedulers.PATIENCE);
            Throwable refused = foreign.join();
            assertInstanceOf(IllegalStateException.class, refused, "an emit from another thread was accepted");
            assertTrue(refused.getMessage().contains("only the producer may emit"), refused.getMessage());
            assertFalse(onNextThreads.contains("foreign-emitter"), "onNext ran on the foreign thread");
        });
    }

    @Test
    void emit_fromAnotherFiber_throwsIllegalState() {
        withWorkers(2, scheduler -> {
            CompletableFuture<Throwable> otherFiber = new CompletableFuture<>();
            Publisher<Integer> p = Publishers.publish(scheduler, emitter -> {
                scheduler.enqueue(new org.marl4j.Task(() -> {
                    try {
                        emitter.emit(-1);
                        otherFiber.complete(null);
                    } catch (Throwable t) {
                        otherFiber.complete(t);
                    }
                }));
                TestSchedulers.get(otherFiber);
                emitter.emit(1);
            });
            StepVerifier.create(p).expectNext(1).expectComplete().verify(TestSchedulers.PATIENCE);
            assertInstanceOf(IllegalStateException.class, otherFiber.join(), "an emit from another fiber was accepted");
        });
    }

    @Test
    void emit_afterTheProducerReturned_throwsIllegalState_sayingTheStreamHasCompleted() {
        withWorkers(1, scheduler -> {
            java.util.concurrent.atomic.AtomicReference<Emitter<Integer>> leaked = new java.util.concurrent.atomic.AtomicReference<>();
            Publisher<Integer> p = Publishers.publish(scheduler, emitter -> {
                leaked.set(emitter);
                emitter.emit(1);
            });
            StepVerifier.create(p).expectNext(1).expectComplete().verify(TestSchedulers.PATIENCE);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> leaked.get().emit(2));
            assertTrue(e.getMessage().contains("stream completed already"), e.getMessage());
            assertFalse(e.getMessage().contains("cancel"), "nobody cancelled: " + e.getMessage());
            // from a fiber of the same scheduler too (it may be the very fiber the producer ran on)
            Throwable onFiber = TestSchedulers.runOnFiber(scheduler, () -> {
                try {
                    leaked.get().emit(3);
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            assertInstanceOf(IllegalStateException.class, onFiber);
        });
    }

    /**
     * A failure the producer throws after its subscriber cancelled (here its clean-up failing as it
     * unwinds) can no longer go to onError: as with Reactor's own sources (a FluxSink's error after
     * cancel), it goes to the onErrorDropped hooks rather than vanishing. The CancellationException
     * that emit throws is how a producer is told to stop, and is not reported.
     */
    @ForEachWorkerCount
    void aFailureAfterCancel_goesToOnErrorDropped_notTheCancellationItself(int workers) {
        java.util.Queue<Throwable> dropped = new ConcurrentLinkedQueue<>();
        CompletableFuture<Void> someDropped = new CompletableFuture<>();
        reactor.core.publisher.Hooks.onErrorDropped(error -> {
            dropped.add(error);
            someDropped.complete(null);
        });
        try {
            withWorkers(workers, scheduler -> {
                java.io.IOException cleanup = new java.io.IOException("clean-up failed");
                java.io.Closeable resource = () -> {
                    throw cleanup;
                };
                CompletableFuture<Void> quietUnwound = new CompletableFuture<>();
                Publisher<Integer> unwindsQuietly = Publishers.publish(scheduler, emitter -> {
                    try {
                        for (int i = 0; ; i++) {
                            emitter.emit(i);
                        }
                    } finally {
                        quietUnwound.complete(null);
                    }
                });
                Publisher<Integer> failsAsItUnwinds = Publishers.publish(scheduler, emitter -> {
                    try {
                        for (int i = 0; ; i++) {
                            emitter.emit(i);
                        }
                    } finally {
                        resource.close(); // replaces the CancellationException
                    }
                });
                assertEquals(0, TestSchedulers.runOnFiber(scheduler, () -> firstOf(unwindsQuietly)));
                TestSchedulers.runOnFiber(scheduler, () -> TestSchedulers.get(quietUnwound));
                assertEquals(0, TestSchedulers.runOnFiber(scheduler, () -> firstOf(failsAsItUnwinds)));
                TestSchedulers.runOnFiber(scheduler, () -> TestSchedulers.get(someDropped)); // waits on a fiber: 0 workers too
                assertEquals(List.of(cleanup), List.copyOf(dropped), "only the clean-up's failure is reported");
            });
        } finally {
            reactor.core.publisher.Hooks.resetOnErrorDropped();
        }
    }

    private static <T> T firstOf(Publisher<T> publisher) {
        try (FiberIterator<T> it = Publishers.iterate(publisher, 1)) {
            return it.next(); // close() cancels the producer, which is waiting in its second emit
        }
    }

    private static void withWorkers(int workers, java.util.function.Consumer<Scheduler> body) {
        TestSchedulers.withScheduler(workers, body);
    }

    /** A subscriber that requests nothing by itself and records every signal. */
    static final class Recorder<T> implements Subscriber<T> {
        volatile Subscription subscription;
        final ConcurrentLinkedQueue<T> items = new ConcurrentLinkedQueue<>();
        final AtomicInteger terminals = new AtomicInteger();
        final java.util.concurrent.atomic.AtomicReference<Throwable> error = new java.util.concurrent.atomic.AtomicReference<>();

        @Override
        public void onSubscribe(Subscription s) {
            subscription = s;
        }

        @Override
        public void onNext(T item) {
            items.add(item);
        }

        @Override
        public void onError(Throwable t) {
            error.set(t);
            terminals.incrementAndGet();
        }

        @Override
        public void onComplete() {
            terminals.incrementAndGet();
        }
    }

    /** Unwinding runs a producer body and records how it ended: what it threw, and that its finally blocks ran. */
    private static final class Unwinding<T> implements Producer<T> {
        final CompletableFuture<Throwable> thrown = new CompletableFuture<>();
        final AtomicBoolean finallyRan = new AtomicBoolean();
        private final Producer<T> body;

        Unwinding(Producer<T> body) {
            this.body = body;
        }

        @Override
        public void produce(Emitter<T> emitter) throws Exception {
            try {
                body.produce(emitter);
            } catch (Throwable t) {
                thrown.complete(t);
                throw t;
            } finally {
                finallyRan.set(true);
            }
        }
    }
}
