package io.leasehold.examples;

import com.google.adk.agents.LlmAgent;
import com.google.adk.events.Event;
import com.google.adk.models.BaseLlm;
import com.google.adk.runner.InMemoryRunner;
import com.google.adk.sessions.Session;
import com.google.adk.tools.Annotations.Schema;
import com.google.adk.tools.FunctionTool;
import com.google.adk.tools.ToolContext;
import com.google.genai.types.Content;
import com.google.genai.types.Part;
import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.adk.AdkToolFence;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.lease.Lease;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Google ADK samples of docs/agents.md, compiled (and run by AdkExamplesTest) so they cannot
 * drift from the integration's API.
 */
public final class AdkExamples {
  private AdkExamples() {}

  /** The sample's tool: a booking that reads the admitted token from its tool context. */
  public static final class AdkBookingTools {
    final List<FencingToken> tokens = new ArrayList<>();

    /**
     * Books a table.
     *
     * @param name who for
     * @param toolContext the call's context
     * @return what happened
     */
    // region adk-forward
    @Schema(description = "Books a restaurant table")
    public Map<String, Object> bookTable(
        @Schema(name = "name") String name, ToolContext toolContext) {
      FencingToken token = AdkToolFence.token(toolContext).orElseThrow();
      tokens.add(token); // forward token.toText() in the Leasehold-Token header
      return Map.of("booked", name);
    }

    // endregion

    /**
     * The tokens the tool saw.
     *
     * @return them
     */
    public List<FencingToken> tokens() {
      return List.copyOf(tokens);
    }
  }

  /**
   * An ADK run: fences the runner's tools, starts the run and runs the agent once.
   *
   * @param fence the agent fence
   * @param model the agent's model (a Gemini model in production, any {@code BaseLlm})
   * @param tools the tools
   * @param lease the run's lease
   * @return the agent's last text, or null if the run was stopped
   */
  public static String adk(
      AgentToolFence fence, BaseLlm model, AdkBookingTools tools, Lease lease) {
    // region adk
    AdkToolFence toolFence = AdkToolFence.builder(fence).build();
    LlmAgent agent =
        LlmAgent.builder()
            .name("concierge")
            .model(model) // or a model name such as "gemini-2.5-flash"
            .tools(FunctionTool.create(tools, "bookTable")) // your tools, unchanged
            .build();
    InMemoryRunner runner = new InMemoryRunner(agent, "trips", List.of(toolFence.plugin()));
    Session session = runner.sessionService().createSession("trips", "ada").blockingGet();

    try {
      fence.startRun(lease); // older runs are refused from now on
      Event last =
          runner
              .runAsync(
                  "ada",
                  session.id(),
                  Content.fromParts(Part.fromText("Book a table for Ada")),
                  AdkToolFence.runConfig(lease)) // which run these calls belong to
              .blockingLast();
      return last.content().map(Content::text).orElse("");
    } catch (StaleFenceException | RunStoppedException e) {
      // A newer run of this session took over (or this lease was lost): the tool did not run.
      System.out.println("stopped: " + e.getMessage());
      return null;
    }
    // endregion
  }
}
