package io.leasehold.adk;

import com.google.adk.agents.BaseAgent;
import com.google.adk.agents.RunConfig;
import com.google.adk.events.Event;
import com.google.adk.plugins.Plugin;
import com.google.adk.runner.InMemoryRunner;
import com.google.adk.runner.Runner;
import com.google.adk.sessions.Session;
import com.google.genai.types.Content;
import com.google.genai.types.Part;
import java.util.List;
import java.util.Map;

/** One conversation turn through a real ADK runner, on an in-memory session of its own. */
final class AdkTurn {
  private AdkTurn() {}

  /**
   * Runs the agent once and returns its final text.
   *
   * @param agent the agent
   * @param plugins the runner's plugins
   * @param runConfig the invocation's run config
   * @return the text of the turn's last event with text, or null
   */
  static String run(BaseAgent agent, List<? extends Plugin> plugins, RunConfig runConfig) {
    return run(agent, plugins, runConfig, null);
  }

  /**
   * Runs the agent once, in a session with the given id, and returns its final text.
   *
   * @param agent the agent
   * @param plugins the runner's plugins
   * @param runConfig the invocation's run config
   * @param sessionId the ADK session's id, or null for a generated one
   * @return the text of the turn's last event with text, or null
   */
  static String run(
      BaseAgent agent, List<? extends Plugin> plugins, RunConfig runConfig, String sessionId) {
    Runner runner = new InMemoryRunner(agent, "leasehold-test", plugins);
    Session session =
        runner
            .sessionService()
            .createSession("leasehold-test", "user-7", (Map<String, Object>) null, sessionId)
            .blockingGet();
    List<Event> events =
        runner
            .runAsync("user-7", session.id(), Content.fromParts(Part.fromText("go")), runConfig)
            .toList()
            .blockingGet();
    String answer = null;
    for (Event e : events) {
      String text = e.content().map(Content::text).orElse(null);
      if (text != null && !text.isEmpty()) {
        answer = text;
      }
    }
    return answer;
  }
}
