package io.leasehold.examples.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Draws a demo run's timeline as a Mermaid sequence diagram (renders on common code hosts): the two
 * devices, the lease table and the resources, with consecutive writes of one device and outcome
 * folded into one arrow.
 */
final class MermaidTimeline {
  private MermaidTimeline() {}

  static String render(List<Timeline.Event> events, Duration ttl) {
    StringBuilder m = new StringBuilder();
    m.append("sequenceDiagram\n")
        .append("    participant desktop\n")
        .append("    participant L as lease table (PostgreSQL)\n")
        .append("    participant R as resources (file store, tool, chat, table)\n")
        .append("    participant browser\n")
        .append("    Note over desktop,browser: TTL ")
        .append(ttl.toMillis())
        .append(" ms, times in seconds since start\n");
    for (int i = 0; i < events.size(); i++) {
      Timeline.Event e = events.get(i);
      String who = e.device();
      String at = Timeline.seconds(e.atMillis());
      String text = clean(e.text());
      switch (e.kind()) {
        case "RUN" ->
            m.append("    Note over ").append(who).append(": ").append(at).append(" presses Run\n");
        case "ACQUIRED" -> {
          m.append("    ").append(who).append("->>L: acquire\n");
          m.append("    L-->>")
              .append(who)
              .append(": ")
              .append(at)
              .append(" ACQUIRED fence ")
              .append(e.token().fence())
              .append(", ")
              .append(text)
              .append('\n');
        }
        case "BUSY" -> {
          m.append("    ").append(who).append("->>L: acquire\n");
          m.append("    L-->>")
              .append(who)
              .append(": ")
              .append(at)
              .append(" BUSY, ")
              .append(text)
              .append('\n');
        }
        case "ADMITTED", "REFUSED" -> {
          if (text.startsWith("locally")) {
            m.append("    Note over ")
                .append(who)
                .append(": ")
                .append(at)
                .append(" write refused locally, the lease handle knows it is lost\n");
            break;
          }
          List<String> targets = new ArrayList<>();
          // A refusal reads "<resource>: presented fence F < highest H".
          String outcome =
              e.kind().equals("ADMITTED") ? "admitted" : text.substring(text.indexOf(": ") + 2);
          int j = i;
          while (j < events.size()
              && events.get(j).kind().equals(e.kind())
              && events.get(j).device().equals(who)
              && !events.get(j).text().startsWith("locally")) {
            String t = clean(events.get(j).text());
            targets.add(e.kind().equals("REFUSED") ? t.substring(0, t.indexOf(": ")) : t);
            j++;
          }
          i = j - 1;
          String arrow = e.kind().equals("ADMITTED") ? "->>" : "-x";
          m.append("    ")
              .append(who)
              .append(arrow)
              .append("R: ")
              .append(at)
              .append(" write, fence ")
              .append(e.token().fence())
              .append(": ")
              .append(String.join(", ", targets))
              .append('\n');
          m.append("    R-->>")
              .append(who)
              .append(": ")
              .append(e.kind().equals("ADMITTED") ? "admitted" : "REFUSED, " + outcome)
              .append('\n');
        }
        case "FROZEN", "LOST" ->
            m.append("    Note over ")
                .append(who)
                .append(": ")
                .append(at)
                .append(' ')
                .append(e.kind())
                .append(", ")
                .append(text)
                .append('\n');
        case "RENEW", "RELEASE", "RELEASED", "STATUS" -> {
          String ask =
              switch (e.kind()) {
                case "RENEW" -> "late renew";
                case "RELEASE" -> "late release";
                case "STATUS" -> "status";
                default -> "release";
              };
          m.append("    ").append(who).append("->>L: ").append(ask).append('\n');
          m.append("    L-->>").append(who).append(": ").append(text).append('\n');
        }
        default ->
            m.append("    Note over ")
                .append(who)
                .append(": ")
                .append(at)
                .append(' ')
                .append(text)
                .append('\n');
      }
    }
    return m.toString();
  }

  /** Mermaid reads ';', '#' and '<' as syntax. */
  private static String clean(String s) {
    return s.replace(';', ',').replace('#', ' ').replace(" < ", " below ");
  }
}
