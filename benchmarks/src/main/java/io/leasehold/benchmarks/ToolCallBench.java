package io.leasehold.benchmarks;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.adapters.tool.FencedTool;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.FileToolJournal;
import io.leasehold.adapters.tool.JdbcToolJournal;
import io.leasehold.adapters.tool.ToolJournal;
import io.leasehold.adapters.tool.ToolJournalSchema;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** A fenced tool call through each durable journal (group {@code toolcalls}). */
final class ToolCallBench extends BenchGroup {
  ToolCallBench(BenchGroup.Context context) {
    super(context);
  }

  /**
   * Time per call of a no-op tool through the file journal and the PostgreSQL journal, from 1 and 4
   * threads, each thread a session of its own. What a call costs is its durable writes: the intent
   * and start before the tool runs, the outcome before the result returns. Alone: {@code mvn -q -pl
   * benchmarks -am -DskipTests -Pbench verify -Dbench.args="group=toolcalls"}.
   */
  void toolCalls() throws Exception {
    line("## Durable tool calls");
    line("");
    line("Time per call of a no-op tool (1 / throughput; each thread its own session):");
    line("");
    line("| journal | 1 thread | 4 threads |");
    line("| --- | --- | --- |");
    FencedTool tool = FencedTool.of("noop", args -> args);
    ObjectNode args = JsonNodeFactory.instance.objectNode().put("x", 1);
    Path dir = Files.createTempDirectory("leasehold-bench-tools");
    HikariDataSource pool = db.pool(6);
    ToolJournalSchema.defaults().apply(pool);
    JdbcToolJournal inPostgres = JdbcToolJournal.create(pool);
    List<ToolJournal> journals =
        List.of(FileToolJournal.open(dir.resolve("tools.jsonl")), inPostgres, twoSteps(inPostgres));
    List<String> names =
        List.of(
            "file (`FileToolJournal`)",
            "PostgreSQL (`JdbcToolJournal`)",
            "PostgreSQL, the intent committed on its own before the start (as the journal did before 2026-12-05)");
    // The journals of a thread count run window by window in turn, so their ratios are side by
    // side.
    double[][] perCall = new double[journals.size()][];
    for (int j = 0; j < journals.size(); j++) {
      perCall[j] = new double[2];
    }
    List<Integer> threadCounts = List.of(1, 4);
    for (int t = 0; t < threadCounts.size(); t++) {
      List<Throughput.OpFactory> calls = new ArrayList<>();
      for (ToolJournal journal : journals) {
        FencedToolExecutor executor =
            FencedToolExecutor.builder()
                .verifier(TokenVerifier.trustEveryWriter())
                .journal(journal)
                .tool(tool)
                .build();
        String run = UUID.randomUUID().toString();
        calls.add(
            (i, n) -> {
              FencingToken token =
                  new FencingToken(
                      LeaseKey.of("bench", "tools-" + run + "-" + i), 1, UUID.randomUUID());
              return () -> executor.call(token, "noop", args) != null;
            });
      }
      List<Throughput.Rate> rates =
          Throughput.interleaved(calls, threadCounts.get(t), window, windows);
      for (int j = 0; j < journals.size(); j++) {
        perCall[j][t] = 1e6 / rates.get(j).successes();
      }
    }
    for (int j = 0; j < journals.size(); j++) {
      line(
          "| "
              + names.get(j)
              + " | "
              + fmt(perCall[j][0])
              + " us | "
              + fmt(perCall[j][1])
              + " us |");
    }
    db.closeOpened();
    line("");
  }

  /**
   * The journal as it was before it wrote a call's intent and start in one transaction: every
   * method forwarded, but {@link ToolJournal#start} left to the interface's default, which calls
   * {@code intended} and then {@code admitAndStart}.
   */
  private static ToolJournal twoSteps(ToolJournal journal) {
    return (ToolJournal)
        Proxy.newProxyInstance(
            ToolJournal.class.getClassLoader(),
            new Class<?>[] {ToolJournal.class},
            (proxy, method, a) -> {
              if (method.isDefault() && method.getName().equals("start")) {
                return InvocationHandler.invokeDefault(proxy, method, a);
              }
              try {
                return method.invoke(journal, a);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
