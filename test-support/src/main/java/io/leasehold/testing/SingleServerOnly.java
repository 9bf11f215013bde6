package io.leasehold.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test case (or class) whose subject differs on Citus by design: it is skipped there, with {@link
 * #value()} as its skip line, and always runs on one PostgreSQL (CI). Not for a case that merely
 * fails on Citus: a budget is sized with {@link TestBudgets}, a set-up is written in SQL valid on
 * both. docs/scale-out.md names every case that carries it, with the same reason.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
@ExtendWith(SingleServerOnlyCondition.class)
public @interface SingleServerOnly {
  /**
   * Why the case tests something that differs on Citus by design, printed when it is skipped there.
   *
   * @return the reason
   */
  String value();
}
