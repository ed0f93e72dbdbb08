package org.marl4j.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * BankApplication is a small Spring MVC service over an embedded H2 database: accounts whose
 * balances move through transfers ({@link Bank}), answered over HTTP ({@link BankController}), with
 * the request's id in every log line ({@link RequestIdFilter}).
 *
 * <p>Every request makes blocking JDBC calls. With marl4j's Spring Boot starter on the class path
 * the requests run on marl4j's fibers; on the VIRTUAL_THREADS fiber engine a blocking call suspends
 * only the request's fiber, and its worker thread serves other requests meanwhile. Start it with
 * both engines' JVM flags:
 * <pre>{@code
 * java --add-opens java.base/java.lang=ALL-UNNAMED --add-exports java.base/jdk.internal.vm=ALL-UNNAMED \
 *      -cp ... org.marl4j.examples.spring.BankApplication --server.port=8080
 * }</pre>
 */
@SpringBootApplication
public class BankApplication {
    /**
     * main(args) starts the application; args are Spring Boot's ({@code --server.port=8080},
     * {@code --marl4j.enabled=false}, ...).
     *
     * @param args Spring Boot command-line properties
     */
    public static void main(String[] args) {
        SpringApplication.run(BankApplication.class, args);
    }
}
