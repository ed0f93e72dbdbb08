package org.marl4j;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Excludes names a lock that must NOT be held when the annotated method is called (marl's
 * {@code EXCLUDES}): the method takes it itself, or runs user code that may need it. Documentation
 * only: Error Prone, which checks the {@code @GuardedBy} annotations at compile time, has no check
 * for a lock that must not be held, and nothing checks it at run time.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
@interface Excludes {
    /** The lock, as an expression from the annotated method's class. */
    String value();
}
