package io.leasehold.benchmarks;

import io.leasehold.adapters.tool.FileToolJournal;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.UUID;

/** The tool journal's opening cost by size (group {@code journal}). */
final class JournalBench extends BenchGroup {
  JournalBench(BenchGroup.Context context) {
    super(context);
  }

  /**
   * Opening a tool journal with a long history (issue 13's target: 1M historical calls open in
   * under 0.5 s with under 50 MiB of heap). The history is written line by line as the executor
   * writes it (intended, started, finished; 1,000 sessions, 1 in 1,000 calls idempotent, 10 left in
   * doubt), then opened: the first open compacts it, a second open reads the compacted journal.
   * Alone: {@code ... -Dbench.args="group=journal"}.
   */
  void journal(int calls) throws Exception {
    line(
        "## Tool journal: opening after "
            + String.format(Locale.ROOT, "%,d", calls)
            + " historical calls");
    line("");
    Path dir = Files.createTempDirectory("leasehold-bench-journal");
    Path file = dir.resolve("tools.jsonl");
    writeHistory(file, calls, Long.MAX_VALUE);
    long historyBytes = Files.size(file);
    long t0 = System.nanoTime();
    FileToolJournal first = FileToolJournal.open(file); // compacts: the file is far over 16 MiB
    long firstOpen = System.nanoTime() - t0;
    first = null;
    long compactedBytes = Files.size(file);
    Runtime rt = Runtime.getRuntime();
    System.gc();
    long heapBefore = rt.totalMemory() - rt.freeMemory();
    long t1 = System.nanoTime();
    FileToolJournal reopened = FileToolJournal.open(file);
    long reopen = System.nanoTime() - t1;
    System.gc();
    long heapAfter = rt.totalMemory() - rt.freeMemory();
    int live = 0;
    for (int s = 0; s < 1000; s++) {
      live += reopened.calls(LeaseKey.of("acct", "session-" + s)).size();
    }
    // The worst a running journal leaves since it compacts itself (issue 27): a file just under
    // the 16 MiB threshold, all of it history.
    Path worst = dir.resolve("worst.jsonl");
    writeHistory(worst, calls, FileToolJournal.COMPACT_ON_OPEN_BYTES - 4096);
    long worstBytes = Files.size(worst);
    long t2 = System.nanoTime();
    FileToolJournal.open(worst);
    long worstOpen = System.nanoTime() - t2;
    line("| measure | value |");
    line("| --- | --- |");
    line(
        "| history written | "
            + fmt(historyBytes / 1048576.0)
            + " MiB, "
            + String.format(Locale.ROOT, "%,d", calls * 3L - 10)
            + " lines |");
    line(
        "| first open (reads the history once, then compacts it) | "
            + fmt(firstOpen / 1e6)
            + " ms |");
    line(
        "| compacted journal | "
            + fmt(compactedBytes / 1024.0)
            + " KiB, "
            + live
            + " live calls |");
    line("| reopen of the compacted journal | " + fmt(reopen / 1e6) + " ms |");
    line(
        "| heap held by the reopened journal (after GC, approximate) | "
            + fmt((heapAfter - heapBefore) / 1048576.0)
            + " MiB |");
    line(
        "| open of the largest file a running journal leaves ("
            + fmt(worstBytes / 1048576.0)
            + " MiB, not yet compacted) | "
            + fmt(worstOpen / 1e6)
            + " ms |");
    line("");
  }

  /**
   * Writes the lines the executor writes for {@code calls} calls, stopping before {@code maxBytes}.
   */
  private static void writeHistory(Path file, int calls, long maxBytes) throws java.io.IOException {
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    long written = 0;
    try (java.io.BufferedWriter w = Files.newBufferedWriter(file)) {
      for (int i = 0; i < calls && written < maxBytes - 1024; i++) {
        LeaseKey key = LeaseKey.of("acct", "session-" + (i % 1000));
        FencingToken token = new FencingToken(key, 1 + i / 1000, new UUID(7, i / 1000));
        String call = new UUID(11, i).toString();
        com.fasterxml.jackson.databind.node.ObjectNode intended = json.createObjectNode();
        intended
            .put("event", "intended")
            .put("call", call)
            .put("tool", "send_message")
            .put("token", token.toText());
        intended.set("arguments", json.createObjectNode().put("text", "message number " + i));
        if (i % 1000 == 0) {
          intended.put("idempotencyKey", "message-" + i);
        }
        String lines =
            json.writeValueAsString(intended)
                + "\n"
                + "{\"event\":\"started\",\"call\":\""
                + call
                + "\",\"token\":\""
                + token.toText()
                + "\"}\n"
                + (i < calls - 10
                    ? "{\"event\":\"finished\",\"call\":\"" + call + "\",\"result\":\"sent\"}\n"
                    : "");
        w.write(lines);
        written += lines.length();
      }
    }
  }
}
