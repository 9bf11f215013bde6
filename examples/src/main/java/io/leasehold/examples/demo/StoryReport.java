package io.leasehold.examples.demo;

import io.leasehold.fencing.FencingToken;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * The end of the {@link StaleWriterDemo}'s story: the checks that decide its verdict, read from the
 * resources' final state, and the summary it prints. The story itself plays the runs.
 */
record StoryReport(PrintStream out, Timeline tl, DemoResources res) {
  /**
   * Adds to {@code problems} every way the final state is not the newer run's: its fence not
   * higher, a late write admitted, the file, the chat or the table last written by another run.
   */
  void check(
      List<String> problems, FencingToken older, FencingToken newer, int attempts, int refused) {
    if (newer.fence() <= older.fence()) {
      problems.add("the newer run's fence " + newer.fence() + " is not above " + older.fence());
    }
    if (refused != attempts) {
      problems.add((attempts - refused) + " of " + attempts + " late writes were admitted");
    }
    FencingToken fileWriter = res.fileWriter();
    if (fileWriter == null || !fileWriter.equals(newer)) {
      problems.add("the file was last written by " + fileWriter + ", not the newer run");
    }
    List<ChatService.Message> messages = res.chat.messages();
    if (messages.isEmpty() || !messages.get(messages.size() - 1).writer().equals(newer)) {
      problems.add("the chat's last message is not the newer run's");
    }
    boolean newerSeen = false;
    for (ChatService.Message m : messages) {
      newerSeen |= m.writer().equals(newer);
      if (newerSeen && m.writer().fence() < newer.fence()) {
        problems.add(
            "the chat has a message of fence " + m.writer().fence() + " after the newer run's");
      }
    }
    List<DemoResources.Row> rows = res.rows();
    newerSeen = false;
    for (DemoResources.Row r : rows) {
      newerSeen |= r.fence() == newer.fence();
      if (newerSeen && r.fence() < newer.fence()) {
        problems.add("agent_messages has a row of fence " + r.fence() + " after the newer run's");
      }
    }
    if (rows.isEmpty() || rows.get(rows.size() - 1).fence() != newer.fence()) {
      problems.add("the last agent_messages row is not the newer run's");
    }
  }

  /** Prints who held the lease when, every write and its outcome, and the final contents. */
  void print(List<StaleWriterDemo.Tenure> tenures, List<StaleWriterDemo.Write> writes) {
    tl.say("Summary");
    out.println("Who held the lease (database clock):");
    out.println(
        String.format(
            Locale.ROOT,
            "  %-8s %-9s %-6s %-9s %-9s %s",
            "device",
            "run",
            "fence",
            "from",
            "until",
            "how it ended"));
    for (StaleWriterDemo.Tenure t : tenures) {
      out.println(
          String.format(
              Locale.ROOT,
              "  %-8s %-9s %-6d %-9s %-9s %s",
              t.device(),
              t.token().runId().toString().substring(0, 8),
              t.token().fence(),
              Timeline.seconds(t.fromMillis()),
              Timeline.seconds(t.untilMillis()),
              t.ending()));
    }
    out.println("Writes:");
    out.println(
        String.format(
            Locale.ROOT, "  %-13s %-8s %-6s %s", "resource", "device", "fence", "outcome"));
    for (StaleWriterDemo.Write wr : writes) {
      out.println(
          String.format(
              Locale.ROOT,
              "  %-13s %-8s %-6d %s",
              wr.adapter(),
              wr.device(),
              wr.fence(),
              wr.detail()));
    }
    out.println("Final contents:");
    FencingToken fw = res.fileWriter();
    out.println(
        "  "
            + DemoResources.ANSWER
            + ": \""
            + res.fileContent()
            + "\" (written by fence "
            + (fw == null ? "?" : fw.fence())
            + ")");
    out.println("  chat service messages:");
    for (ChatService.Message m : res.chat.messages()) {
      out.println("    fence " + m.writer().fence() + ": " + m.text());
    }
    out.println("  agent_messages rows:");
    for (DemoResources.Row r : res.rows()) {
      out.println("    #" + r.id() + " " + r.device() + " fence " + r.fence() + ": " + r.body());
    }
  }
}
