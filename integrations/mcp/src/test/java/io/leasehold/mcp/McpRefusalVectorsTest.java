package io.leasehold.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.Refusal;
import io.leasehold.fencing.TokenSignature;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Issue 46: the Java and the Node fence answered with different refusal objects (Node wrote fences
 * as JSON numbers, losing precision above 2^53, expiry in epoch milliseconds, and had no {@code
 * unavailable} or {@code duplicate}). Both now write the object of docs/mcp.md, checked against the
 * same vectors (docs/mcp-refusal-vectors.json; typescript/test/mcp.test.mjs reads them too).
 */
class McpRefusalVectorsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final McpJsonMapper MCP_JSON = new JacksonMcpJsonMapper(JSON);
  static final Path VECTORS =
      Path.of("..", "..", "docs", "mcp-refusal-vectors.json").toAbsolutePath().normalize();

  @Test
  void javaWritesEveryRefusalVectorExactly() throws Exception {
    JsonNode cases = JSON.readTree(Files.readString(VECTORS)).get("cases");
    assertThat(cases.size()).isGreaterThanOrEqualTo(10);
    for (JsonNode c : cases) {
      JsonNode in = c.get("input");
      Refusal.Reason reason =
          Refusal.Reason.valueOf(in.get("reason").asText().toUpperCase(Locale.ROOT));
      OptionalLong highest =
          in.has("highestSeen")
              ? OptionalLong.of(Long.parseLong(in.get("highestSeen").asText()))
              : OptionalLong.empty();
      CallToolResult result =
          McpRefusal.toResult(
              McpRefusal.of(reason, token(in), highest, in.path("detail").asText(null)));
      JsonNode written = JSON.readTree(MCP_JSON.writeValueAsString(result));
      JsonNode expected = c.get("result");
      assertThat(written.get("content"))
          .as(c.get("name").asText())
          .isEqualTo(expected.get("content"));
      assertThat(written.get("isError"))
          .as(c.get("name").asText())
          .isEqualTo(expected.get("isError"));
      assertThat(written.get("_meta")).as(c.get("name").asText()).isEqualTo(expected.get("_meta"));
      assertThat(written.get("content").get(0).get("text").asText())
          .containsOnlyOnce("NOT run")
          .doesNotContain("did not run");
      // And it reads back: the client side of the same object.
      CallToolResult read = MCP_JSON.readValue(expected.toString(), CallToolResult.class);
      Refusal back = McpRefusal.from(read).orElseThrow();
      assertThat(back.reason()).isEqualTo(reason);
      assertThat(back.highestSeen()).isEqualTo(highest);
      if (in.has("fence")) {
        assertThat(back.fence()).hasValue(Long.parseLong(in.get("fence").asText()));
      }
    }
  }

  @Test
  void theFencesOwnWordsAreTheVectorsWords() throws Exception {
    JsonNode m = JSON.readTree(Files.readString(VECTORS)).get("messages");
    assertThat(McpRefusal.MISSING_MESSAGE)
        .isEqualTo(m.get("missing").asText())
        .doesNotContain("McpRunFence");
    assertThat(McpRefusal.TOKEN_NOT_A_STRING_MESSAGE).isEqualTo(m.get("tokenNotAString").asText());
    assertThat(McpRefusal.BAD_IDEMPOTENCY_KEY_MESSAGE)
        .isEqualTo(m.get("badIdempotencyKey").asText());
    assertThat(Refusal.DUPLICATE_MESSAGE).isEqualTo(m.get("duplicate").asText());
    assertThat(Refusal.UNAVAILABLE_MESSAGE).isEqualTo(m.get("unavailable").asText());
    assertThat(McpFencing.toolNote(true)).isEqualTo(m.get("toolNoteRequired").asText());
    assertThat(McpFencing.toolNote(false)).isEqualTo(m.get("toolNoteOptional").asText());
  }

  /** A refusal of an older server (fences as JSON numbers) still reads. */
  @Test
  void numericFencesOfOlderServersStillRead() throws Exception {
    CallToolResult old =
        MCP_JSON.readValue(
            "{\"content\":[{\"type\":\"text\",\"text\":\"x\"}],\"isError\":true,"
                + "\"_meta\":{\"io.leasehold/refusal\":{\"reason\":\"superseded\",\"fence\":1,\"highestSeen\":2,\"message\":\"m\"}}}",
            CallToolResult.class);
    assertThat(McpRefusal.from(old).orElseThrow().highestSeen()).hasValue(2);
  }

  /**
   * Red team, issue 46: a server's superseded refusal with highestSeen "0" or 2.5 was read as the
   * newer run's fence 0 or 2 (below the run's own). Fences are 1 to 2^63-1, as decimal strings or
   * JSON integers; anything else is no fence.
   */
  @Test
  void impossibleFencesInARefusalAreNoFence() throws Exception {
    for (String bad :
        new String[] {
          "\"0\"",
          "2.5",
          "0",
          "-1",
          "\"-5\"",
          "\" 7\"",
          "\"1.5\"",
          "9223372036854775808",
          "\"9223372036854775808\""
        }) {
      CallToolResult r =
          MCP_JSON.readValue(
              "{\"content\":[{\"type\":\"text\",\"text\":\"x\"}],\"isError\":true,"
                  + "\"_meta\":{\"io.leasehold/refusal\":{\"reason\":\"superseded\",\"fence\":\"3\",\"highestSeen\":"
                  + bad
                  + ",\"message\":\"m\"}}}",
              CallToolResult.class);
      assertThat(McpRefusal.from(r).orElseThrow().highestSeen())
          .as("highestSeen %s", bad)
          .isEmpty();
    }
  }

  private static FencingToken token(JsonNode in) {
    if (!in.has("accountId")) {
      return null;
    }
    FencingToken t =
        new FencingToken(
            LeaseKey.of(in.get("accountId").asText(), in.get("sessionId").asText()),
            Long.parseLong(in.get("fence").asText()),
            UUID.randomUUID());
    if (in.has("validFromMillis")) {
      t =
          t.withSignature(
              new TokenSignature(
                  "store-1",
                  Instant.ofEpochMilli(Long.parseLong(in.get("validFromMillis").asText())),
                  Instant.ofEpochMilli(Long.parseLong(in.get("validUntilMillis").asText())),
                  "AAAA"));
    }
    return t;
  }
}
