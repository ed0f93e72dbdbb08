package org.marl4j.spring.boot;

import org.springframework.boot.test.context.SpringBootTest;

/** Requests and @Async methods of an application on embedded Jetty run on marl4j fibers. */
@SpringBootTest(classes = {WebApplicationTests.App.class, WebApplicationTests.Jetty.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"server.address=127.0.0.1", "marl4j.worker-threads=2", "management.endpoints.web.exposure.include=metrics"})
class JettyApplicationTest extends WebApplicationTests {
    @Override
    String webServer() {
        return "JettyServletWebServer";
    }

    @Override
    String webServerExecutor() {
        return "jetty";
    }
}
