package io.leasehold.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import org.assertj.core.api.AbstractThrowableAssert;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;

/** The checks of a context that must not start: it failed, and its root cause says why. */
final class StartupFailures {
  private StartupFailures() {}

  /** The context failed to start, and its root cause's message holds each of {@code says}. */
  static ContextConsumer<AssertableApplicationContext> failsSaying(String... says) {
    return context -> {
      assertThat(context).hasFailed();
      AbstractThrowableAssert<?, ? extends Throwable> cause =
          assertThat(context.getStartupFailure()).rootCause();
      for (String part : says) {
        cause.hasMessageContaining(part);
      }
    };
  }
}
