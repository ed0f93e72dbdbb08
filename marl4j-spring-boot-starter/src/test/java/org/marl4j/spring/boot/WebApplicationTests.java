package org.marl4j.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.marl4j.Fiber;
import org.marl4j.Scheduler;
import org.marl4j.futures.Futures;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.jetty.servlet.JettyServletWebServerFactory;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The tests of a Spring MVC application on the starter, served on 127.0.0.1 by the embedded web
 * server its subclass chooses ({@link TomcatApplicationTest}, {@link JettyApplicationTest}).
 */
abstract class WebApplicationTests {
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @LocalServerPort
    int port;

    @Autowired
    Scheduler scheduler;

    @Autowired
    WebServerApplicationContext context;

    /** The simple name of the web server class the subclass chose. */
    abstract String webServer();

    /** The name tag of the web server's executor meters. */
    abstract String webServerExecutor();

    @AfterEach
    void closeClient() {
        client.close();
    }

    @Test
    void webServer_isTheOneChosen() {
        assertThat(context.getWebServer().getClass().getSimpleName()).isEqualTo(webServer());
    }

    @Test
    void requestHandler_runsOnAFiberOfTheSchedulerBean() throws Exception {
        assertThat(get("/fiber")).isEqualTo("fiber of " + scheduler);
    }

    @Test
    void asyncMethod_runsOnAFiberOfTheSchedulerBean() throws Exception {
        assertThat(get("/async")).isEqualTo("fiber of " + scheduler);
    }

    @Test
    void asyncRequestProcessing_runsTheCallableOnAFiber() throws Exception {
        assertThat(get("/callable")).isEqualTo("fiber of " + scheduler);
    }

    @Test
    void manyConcurrentRequests_allAnswered() {
        // More requests at once than worker threads: each handler suspends its fiber on the
        // @Async result, so all are in flight together.
        var responses = java.util.stream.IntStream.range(0, 50)
                .mapToObj(i -> client.sendAsync(request("/async"), HttpResponse.BodyHandlers.ofString()))
                .toList();
        for (var response : responses) {
            HttpResponse<String> r = response.orTimeout(60, java.util.concurrent.TimeUnit.SECONDS).join();
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("fiber of " + scheduler);
        }
    }

    @Test
    void actuatorMetrics_showTheSchedulerAndTheExecutorsOnIt() throws Exception {
        get("/async");
        assertThat(get("/actuator/metrics/executor.completed?tag=name:marl4j")).contains("\"COUNT\"");
        assertThat(get("/actuator/metrics/marl4j.fibers.created?tag=name:marl4j")).contains("\"COUNT\"");
        assertThat(get("/actuator/metrics/executor.completed?tag=name:applicationTaskExecutor")).contains("\"COUNT\"");
        assertThat(get("/actuator/metrics/executor.completed?tag=name:" + webServerExecutor())).contains("\"COUNT\"");
    }

    private String get(String path) throws Exception {
        HttpResponse<String> response = client.send(request(path), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }

    private HttpRequest request(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30)).build();
    }

    /** Where the calling code runs: "fiber of" its scheduler, or the thread's name. */
    static String where() {
        return Fiber.current() != null ? "fiber of " + Scheduler.get() : "thread " + Thread.currentThread();
    }

    /** The application: one controller, one @Async method, and the properties of every subclass. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableAsync
    @Import({FiberController.class, AsyncWork.class})
    static class App {
    }

    /** Tomcat, whichever server Boot would pick: both are on the test class path. */
    @Configuration(proxyBeanMethods = false)
    static class Tomcat {
        @Bean
        TomcatServletWebServerFactory tomcatFactory() {
            return new TomcatServletWebServerFactory();
        }
    }

    /** Jetty, whichever server Boot would pick: both are on the test class path. */
    @Configuration(proxyBeanMethods = false)
    static class Jetty {
        @Bean
        JettyServletWebServerFactory jettyFactory() {
            return new JettyServletWebServerFactory();
        }
    }

    @RestController
    static class FiberController {
        private final AsyncWork work;

        FiberController(AsyncWork work) {
            this.work = work;
        }

        @GetMapping("/fiber")
        String fiber() {
            return where();
        }

        @GetMapping("/async")
        String async() {
            // Futures.await suspends only this handler's fiber, on either fiber engine.
            return Futures.await(work.where());
        }

        @GetMapping("/callable")
        Callable<String> callable() {
            return WebApplicationTests::where;
        }
    }

    static class AsyncWork {
        @Async
        public CompletableFuture<String> where() {
            return CompletableFuture.completedFuture(WebApplicationTests.where());
        }
    }
}
