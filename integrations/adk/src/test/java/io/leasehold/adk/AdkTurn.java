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

/**
 * Conversation turns through a real ADK runner, on an in-memory session of its own that the turns
 * share (a user's answer to a confirmation request is a turn of the same session).
 */
final class AdkTurn {
  final Runner runner;
  final Session session;

  /**
   * A runner for the agent, with a new session.
   *
   * @param agent the agent
   * @param plugins the runner's plugins
   * @param sessionId the ADK session's id, or null for a generated one
   */
  AdkTurn(BaseAgent agent, List<? extends Plugin> plugins, String sessionId) {
    runner = new InMemoryRunner(agent, "leasehold-test", plugins);
    session =
        runner
            .sessionService()
            .createSession("leasehold-test", "user-7", (Map<String, Object>) null, sessionId)
            .blockingGet();
  }

  AdkTurn(BaseAgent agent, List<? extends Plugin> plugins) {
    this(agent, plugins, null);
  }

  /** Sends one message of the user's and returns the invocation's events. */
  List<Event> send(Content message, RunConfig runConfig) {
    return runner.runAsync("user-7", session.id(), message, runConfig).toList().blockingGet();
  }

  /** Says a text and returns the invocation's events. */
  List<Event> say(String text, RunConfig runConfig) {
    return send(Content.fromParts(Part.fromText(text)), runConfig);
  }

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
    return lastText(new AdkTurn(agent, plugins, sessionId).say("go", runConfig));
  }

  /** The text of the last event with text, or null. */
  static String lastText(List<Event> events) {
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
