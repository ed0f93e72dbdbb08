package org.marl4j.spring.boot;

import org.springframework.boot.test.context.SpringBootTest;

/**
 * With Spring Boot's own virtual threads switched on too, requests and @Async methods on embedded
 * Jetty still run on marl4j fibers: the starter replaces Boot's VirtualThreadPool.
 */
@SpringBootTest(classes = {WebApplicationTests.App.class, WebApplicationTests.Jetty.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"server.address=127.0.0.1", "marl4j.worker-threads=2", "management.endpoints.web.exposure.include=metrics",
                "spring.threads.virtual.enabled=true"})
class VirtualThreadsJettyApplicationTest extends WebApplicationTests {
    @Override
    String webServer() {
        return "JettyServletWebServer";
    }

    @Override
    String webServerExecutor() {
        return "jetty";
    }
}
