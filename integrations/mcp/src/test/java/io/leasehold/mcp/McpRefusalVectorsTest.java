package io.leasehold.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.fencing.Refusal;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Issue 46: the Java and the Node fence answered with different refusal objects (Node wrote fences
 * as JSON numbers, losing precision above 2^53, expiry in epoch milliseconds, and had no {@code
 * unavailable} or {@code duplicate}). Both now write the object of docs/mcp.md, checked against the
 * same vectors (docs/mcp-refusal-vectors.json; typescript/test/mcp.test.mjs reads them too), whose
 * refusal objects are those of docs/refusal-vectors.json.
 */
class McpRefusalVectorsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final McpJsonMapper MCP_JSON = new JacksonMcpJsonMapper(JSON);
  static final Path VECTORS =
      Path.of("..", "..", "docs", "mcp-refusal-vectors.json").toAbsolutePath().normalize();
  private static final Path REFUSAL_VECTORS = VECTORS.resolveSibling("refusal-vectors.json");

  /**
   * Each case's refusal object is the one docs/refusal-vectors.json writes for the same input
   * (fencing-api's {@code RefusalVectorsTest} makes it from the input there), except MCP's own
   * {@code missing}, whose words say where the token goes; here it travels as a tool result, both
   * ways.
   */
  @Test
  void javaWritesEveryRefusalVectorExactly() throws Exception {
    JsonNode cases = JSON.readTree(Files.readString(VECTORS)).get("cases");
    assertThat(cases.size()).isGreaterThanOrEqualTo(10);
    Map<JsonNode, JsonNode> objects = new HashMap<>();
    for (JsonNode c : JSON.readTree(Files.readString(REFUSAL_VECTORS)).get("cases")) {
      objects.put(c.get("input"), c.get("object"));
    }
    for (JsonNode c : cases) {
      String name = c.get("name").asText();
      JsonNode in = c.get("input");
      JsonNode expected = c.get("result");
      JsonNode object = expected.get("_meta").get(McpFencing.REFUSAL_META_KEY);
      Refusal refusal =
          McpRefusal.from(MCP_JSON.readValue(expected.toString(), CallToolResult.class))
              .orElseThrow();
      assertThat(refusal.reason().wireName()).as(name).isEqualTo(in.get("reason").asText());
      if (refusal.reason() == Refusal.Reason.MISSING) {
        Refusal missing = McpRefusal.of(refusal.reason(), null, OptionalLong.empty(), null);
        JsonNode missingObject = JSON.valueToTree(missing.written());
        assertThat(missingObject).as(name).isEqualTo(object);
      } else {
        assertThat(objects.get(in)).as(name + ": as docs/refusal-vectors.json").isEqualTo(object);
      }
      JsonNode written = JSON.readTree(MCP_JSON.writeValueAsString(McpRefusal.toResult(refusal)));
      assertThat(written).as(name).isEqualTo(expected);
      assertThat(written.get("content").get(0).get("text").asText())
          .containsOnlyOnce("NOT run")
          .doesNotContain("did not run");
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
}
