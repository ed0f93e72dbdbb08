package org.marl4j.examples.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.servlet.Filter;
import org.junit.jupiter.api.AfterAll;
import org.marl4j.Fiber;
import org.marl4j.FiberEngine;
import org.marl4j.Scheduler;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * BankApplicationTest starts {@link BankApplication} on 127.0.0.1 on a random port, served on
 * marl4j through its starter with the fiber engine of the run ({@code -Dorg.marl4j.fiberEngine},
 * which the build sets), and drives it with the JDK's {@link HttpClient}: many concurrent clients,
 * each sending its own request ids. Every answer is checked, every log line of the application
 * must carry the id of the request it was logged for (the MDC is a ThreadLocal: a request that saw
 * another's would show it), and the database must be consistent afterwards. The start-up lines,
 * captured from the context's first, must name the fiber engine the requests run on.
 *
 * <p>On CONTINUATIONS a fiber's ThreadLocals are its worker thread's, shared with the other fibers
 * of that worker; the MDC still holds one request's id at a time there because nothing in a request
 * suspends its fiber on that engine: JDBC, the connection pool and H2's row locks block the worker
 * thread, and the next request's fiber starts only when this one has ended.
 */
class BankApplicationTest {
    /** Concurrent clients, each with its own connection(s) and a sequence of requests. */
    private static final int CLIENTS = 200;
    /** Requests each client sends, one after another. */
    private static final int REQUESTS_PER_CLIENT = 20;
    /** Every request and the whole load end within this, or the test fails instead of hanging. */
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    /**
     * The request-id part of a log line: Boot's pattern with logging.pattern.correlation=[%X{requestId:-}]
     * prints "[app] [thread] [id] logger : message"; the id is the bracket right before the logger.
     */
    private static final Pattern LOGGED_ID = Pattern.compile("\\[([A-Za-z0-9._-]*)\\] \\S+ +: ");
    /** The id a handler names in its message: "(request ID)". */
    private static final Pattern NAMED_ID = Pattern.compile("\\(request ([A-Za-z0-9._-]+)\\)$");
    /** The application's own loggers, each line of which is logged while handling a request. */
    private static final String APP_LOGGERS = BankApplication.class.getPackageName() + ".";

    /** Requests that reached the servlet filters on a thread that runs no marl4j fiber. */
    private static final AtomicLong OFF_FIBER = new AtomicLong();

    private static ConfigurableApplicationContext app;
    private static LogLines logs;
    /** The lines logged while the application started. */
    private static List<LogLines.Line> startup;
    private static HttpClient client;
    private static String base;

    @BeforeAll
    static void start() {
        // A filter of the test's own, beside the application's: it counts requests served off marl4j.
        Filter onFiber = (request, response, chain) -> {
            if (Fiber.current() == null) {
                OFF_FIBER.incrementAndGet();
            }
            chain.doFilter(request, response);
        };
        app = new SpringApplicationBuilder(BankApplication.class)
                .initializers(context -> {
                    context.getBeanFactory().registerSingleton("onFiberCheck", onFiber);
                    // Boot's logging is set up by now: the capture starts before the context logs
                    // anything of its own, so it holds the start-up lines a user reads first.
                    logs = LogLines.attach();
                })
                .properties(
                "server.address=127.0.0.1",
                "server.port=0",
                // The test reads every line through LogLines; the console shows only trouble.
                "logging.threshold.console=WARN",
                "spring.main.banner-mode=off").run();
        startup = logs.drain();
        base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(PATIENCE).build();
    }

    @AfterAll
    static void stop() {
        if (logs != null) {
            logs.close();
        }
        if (client != null) {
            client.close();
        }
        if (app != null) {
            app.close();
        }
    }

    @Test
    void concurrentClients_everyAnswerRight_everyLogLineCarriesItsRequestsId_moneyConserved() throws Exception {
        logs.drain();
        assertEquals(FiberEngine.defaultEngine(), app.getBean(Scheduler.class).fiberEngine(), "the run's engine");
        long offFiberBefore = OFF_FIBER.get();
        Map<String, Expected> expected = new ConcurrentHashMap<>();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int clientId = c;
                running.add(clients.submit(() -> {
                    runClient(clientId, expected);
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(PATIENCE.toSeconds(), TimeUnit.SECONDS); // a client's failure fails the test here
            }
        }
        assertEquals(CLIENTS * REQUESTS_PER_CLIENT, expected.size(), "requests answered");
        assertEquals(offFiberBefore, OFF_FIBER.get(), "requests handled off marl4j's fibers");
        checkLogLines(expected);
        checkDatabase(expected);
    }

    /** The starter names, at INFO while the application starts, the fiber engine the requests run on. */
    @Test
    void startup_logsTheFiberEngineTheRequestsRunOn() {
        FiberEngine engine = app.getBean(Scheduler.class).fiberEngine();
        assertTrue(startup.stream().anyMatch(line -> line.logger().startsWith("org.marl4j.spring.boot.")
                        && line.text().contains(" INFO ") && line.text().contains(" runs its fibers on " + engine + " ")),
                () -> "no line naming the " + engine + " engine among the start-up lines:\n"
                        + String.join("\n", startup.stream().map(LogLines.Line::text).toList()));
    }

    @Test
    void requestWithoutAnId_getsAGeneratedOne_inTheAnswerAndTheLog() throws Exception {
        logs.drain();
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(base + "/accounts/7"))
                .timeout(PATIENCE).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        String id = response.headers().firstValue(RequestIdFilter.HEADER).orElseThrow();
        assertTrue(id.matches("[0-9a-f-]{36}"), id);
        assertTrue(response.body().contains("\"requestId\":\"" + id + "\""), response.body());
        assertEquals(2, appLinesWith(id), "the handler's line and the filter's line");
    }

    @Test
    void requestIdThatCouldForgeALogLine_isReplaced() throws Exception {
        logs.drain();
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(base + "/accounts/7"))
                .header(RequestIdFilter.HEADER, "x] [forged").timeout(PATIENCE).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        String id = response.headers().firstValue(RequestIdFilter.HEADER).orElseThrow();
        assertNotEquals("x] [forged", id);
        assertEquals(2, appLinesWith(id));
    }

    /** What a request was answered: its status and, for a transfer, the transfer's id. */
    private record Expected(String path, int status, long transferId) {}

    /**
     * runClient(c, expected) sends the client's requests one after another: balance reads, transfers
     * between random accounts, and one read of an account that does not exist. Checks each answer.
     */
    private static void runClient(int c, Map<String, Expected> expected) throws IOException, InterruptedException {
        SplittableRandom random = new SplittableRandom(c);
        for (int r = 0; r < REQUESTS_PER_CLIENT; r++) {
            String id = String.format("client%03d-request%02d", c, r);
            long from = 1 + random.nextInt(Bank.ACCOUNTS);
            long to = 1 + (from + random.nextInt(Bank.ACCOUNTS - 1)) % Bank.ACCOUNTS; // never from
            HttpRequest.Builder request;
            if (r == 0) {
                request = HttpRequest.newBuilder(URI.create(base + "/accounts/" + (Bank.ACCOUNTS + 1)));
            } else if (r % 4 == 1) {
                request = HttpRequest.newBuilder(URI.create(base + "/accounts/" + from));
            } else {
                request = HttpRequest.newBuilder(URI.create(base + "/transfers?from=" + from + "&to=" + to
                        + "&amount=" + (1 + random.nextInt(10)))).POST(HttpRequest.BodyPublishers.noBody());
            }
            HttpResponse<String> response = client.send(request.header(RequestIdFilter.HEADER, id).timeout(PATIENCE).build(),
                    HttpResponse.BodyHandlers.ofString());
            String path = response.request().uri().getPath();
            String body = response.body();
            assertEquals(id, response.headers().firstValue(RequestIdFilter.HEADER).orElse(null), body);
            long transferId = -1;
            if (r == 0) {
                assertEquals(404, response.statusCode(), body);
            } else if (path.startsWith("/accounts/")) {
                assertEquals(200, response.statusCode(), body);
                assertTrue(body.contains("\"id\":" + from + ",") && body.contains("\"requestId\":\"" + id + "\""), body);
            } else {
                assertEquals(201, response.statusCode(), body); // 1,000 each, at most 10 a transfer: never short
                assertTrue(body.contains("\"from\":" + from + ",") && body.contains("\"requestId\":\"" + id + "\""), body);
                Matcher m = Pattern.compile("\"id\":(\\d+)").matcher(body);
                assertTrue(m.find(), body);
                transferId = Long.parseLong(m.group(1));
            }
            expected.put(id, new Expected(path, response.statusCode(), transferId));
        }
    }

    /**
     * checkLogLines(expected): each request logged exactly two lines (its handler's and the
     * filter's), both carrying its id, and the id the handler names is the one its line carries.
     */
    private static void checkLogLines(Map<String, Expected> expected) {
        Map<String, Integer> linesPerId = new HashMap<>();
        for (LogLines.Line line : logs.drain()) {
            if (!line.logger().startsWith(APP_LOGGERS)) {
                continue;
            }
            String id = loggedId(line);
            assertTrue(expected.containsKey(id), () -> "a line logged for no request sent: " + line.text());
            Matcher named = NAMED_ID.matcher(line.text());
            if (named.find()) {
                assertEquals(named.group(1), id, () -> "a handler's line carries another request's id: " + line.text());
            }
            linesPerId.merge(id, 1, Integer::sum);
        }
        for (String id : expected.keySet()) {
            assertEquals(2, linesPerId.getOrDefault(id, 0), "log lines of request " + id);
        }
    }

    /**
     * checkDatabase(expected): the money is all there, each balance is its opening balance moved by
     * the recorded transfers, and the transfers are exactly those answered, with their requests' ids.
     */
    private static void checkDatabase(Map<String, Expected> expected) {
        JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
        assertEquals(Bank.ACCOUNTS * Bank.OPENING_BALANCE,
                jdbc.queryForObject("SELECT SUM(balance) FROM account", Long.class), "money in all accounts");
        assertEquals(0, jdbc.queryForObject("""
                SELECT COUNT(*) FROM account a WHERE a.balance <> ?
                    - (SELECT COALESCE(SUM(amount), 0) FROM transfer t WHERE t.from_account = a.id)
                    + (SELECT COALESCE(SUM(amount), 0) FROM transfer t WHERE t.to_account = a.id)
                """, Long.class, Bank.OPENING_BALANCE), "accounts whose balance disagrees with their transfers");
        Map<String, Long> recorded = new HashMap<>();
        jdbc.query("SELECT id, request_id FROM transfer", row -> {
            recorded.put(row.getString("request_id"), row.getLong("id"));
        });
        Map<String, Long> answered = new HashMap<>();
        expected.forEach((id, e) -> {
            if (e.status() == 201) {
                answered.put(id, e.transferId());
            }
        });
        assertEquals(answered, recorded, "transfers recorded against transfers answered, by request id");
    }

    /** loggedId(line) is the request id the line's pattern printed ("" outside a request). */
    private static String loggedId(LogLines.Line line) {
        Matcher logged = LOGGED_ID.matcher(line.text());
        assertTrue(logged.find(), () -> "no request id in " + line.text());
        return logged.group(1);
    }

    private static long appLinesWith(String id) {
        return logs.drain().stream()
                .filter(l -> l.logger().startsWith(APP_LOGGERS) && id.equals(loggedId(l)))
                .count();
    }
}
