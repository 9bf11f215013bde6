package io.leasehold.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.adapters.jdbc.FencedJdbcWriter;
import io.leasehold.adapters.jdbc.HighWaterSchema;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.fencing.mark.MarkStoreException;
import io.leasehold.testing.TestDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SQL mark store's fail-closed rules, one corpus for both languages
 * (docs/high-water-table-vectors.json): each case's table is set up twice, in a schema for the Java
 * {@link FencedJdbcWriter} and one for the Node {@code PostgresFenceGuard}
 * (typescript/fixtures/high-water-vectors.mjs), and both must give the case's verdict. Red team,
 * issue 47 (B1): the Node guard admitted fence 9 over a mark of 10 in a table whose fence column is
 * text, and a fence over a negative mark, both of which the Java writer refuses.
 */
class HighWaterTableVectorsTest {
  @RegisterExtension static final TestDatabaseExtension db = TestDatabaseExtension.empty();

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path VECTORS =
      Path.of("..", "..", "docs", "high-water-table-vectors.json").toAbsolutePath().normalize();
  private static final LeaseKey KEY = LeaseKey.of("acct", "chat");

  @Test
  void javaAndNodeGiveEveryCaseItsVerdict() throws Exception {
    JsonNode cases = JSON.readTree(Files.readString(VECTORS)).get("cases");
    assertThat(cases.size()).isGreaterThanOrEqualTo(10);
    TestDatabase d = db.database();
    Process node =
        new ProcessBuilder(
                "node",
                CrossLanguageTest.PACKAGE.resolve("fixtures/high-water-vectors.mjs").toString(),
                NodePgWriter.url(d))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try (PrintWriter toNode =
            new PrintWriter(node.getOutputStream(), true, StandardCharsets.UTF_8);
        BufferedReader fromNode =
            new BufferedReader(
                new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8))) {
      List<String> failures = new ArrayList<>();
      int i = 0;
      for (JsonNode c : cases) {
        String javaSchema = "hw_java_" + i;
        String nodeSchema = "hw_node_" + i++;
        setUp(d, javaSchema, c);
        setUp(d, nodeSchema, c);
        FencingToken token =
            new FencingToken(KEY, Long.parseLong(c.get("fence").asText()), UUID.randomUUID());
        ObjectNode request = JSON.createObjectNode().put("schema", nodeSchema);
        toNode.println(request.put("token", token.toText()));
        check(failures, c, "java", javaSchema, java(d, javaSchema, token));
        check(failures, c, "node", nodeSchema, (ObjectNode) JSON.readTree(fromNode.readLine()));
      }
      assertThat(failures).isEmpty();
    } finally {
      node.destroy();
      node.waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** The table HighWaterSchema creates, in a schema of its own, then the case's setup. */
  private static void setUp(TestDatabase d, String schema, JsonNode c) throws Exception {
    try (Connection conn = d.newConnection();
        Statement st = conn.createStatement()) {
      st.execute("CREATE SCHEMA " + schema);
      st.execute("SET search_path TO " + schema);
      st.execute(HighWaterSchema.defaults().sqlScript());
      for (JsonNode sql : c.get("setup")) {
        st.execute(sql.asText().replace("{table}", schema + ".leasehold_high_water"));
      }
    }
  }

  /** The Java writer's answer, in the fixture's form. */
  private static ObjectNode java(TestDatabase d, String schema, FencingToken token) {
    FencedJdbcWriter writer =
        FencedJdbcWriter.builder(d.dataSource())
            .verifier(TokenVerifier.trustEveryWriter())
            .databaseSchema(schema)
            .build();
    ObjectNode answer = JSON.createObjectNode();
    try {
      writer.write(token, (c, t) -> 1);
      return answer.put("verdict", "admitted");
    } catch (StaleFenceException e) {
      return answer.put("verdict", "stale").put("highestSeen", String.valueOf(e.highestFence()));
    } catch (MarkStoreException | ResourceAccessException e) {
      // A mark that is not a fence, or the table check's error (in the writer's own exception).
      return answer.put("verdict", "refused").put("message", e.getMessage());
    } catch (RuntimeException e) {
      return answer.put("verdict", "error").put("message", String.valueOf(e));
    }
  }

  private static void check(
      List<String> failures, JsonNode c, String who, String schema, ObjectNode answer) {
    String expected = c.get("verdict").asText();
    String table = schema + ".leasehold_high_water";
    boolean ok = expected.equals(answer.path("verdict").asText());
    if (ok && expected.equals("stale")) {
      ok = c.get("highestSeen").asText().equals(answer.path("highestSeen").asText());
    }
    if (ok && expected.equals("refused")) {
      String message = answer.path("message").asText();
      ok = message.contains(table);
      for (JsonNode part : c.get("message")) {
        ok &= message.contains(part.asText());
      }
    }
    if (!ok) {
      failures.add(c.get("name").asText() + " (" + who + "): expected " + expected + ", " + answer);
    }
  }
}
