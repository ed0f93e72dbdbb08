package org.marl4j.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;

/** Both routes into Reactor's error handling reach the onHandleError hooks with the error itself. */
class ReactorErrorsTest {
    private static final String HOOK = "marl4j-errors-test";

    @AfterEach
    void reset() {
        Schedulers.resetOnHandleError(HOOK);
    }

    @Test
    void onTheClassPath_theDirectRouteIsUsed() {
        assertEquals(ReactorErrors.Route.DIRECT, ReactorErrors.route());
    }

    @Test
    void directRoute_reachesTheHooksWithTheErrorAndTheThread() {
        List<Object> seen = new CopyOnWriteArrayList<>();
        Schedulers.onHandleError(HOOK, (thread, error) -> seen.addAll(List.of(thread, error)));
        IllegalStateException boom = new IllegalStateException("direct");
        withQuietThreadHandler(() -> ReactorErrors.handle(boom));
        assertEquals(List.of(Thread.currentThread(), boom), seen);
    }

    @Test
    void funnelRoute_reachesTheHooksWithTheErrorItself() {
        List<Throwable> seen = new CopyOnWriteArrayList<>();
        Schedulers.onHandleError(HOOK, (thread, error) -> seen.add(error));
        IllegalStateException boom = new IllegalStateException("funnel");
        withQuietThreadHandler(() -> new ReactorErrors(null).report(boom));
        assertEquals(1, seen.size());
        assertSame(boom, seen.get(0));
    }

    @Test
    void aHookThatThrows_stillLeavesTheErrorWithTheThreadsHandler() {
        Schedulers.onHandleError(HOOK, (thread, error) -> {
            throw new IllegalStateException("hook failed");
        });
        IllegalStateException boom = new IllegalStateException("boom");
        List<Throwable> handled = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler previous = Thread.currentThread().getUncaughtExceptionHandler();
        Thread.currentThread().setUncaughtExceptionHandler((t, e) -> handled.add(e));
        try {
            ReactorErrors.handle(boom); // must not throw
        } finally {
            Thread.currentThread().setUncaughtExceptionHandler(previous);
        }
        assertSame(boom, handled.get(handled.size() - 1));
        assertEquals("hook failed", boom.getSuppressed()[0].getMessage());
    }

    /** Reactor also tells the thread's handler, which would print the expected error: keep the log clean. */
    private static void withQuietThreadHandler(Runnable body) {
        Thread.UncaughtExceptionHandler previous = Thread.currentThread().getUncaughtExceptionHandler();
        Thread.currentThread().setUncaughtExceptionHandler((t, e) -> {});
        try {
            body.run();
        } finally {
            Thread.currentThread().setUncaughtExceptionHandler(previous);
        }
    }
}
