package org.marl4j.examples;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.marl4j.FiberCallback;
import org.marl4j.Scheduler;
import org.marl4j.futures.Futures;

/**
 * AwaitWithCallback is the README's {@code FiberCallback} snippet: a fiber hands a one-shot
 * callback to an asynchronous API (here a CompletableFuture's whenComplete, standing for any
 * callback-based client) and suspends until the callback has run.
 */
public final class AwaitWithCallback {
    private AwaitWithCallback() {}

    /**
     * main awaits a value that arrives 5 ms later on another thread, and prints it.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        try (Scheduler scheduler = new Scheduler(Scheduler.Config.allCores())) {
            CompletableFuture<String> printed = Futures.supplyAsync(scheduler, () -> {
                CompletableFuture<String> future = CompletableFuture.supplyAsync(
                        () -> "arrived", CompletableFuture.delayedExecutor(5, TimeUnit.MILLISECONDS));
                // readme:begin fiber-callback
                FiberCallback done = FiberCallback.forCurrentFiber();   // null when not on a fiber:
                if (done == null) {
                    return future.join();                               // there, block the thread instead
                }
                future.whenComplete(done);                              // any callback: done.run() from any thread
                done.await();                                           // suspends this fiber until it has run
                // readme:end fiber-callback
                return future.resultNow();
            });
            System.out.println(printed.join());
        }
    }
}
