package org.marl4j;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Runs a test once per worker-thread count of {@link ForEachWorkerCount} that has worker threads, up to 8. */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "{0} worker threads")
@ValueSource(ints = {1, 2, 4, 8})
@interface ParameterizedTest1to8 {}
