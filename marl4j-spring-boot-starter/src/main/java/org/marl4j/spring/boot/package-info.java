/**
 * Spring Boot auto-configuration for marl4j: the application's {@link org.marl4j.Scheduler} bean,
 * configured by the {@code marl4j.*} properties, and the executors Spring runs application code on
 * (the {@code applicationTaskExecutor}, the embedded Tomcat's request executor, a Reactor
 * scheduler) moved onto it. See {@link org.marl4j.spring.boot.MarlAutoConfiguration}.
 */
package org.marl4j.spring.boot;
