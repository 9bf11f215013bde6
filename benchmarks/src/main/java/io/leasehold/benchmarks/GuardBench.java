package io.leasehold.benchmarks;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.adapters.jdbc.FencedJdbcWriter;
import io.leasehold.adapters.tool.FencedTool;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.FileToolJournal;
import io.leasehold.adapters.tool.MemoryToolJournal;
import io.leasehold.adapters.tool.ToolInvocation;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.InMemoryFenceGuard;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;

/** What each guard adds to a write (group {@code guards}). */
final class GuardBench extends BenchGroup {
  GuardBench(BenchGroup.Context context) {
    super(context);
  }

  /**
   * The guards: in-memory admit, fenced file write, fenced transaction, tool executor. Alone:
   * {@code ... -Dbench.args="group=guards"}.
   */
  void guards() throws Exception {
    line("## Guards");
    line("");
    line("| benchmark | fenced | unfenced / direct | fenced / unfenced |");
    line("| --- | --- | --- | --- |");
    // In-memory guard admit, ns per op.
    for (int threads : List.of(1, 4)) {
      for (boolean manyKeys : List.of(false, true)) {
        InMemoryFenceGuard guard = InMemoryFenceGuard.create(TokenVerifier.trustEveryWriter());
        List<Throughput.OpFactory> f =
            List.of(
                (i, n) -> {
                  FencingToken[] tokens = new FencingToken[manyKeys ? 1024 : 1];
                  for (int k = 0; k < tokens.length; k++) {
                    tokens[k] =
                        new FencingToken(
                            LeaseKey.of("g", manyKeys ? "k" + i + "-" + k : "one"),
                            1,
                            UUID.randomUUID());
                  }
                  int[] next = {0};
                  return () -> {
                    for (int r = 0; r < 1000; r++) {
                      guard.admit(tokens[next[0]++ & (tokens.length - 1)]);
                    }
                    return true;
                  };
                });
        double rate = Throughput.interleaved(f, threads, window, windows).get(0).successes() * 1000;
        line(
            "| in-memory guard admit, "
                + threads
                + " thread(s), "
                + (manyKeys ? "1,024 keys per thread" : "one key")
                + " | "
                + fmt(1e9 / rate * threads)
                + " ns/op | | |");
      }
    }
    // File store: fenced write vs the same atomic write without fencing.
    Path dir = Files.createTempDirectory("leasehold-bench-files");
    FencedFileStore files =
        FencedFileStore.open(dir.resolve("store"), TokenVerifier.trustEveryWriter());
    Path plain = Files.createDirectories(dir.resolve("plain"));
    FencingToken token = new FencingToken(LeaseKey.of("g", "files"), 1, UUID.randomUUID());
    for (int size : List.of(1024, 1 << 20)) {
      byte[] content = new byte[size];
      List<Throughput.OpFactory> f =
          List.of(
              (i, n) ->
                  () -> {
                    files.write(token, "g/files/f.bin", content);
                    return true;
                  },
              (i, n) ->
                  () -> {
                    atomicWrite(plain, content);
                    return true;
                  });
      List<Throughput.Rate> r = Throughput.interleaved(f, 1, window, windows);
      guardedAndBare("file write, " + (size == 1024 ? "1 KiB" : "1 MiB"), r.get(0), r.get(1));
    }
    // Database writer: fenced transaction vs the same transaction without the guard.
    HikariDataSource pool = db.pool(4);
    createBenchRows(pool);
    FencedJdbcWriter writer =
        FencedJdbcWriter.builder(pool).verifier(TokenVerifier.trustEveryWriter()).build();
    FencedJdbcWriter atCommit =
        FencedJdbcWriter.builder(pool)
            .verifier(TokenVerifier.trustEveryWriter())
            .admitAtCommit(true)
            .build();
    FencingToken dbToken = new FencingToken(LeaseKey.of("g", "db"), 1, UUID.randomUUID());
    List<Throughput.OpFactory> dbf =
        List.of(
            Throughput.always(k -> writer.write(dbToken, (c, t) -> insertRow(c, t.fence()))),
            Throughput.always(k -> atCommit.write(dbToken, (c, t) -> insertRow(c, t.fence()))),
            (i, n) ->
                () -> {
                  try (Connection c = pool.getConnection()) {
                    c.setAutoCommit(false);
                    insertRow(c, 1);
                    c.commit();
                    c.setAutoCommit(true);
                  }
                  return true;
                });
    List<Throughput.Rate> dr = Throughput.interleaved(dbf, 1, window, windows);
    guardedAndBare(
        "database writer, one INSERT per transaction (admission first)", dr.get(0), dr.get(2));
    guardedAndBare(
        "database writer, one INSERT per transaction (admitAtCommit)", dr.get(1), dr.get(2));
    // Tool executor vs a direct call, with and without the durable journal.
    FencedTool tool = FencedTool.of("noop", args -> args);
    FencedToolExecutor memory =
        FencedToolExecutor.builder()
            .verifier(TokenVerifier.trustEveryWriter())
            .journal(new MemoryToolJournal())
            .tool(tool)
            .build();
    FencedToolExecutor durable =
        FencedToolExecutor.builder()
            .verifier(TokenVerifier.trustEveryWriter())
            .journal(FileToolJournal.open(dir.resolve("tools.jsonl")))
            .tool(tool)
            .build();
    com.fasterxml.jackson.databind.node.ObjectNode args =
        JsonNodeFactory.instance.objectNode().put("x", 1);
    FencingToken toolToken = new FencingToken(LeaseKey.of("g", "tool"), 1, UUID.randomUUID());
    ToolInvocation direct =
        new ToolInvocation(UUID.randomUUID(), "noop", args, toolToken, Optional.empty());
    List<Throughput.OpFactory> tf =
        List.of(
            (i, n) -> () -> memory.call(toolToken, "noop", args) != null,
            (i, n) -> () -> tool.call(direct) != null);
    List<Throughput.Rate> tr = Throughput.interleaved(tf, 1, window, windows);
    line(
        "| tool executor, in-memory journal | "
            + fmt(1e6 / tr.get(0).successes())
            + " us | "
            + String.format(Locale.ROOT, "%.3f", 1e6 / tr.get(1).successes())
            + " us | overhead "
            + fmt(1e6 / tr.get(0).successes() - 1e6 / tr.get(1).successes())
            + " us |");
    // Two forced appends per call (intent and start, then the outcome); concurrent calls share
    // forces, so four threads pay for fewer than two each.
    for (int threads : List.of(1, 4)) {
      List<Throughput.Rate> tdr =
          Throughput.interleaved(
              List.of((i, n) -> () -> durable.call(toolToken, "noop", args) != null),
              threads,
              window,
              windows);
      line(
          "| tool executor, durable file journal, "
              + threads
              + (threads == 1 ? " thread" : " threads")
              + " (time per call: 1 / throughput) | "
              + fmt(1e6 / tdr.get(0).successes())
              + " us | | |");
    }
    line("");
  }

  /** A row of the guarded write's time, the bare write's, and the guarded one's cost as a ratio. */
  private void guardedAndBare(String what, Throughput.Rate guarded, Throughput.Rate bare) {
    line(
        row(
            what,
            fmt(1e6 / guarded.successes()) + " us",
            fmt(1e6 / bare.successes()) + " us",
            ratio(bare.successes(), guarded.successes())));
  }
}
