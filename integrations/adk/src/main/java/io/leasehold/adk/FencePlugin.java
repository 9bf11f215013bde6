package io.leasehold.adk;

import com.google.adk.agents.CallbackContext;
import com.google.adk.agents.InvocationContext;
import com.google.adk.models.LlmRequest;
import com.google.adk.models.LlmResponse;
import com.google.adk.plugins.BasePlugin;
import com.google.adk.tools.BaseTool;
import com.google.adk.tools.ToolContext;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Maybe;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The runner plugin of an {@link AdkToolFence}: the one place every tool call of the runner's
 * agents passes, whichever agent, sub-agent or toolset the tool comes from.
 *
 * <ul>
 *   <li>Before each model call (after the agent's tools and toolsets have added themselves to the
 *       request), every tool the model may call is replaced by this fence's decorator: ADK calls
 *       the tools of the request the model answered. A tool another fence decorated is decorated
 *       anew, by this one.
 *   <li>Before each tool call, a tool this fence did not decorate is refused with an error, and
 *       does not run: ADK runs a tool only after every plugin's before-tool callback has let it
 *       through, so a tool that reached ADK's dispatch some other way (added to the request after
 *       this plugin ran, or called without a model call in between) is stopped here.
 *   <li>A user-confirmed call's refusal, which ADK's confirmation step logs and drops, ends the
 *       invocation at the next model call or at its end ({@link AdkToolFence#stopLater}).
 * </ul>
 */
final class FencePlugin extends BasePlugin {
  private final AdkToolFence fence;

  FencePlugin(AdkToolFence fence) {
    super("leasehold-tool-fence");
    this.fence = fence;
  }

  @Override
  public Maybe<LlmResponse> beforeModelCallback(
      CallbackContext callbackContext, LlmRequest.Builder request) {
    return pendingStop(callbackContext.invocationContext())
        .andThen(
            Maybe.fromAction(
                () -> {
                  Map<String, BaseTool> tools = request.build().tools();
                  Map<String, BaseTool> fenced = new LinkedHashMap<>();
                  boolean changed = false;
                  for (Map.Entry<String, BaseTool> e : tools.entrySet()) {
                    BaseTool wrapped = fence.wrap(e.getValue());
                    changed |= wrapped != e.getValue();
                    fenced.put(e.getKey(), wrapped);
                  }
                  if (changed) {
                    request.tools(fenced);
                  }
                }));
  }

  @Override
  public Completable afterRunCallback(InvocationContext invocationContext) {
    return pendingStop(invocationContext);
  }

  /** Fails with the stop a confirmed call left for this invocation, if there is one. */
  private Completable pendingStop(InvocationContext invocation) {
    return Completable.defer(
        () ->
            AdkToolFence.takeStop(invocation)
                .map(Completable::error)
                .orElseGet(Completable::complete));
  }

  @Override
  public Maybe<Map<String, Object>> beforeToolCallback(
      BaseTool tool, Map<String, Object> toolArgs, ToolContext toolContext) {
    if (fence.isOwn(tool)) {
      return Maybe.empty();
    }
    UnfencedToolException unfenced = new UnfencedToolException(whyUnfenced(tool, toolContext));
    return Maybe.error(fence.stopLater(toolContext, unfenced));
  }

  private static String whyUnfenced(BaseTool tool, ToolContext toolContext) {
    String refused =
        "the tool "
            + tool.name()
            + " reached ADK's tool dispatch without Leasehold's fence, so it was not run: ";
    if (tool instanceof FencedTool) {
      return refused
          + "it was decorated by another AdkToolFence; list it decorated by the fence whose"
          + " plugin the runner holds, AdkToolFence.wrap(tool)";
    }
    if (toolContext != null && toolContext.invocationContext().liveRequestQueue().isPresent()) {
      return refused
          + "in live mode (Runner.runLive) ADK sends no model request through the plugin, so list"
          + " every tool of the agent decorated, LlmAgent.builder().tools(AdkToolFence.wrap(tools))";
    }
    return refused
        + "list it in the agent as AdkToolFence.wrap(tool) (ADK calls an agent's listed tools"
        + " directly when the user confirms a call) or let the model's request offer it";
  }
}
