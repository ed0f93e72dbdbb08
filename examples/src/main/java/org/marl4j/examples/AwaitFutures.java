package org.marl4j.examples;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.marl4j.Scheduler;
import org.marl4j.futures.Futures;
import org.marl4j.futures.MarlExecutorService;

/**
 * AwaitFutures is the README's "await a CompletableFuture from a fiber" snippet: a fiber task that
 * awaits asynchronous services one after another as if they were plain calls, with a timed await
 * that gives up on a slow one; then the README's cancellation snippet, an executor task that waits
 * for a future nobody completes and is cancelled. The services are stand-ins that complete a few
 * milliseconds later on the JDK's delayed executor.
 */
public final class AwaitFutures {
    private AwaitFutures() {}

    /**
     * main runs the snippet and prints its result.
     *
     * @param args ignored
     * @throws Exception if the cancellation snippet's task fails otherwise than by timing out
     */
    public static void main(String[] args) throws Exception {
        // readme:begin await-futures
        try (Scheduler scheduler = new Scheduler(Scheduler.Config.allCores())) {
            CompletableFuture<String> report = Futures.supplyAsync(scheduler, () -> {
                String user = Futures.await(findUser(42));                     // the fiber suspends here
                List<Integer> counts = Futures.awaitAll(countOrders(user), countVisits(user));
                String advice;
                try {
                    advice = Futures.await(recommend(user), Duration.ofMillis(50));
                } catch (TimeoutException e) {                                 // a timed await can time out
                    advice = "none in time";
                }
                return user + ": orders and visits " + counts + ", advice: " + advice;
            });
            System.out.println(report.join());
        }
        // readme:end await-futures

        // readme:begin cancel-await
        try (MarlExecutorService executor = new MarlExecutorService(Scheduler.Config.allCores())) {
            Future<String> task = executor.submit(() -> Futures.await(new CompletableFuture<String>())); // never completed
            try {
                System.out.println(task.get(50, TimeUnit.MILLISECONDS));
            } catch (TimeoutException e) {
                task.cancel(true);      // its wait throws FiberCancelledException: the task unwinds
                System.out.println("gave up after 50 ms");
            }
        }   // close() waits for the task, which without cancel(true) would wait for ever
        // readme:end cancel-await
    }

    // Stand-ins for asynchronous services (an HTTP client, a database driver, a cache).

    private static Executor after(long millis) {
        return CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS);
    }

    private static CompletableFuture<String> findUser(int id) {
        return CompletableFuture.supplyAsync(() -> "user" + id, after(5));
    }

    private static CompletableFuture<Integer> countOrders(String user) {
        return CompletableFuture.supplyAsync(() -> user.length(), after(5));
    }

    private static CompletableFuture<Integer> countVisits(String user) {
        return CompletableFuture.supplyAsync(() -> 7, after(3));
    }

    private static CompletableFuture<String> recommend(String user) {
        return CompletableFuture.supplyAsync(() -> "try marl4j", after(10_000));   // far too slow
    }
}
