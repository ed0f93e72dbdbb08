package org.marl4j.spring.boot;

import org.springframework.boot.test.context.SpringBootTest;

/**
 * With Spring Boot's own virtual threads switched on too, requests and @Async methods on embedded
 * Tomcat still run on marl4j fibers: the starter's executors take the place of Boot's.
 */
@SpringBootTest(classes = {WebApplicationTests.App.class, WebApplicationTests.Tomcat.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"server.address=127.0.0.1", "marl4j.worker-threads=2", "management.endpoints.web.exposure.include=metrics",
                "spring.threads.virtual.enabled=true"})
class VirtualThreadsTomcatApplicationTest extends WebApplicationTests {
    @Override
    String webServer() {
        return "TomcatWebServer";
    }

    @Override
    String webServerExecutor() {
        return "tomcat";
    }
}
