package io.leasehold.adk.redteam;

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

/** A runner with one session, for several turns. */
final class RtTurn {
  final Runner runner;
  final Session session;

  RtTurn(BaseAgent agent, List<? extends Plugin> plugins) {
    runner = new InMemoryRunner(agent, "leasehold-test", plugins);
    session =
        runner
            .sessionService()
            .createSession("leasehold-test", "user-7", (Map<String, Object>) null, null)
            .blockingGet();
  }

  List<Event> send(Content message, RunConfig config) {
    return runner.runAsync("user-7", session.id(), message, config).toList().blockingGet();
  }

  List<Event> say(String text, RunConfig config) {
    return send(Content.fromParts(Part.fromText(text)), config);
  }

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
