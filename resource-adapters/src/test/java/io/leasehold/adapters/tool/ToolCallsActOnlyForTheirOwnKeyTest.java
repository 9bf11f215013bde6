package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.TestTools.idempotent;
import static io.leasehold.adapters.tool.TestTools.trustingExecutor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerificationException;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Issue 27, finding 1 at the tool executor (CONTRACT C19): nothing tied a tool call's resource to
 * the key whose token admitted it, so mallory's valid token could have a file tool write under the
 * victim's directory. A {@link ToolScope} now refuses such a call before it is journaled.
 */
class ToolCallsActOnlyForTheirOwnKeyTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private final LeaseKey victim = LeaseKey.of("victim", "chat");
  private final LeaseKey mallory = LeaseKey.of("mallory", "own");
  private final AtomicInteger ran = new AtomicInteger();

  private final FencedTool writeFile =
      FencedTool.of(
          "write_file",
          args -> {
            ran.incrementAndGet();
            return JSON.textNode("wrote " + args.get("path").asText());
          });

  @Test
  void aCallNamingAnotherKeysPathIsRefusedBeforeItIsJournaled() {
    MemoryToolJournal journal = new MemoryToolJournal();
    FencedToolExecutor tools =
        trustingExecutor(journal).scope(ToolScope.argumentUnderKey("path")).tool(writeFile).build();
    FencingToken token = new FencingToken(mallory, 9, UUID.randomUUID());
    for (String path :
        new String[] {"victim/chat/notes.md", "mallory/own/../../victim/chat/x", "notes.md"}) {
      assertThatThrownBy(() -> tools.call(token, "write_file", JSON.objectNode().put("path", path)))
          .isInstanceOfSatisfying(
              TokenVerificationException.class,
              e -> assertThat(e.reason()).isEqualTo(TokenVerificationException.Reason.OUT_OF_SCOPE))
          .hasMessageContaining("mallory/own")
          .hasMessageContaining("nothing was journaled");
    }
    assertThatThrownBy(() -> tools.call(token, "write_file", JSON.objectNode()))
        .isInstanceOf(TokenVerificationException.class);
    assertThat(ran).hasValue(0);
    assertThat(journal.calls(mallory)).isEmpty();
    assertThat(journal.highWaterMark(mallory)).isEmpty();

    assertThat(
            tools
                .call(token, "write_file", JSON.objectNode().put("path", "mallory/own/x.md"))
                .value()
                .asText())
        .isEqualTo("wrote mallory/own/x.md");
  }

  @Test
  void anIdempotentReplayNeverAnswersAnotherKey() {
    FencedTool lookup =
        idempotent(
            "lookup",
            arguments -> "q-1",
            invocation -> JSON.textNode("secret of " + invocation.token().key().accountId()));
    FencedToolExecutor tools = trustingExecutor(new MemoryToolJournal()).tool(lookup).build();
    tools.call(new FencingToken(victim, 1, UUID.randomUUID()), "lookup", JSON.objectNode());
    ToolResult hers =
        tools.call(new FencingToken(mallory, 1, UUID.randomUUID()), "lookup", JSON.objectNode());
    assertThat(hers.replayed()).isFalse();
    assertThat(hers.value().asText()).isEqualTo("secret of mallory");
  }
}
