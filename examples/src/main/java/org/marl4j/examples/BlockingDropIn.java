package org.marl4j.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import org.marl4j.Scheduler;
import org.marl4j.futures.MarlExecutorService;

/**
 * BlockingDropIn is the README's "existing blocking code" snippet: a request handler written for a
 * thread per request (it keeps its request id in a {@link ThreadLocal} and makes a plain blocking
 * call, {@code Thread.sleep} standing in for JDBC) runs unchanged on a {@link MarlExecutorService}.
 * On the {@code VIRTUAL_THREADS} engine the blocking call suspends only the request's fiber and the
 * {@code ThreadLocal} is the fiber's own; on {@code CONTINUATIONS} the answers are the same, but
 * each call holds its worker thread while it sleeps.
 */
public final class BlockingDropIn {
    private BlockingDropIn() {}

    // readme:begin blocking-drop-in-handler
    static final ThreadLocal<String> REQUEST_ID = new ThreadLocal<>();   // a logging MDC, say

    static String handle(String requestId) throws InterruptedException {  // code written for threads
        REQUEST_ID.set(requestId);
        try {
            Thread.sleep(1);                        // a JDBC query, say: blocks a thread, or suspends a fiber
            return REQUEST_ID.get();                // still this request's id
        } finally {
            REQUEST_ID.remove();
        }
    }
    // readme:end blocking-drop-in-handler

    /**
     * main runs 1,000 requests through the handler on a marl4j executor and checks that every one
     * read back its own request id.
     *
     * @param args ignored
     * @throws Exception if a request fails
     */
    public static void main(String[] args) throws Exception {
        // readme:begin blocking-drop-in
        try (MarlExecutorService executor = new MarlExecutorService(Scheduler.Config.allCores())) {
            List<Future<String>> replies = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                String id = "request-" + i;
                replies.add(executor.submit(() -> handle(id)));
            }
            int own = 0;
            for (int i = 0; i < replies.size(); i++) {
                own += replies.get(i).get().equals("request-" + i) ? 1 : 0;
            }
            System.out.println(own + " of 1000 requests read back their own id (" + executor.scheduler().fiberEngine() + ")");
        }
        // readme:end blocking-drop-in
    }
}
