package org.marl4j;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * GuardedBy names the lock that guards a field (marl's {@code GUARDED_BY}): read or write it only
 * with that lock held, unless the field's comment names a racy read that is fine. On a method it
 * means the method must be called with that lock held (marl's {@code REQUIRES}). Documentation
 * only; nothing checks it at run time.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.FIELD, ElementType.METHOD})
@interface GuardedBy {
    /** The lock, as an expression from the annotated member's class: {@code "lock"}, {@code "worker.lock"}. */
    String value();
}
