package io.leasehold.testing;

import java.util.Optional;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Skips a {@link SingleServerOnly} case on a Citus coordinator, and only there: the decision is
 * read from {@value PostgresServer#KIND_PROPERTY} alone, which one PostgreSQL never sets to {@value
 * CitusCoordinator#KIND}. The skip line is also printed, since a build's summary shows only the
 * count of skipped tests.
 */
public final class SingleServerOnlyCondition implements ExecutionCondition {
  /** The start of every skip line. */
  public static final String SKIP_LINE = "skipped on Citus, single-server only: ";

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    Optional<SingleServerOnly> marker =
        context
            .getElement()
            .flatMap(e -> AnnotationSupport.findAnnotation(e, SingleServerOnly.class));
    if (marker.isEmpty() || !TestBudgets.onCitus()) {
      return ConditionEvaluationResult.enabled("runs on one PostgreSQL and on Citus");
    }
    String line = SKIP_LINE + marker.get().value();
    System.err.println(context.getDisplayName() + ": " + line);
    return ConditionEvaluationResult.disabled(line);
  }
}
