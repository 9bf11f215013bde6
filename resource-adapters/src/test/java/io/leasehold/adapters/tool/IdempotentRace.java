package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.TestTools.idempotent;
import static io.leasehold.adapters.tool.TestTools.trustingExecutor;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.fencing.FencingToken;
import io.leasehold.testing.Contenders;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Callers racing one idempotent call through a journal: the tool runs once, every other caller is
 * answered from the journal or told the call is a duplicate in flight, and a later repeat is a
 * replay. Written once for every journal.
 */
final class IdempotentRace {
  private static final int CALLERS = 4;

  private IdempotentRace() {}

  /**
   * Races {@value #CALLERS} callers of one call with one idempotency key and checks the tool ran
   * once.
   *
   * @param journal the journal under test
   * @param token the run the callers share
   * @throws Exception if a caller does not finish
   */
  static void runsTheToolOnce(ToolJournal journal, FencingToken token) throws Exception {
    JsonNode args = JsonNodeFactory.instance.objectNode().put("invoice", 7);
    AtomicInteger runs = new AtomicInteger();
    FencedTool pay =
        idempotent(
            "pay",
            arguments -> "invoice-" + arguments.get("invoice").asInt(),
            invocation -> {
              runs.incrementAndGet();
              Thread.sleep(50); // the payment API's round trip, so the duplicates overlap it
              return JsonNodeFactory.instance.textNode("paid");
            });
    FencedToolExecutor tools = trustingExecutor(journal).tool(pay).build();
    List<String> seen =
        Contenders.atOnce(
            CALLERS,
            () -> {
              try {
                return tools.call(token, "pay", args).replayed() ? "replayed" : "ran";
              } catch (DuplicateCallException e) {
                return "duplicate";
              }
            },
            Duration.ofSeconds(30));
    assertThat(runs).hasValue(1);
    assertThat(seen).containsOnlyOnce("ran").hasSize(CALLERS);
    assertThat(tools.call(token, "pay", args).replayed()).isTrue();
    assertThat(runs).hasValue(1);
  }
}
