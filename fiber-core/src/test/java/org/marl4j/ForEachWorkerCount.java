package org.marl4j;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs a test once per worker-thread count marl's own tests use ({@code marl_test.cpp}): 0 (tasks
 * run on the bound thread), 1, 2, 4, 8 and 64 (far more workers than the machine's cores). Shared
 * with the other modules through fiber-core's test-jar.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "{0} worker threads")
@ValueSource(ints = {0, 1, 2, 4, 8, 64})
public @interface ForEachWorkerCount {}
