package org.marl4j.spring.boot;

import org.springframework.boot.test.context.SpringBootTest;

/** Requests and @Async methods of an application on embedded Tomcat run on marl4j fibers. */
@SpringBootTest(classes = {WebApplicationTests.App.class, WebApplicationTests.Tomcat.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"server.address=127.0.0.1", "marl4j.worker-threads=2", "management.endpoints.web.exposure.include=metrics"})
class TomcatApplicationTest extends WebApplicationTests {
    @Override
    String webServer() {
        return "TomcatWebServer";
    }

    @Override
    String webServerExecutor() {
        return "tomcat";
    }
}
