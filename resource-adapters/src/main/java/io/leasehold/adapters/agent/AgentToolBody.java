package io.leasehold.adapters.agent;

import io.leasehold.adapters.tool.ToolInvocation;

/**
 * The framework's own tool, run once its call is admitted.
 *
 * @param <R> what it returns
 */
@FunctionalInterface
public interface AgentToolBody<R> {
  /**
   * Runs the tool.
   *
   * @param invocation the admitted call: its token (to forward downstream) and journal id
   * @return the tool's result
   * @throws Exception anything; the call is journaled as failed
   */
  R run(ToolInvocation invocation) throws Exception;
}
