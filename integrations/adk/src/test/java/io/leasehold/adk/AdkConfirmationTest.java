package io.leasehold.adk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.adk.events.Event;
import com.google.adk.flows.llmflows.Functions;
import com.google.adk.tools.BaseTool;
import com.google.adk.tools.FunctionTool;
import com.google.genai.types.Content;
import com.google.genai.types.FunctionCall;
import com.google.genai.types.FunctionResponse;
import com.google.genai.types.Part;
import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.lease.Lease;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Tools the user must confirm ({@code FunctionTool} with {@code requireConfirmation}): ADK asks the
 * user, then runs the confirmed call in its confirmation step, without a model request in between
 * and dropping the call's failure. The fence admits the confirmed call only, and a refusal there
 * still ends the run.
 */
class AdkConfirmationTest extends AdkAgentFixture {
  @Test
  void aConfirmedCallOfTheCurrentRunRunsOnce() {
    Lease desktop = acquire("desktop");
    Asked asked = ask(fence(true), "bookTable", BOOK_ADA, desktop, true);
    assertThat(world.effects).isEmpty(); // not confirmed yet
    assertThat(callsOf(desktop)).isEmpty(); // asking the user is not a call of the tool

    assertThat(AdkTurn.lastText(asked.sendAnswer())).isEqualTo("y");
    assertThat(world.effects).containsExactly("booked:Ada");
    assertThat(callsOf(desktop)).hasSize(1);
  }

  @Test
  void aRejectedCallIsNeitherRunNorJournaled() {
    ask(fence(true), "bookTable", BOOK_ADA, acquire("desktop"), false).sendAnswer();

    assertNothingRan();
  }

  @Test
  void aSupersededRunsConfirmedCallStopsTheRun() {
    Lease desktop = acquire("desktop");
    AdkToolFence fence = fence(true);
    ScriptedLlm model = new ScriptedLlm().callTools("bookTable", BOOK_ADA).answer("x");
    AdkTurn turn =
        new AdkTurn(
            agent(model, List.of(fence.wrap(confirmed("bookTable")))), List.of(fence.plugin()));
    Content yes = confirmation(turn.say("go", runConfig(desktop, sequential())), true);
    List<String> readBefore = model.toolResultsSeen();
    takeOver(); // the browser takes over before the user confirms on the desktop

    Throwable t = catchThrowable(() -> turn.send(yes, runConfig(desktop, sequential())));

    // ADK's confirmation step drops the refusal; the plugin ends the invocation with it before the
    // model is called again.
    assertThat(t).isInstanceOf(RunStoppedException.class).hasMessageContaining("superseded");
    assertThat(model.toolResultsSeen()).isEqualTo(readBefore);
    assertThat(world.effects).isEmpty();
    assertThat(callsOf(desktop)).isEmpty();
  }

  @Test
  void aConfirmedUndecoratedToolIsRefusedAndTheRefusalReachesTheCaller() {
    Lease desktop = acquire("desktop");
    ScriptedLlm model = new ScriptedLlm().callTools("bookTable", BOOK_ADA).answer("x");
    AdkTurn turn =
        new AdkTurn(agent(model, List.of(confirmed("bookTable"))), List.of(fence(true).plugin()));
    Content yes = confirmation(turn.say("go", runConfig(desktop, sequential())), true);
    List<String> readBefore = model.toolResultsSeen();

    Throwable t = catchThrowable(() -> turn.send(yes, runConfig(desktop, sequential())));

    assertThat(t)
        .isInstanceOf(UnfencedToolException.class)
        .hasMessageContaining("bookTable")
        .hasMessageContaining("AdkToolFence.wrap(tool)");
    assertThat(model.toolResultsSeen()).isEqualTo(readBefore);
    assertNothingRan();
  }

  @Test
  void aConfirmedCallWithAnIdempotencyKeyRunsOnceConfirmed() {
    Lease desktop = acquire("desktop");
    AdkToolFence fence = AdkToolFence.builder(keyedFenceRunning(desktop)).build();
    String call = "{\"idempotencyKey\":\"k-5\",\"name\":\"Ada\"}";

    Asked asked = ask(fence, "pay", call, desktop, true);
    assertThat(AdkTurn.lastText(asked.sendAnswer())).isEqualTo("y");

    // The unconfirmed attempt was not admitted, so its key did not answer the confirmed call.
    assertThat(world.effects).containsExactly("paid:Ada");
    assertThat(callsOf(desktop)).hasSize(1);
  }

  /** A turn of {@code run} that asked the user to confirm a call, and the user's answer. */
  private record Asked(AdkTurn turn, Lease run, Content answer) {
    /** Sends the answer: ADK's confirmation step runs the call if the user confirmed it. */
    List<Event> sendAnswer() {
      return turn.send(answer, runConfig(run, sequential()));
    }
  }

  /**
   * Asks, in a turn of {@code run} whose model calls the confirmed tool {@code method} through
   * {@code fence}, and answers with {@code confirm}; the answer is not sent yet.
   */
  private Asked ask(
      AdkToolFence fence, String method, String arguments, Lease run, boolean confirm) {
    AdkTurn turn = confirmingTurn(fence, fence.wrap(confirmed(method)), arguments);
    return new Asked(
        turn, run, confirmation(turn.say("go", runConfig(run, sequential())), confirm));
  }

  /** A runner whose model calls {@code tool} once, then answers "x" to the request and "y". */
  private static AdkTurn confirmingTurn(AdkToolFence fence, BaseTool tool, String arguments) {
    ScriptedLlm model = new ScriptedLlm().callTools(tool.name(), arguments).answer("x").answer("y");
    return new AdkTurn(agent(model, List.of(tool)), List.of(fence.plugin()));
  }

  /** One of the scenarios' tools, built to ask the user before each call. */
  private BaseTool confirmed(String method) {
    return FunctionTool.create(tools, method, true);
  }

  /** The user's answer to the confirmation the turn asked for. */
  private static Content confirmation(List<Event> turn, boolean confirmed) {
    FunctionCall ask =
        turn.stream()
            .flatMap(e -> e.functionCalls().stream())
            .filter(
                fc ->
                    fc.name().orElse("").equals(Functions.REQUEST_CONFIRMATION_FUNCTION_CALL_NAME))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no confirmation asked: " + turn));
    return Content.builder()
        .role("user")
        .parts(
            Part.builder()
                .functionResponse(
                    FunctionResponse.builder()
                        .id(ask.id().orElseThrow())
                        .name(Functions.REQUEST_CONFIRMATION_FUNCTION_CALL_NAME)
                        .response(Map.of("confirmed", confirmed))
                        .build())
                .build())
        .build();
  }
}
