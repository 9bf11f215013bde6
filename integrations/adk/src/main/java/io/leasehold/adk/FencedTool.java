package io.leasehold.adk;

import com.google.adk.models.LlmRequest;
import com.google.adk.tools.BaseTool;
import com.google.adk.tools.ToolContext;
import com.google.common.collect.ImmutableMap;
import com.google.genai.types.FunctionDeclaration;
import io.leasehold.adapters.agent.RunStoppedException;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Single;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * An ADK tool that runs another only once its call is admitted by an {@link AdkToolFence}. It shows
 * the model the other tool's name, description and declaration, and keeps whatever the other tool
 * adds to a model request, with itself in the other's place among the request's tools.
 */
final class FencedTool extends BaseTool {
  private final AdkToolFence fence;
  private final BaseTool delegate;

  FencedTool(AdkToolFence fence, BaseTool delegate) {
    super(delegate.name(), delegate.description(), delegate.longRunning());
    this.fence = fence;
    this.delegate = delegate;
  }

  @Override
  public Optional<FunctionDeclaration> declaration() {
    return delegate.declaration();
  }

  @Override
  public ImmutableMap<String, Object> customMetadata() {
    return delegate.customMetadata();
  }

  @Override
  public void setCustomMetadata(String key, Object value) {
    delegate.setCustomMetadata(key, value);
  }

  @Override
  public Completable processLlmRequest(LlmRequest.Builder request, ToolContext toolContext) {
    return delegate
        .processLlmRequest(request, toolContext)
        .andThen(Completable.fromAction(() -> takeDelegatesPlace(request)));
  }

  /** The request's tools as ADK will call them: this decorator where the other tool was added. */
  private void takeDelegatesPlace(LlmRequest.Builder request) {
    Map<String, BaseTool> tools = new LinkedHashMap<>(request.build().tools());
    if (tools.get(name()) == delegate) {
      tools.put(name(), this);
      request.tools(tools);
    }
  }

  /**
   * Admits the call, then runs the other tool and waits for its response: the fence journals a
   * call's start and its outcome around the tool, so the call holds its thread until the tool
   * answers.
   */
  @Override
  public Single<Map<String, Object>> runAsync(Map<String, Object> args, ToolContext toolContext) {
    return Single.create(
        emitter -> {
          Map<String, Object> response;
          try {
            response =
                fence.call(
                    toolContext,
                    delegate,
                    args,
                    () -> delegate.runAsync(args, toolContext).blockingGet());
          } catch (RunStoppedException stop) {
            emitter.tryOnError(fence.stopLater(toolContext, stop));
            return;
          } catch (Throwable t) { // an Error too: ADK's error callbacks and the caller see it
            emitter.tryOnError(t);
            return;
          }
          emitter.onSuccess(response == null ? Map.of() : response);
        });
  }

  /**
   * The fence that admits this tool's calls.
   *
   * @return the fence
   */
  AdkToolFence fence() {
    return fence;
  }

  /**
   * This tool as {@code other} decorates it: itself if {@code other} is its fence, otherwise the
   * same tool decorated anew, since this decorator admits through its own fence (its journal, its
   * verifier), not through {@code other}.
   *
   * @param other the fence that decorates
   * @return a decorator that admits through {@code other}
   */
  FencedTool decoratedBy(AdkToolFence other) {
    return other == fence ? this : new FencedTool(other, delegate);
  }

  @Override
  public String toString() {
    return "fenced " + delegate;
  }
}
