package io.leasehold.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.adapters.jdbc.FencedJdbcWriter;
import io.leasehold.adapters.jdbc.HighWaterSchema;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.Refusal;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testing.Sql;
import io.leasehold.testing.TestDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 29's cross-language tests (CONTRACT C22), against the TypeScript package the build has just
 * compiled ({@code typescript/dist}) on the machine's Node: a Java MCP client calls a Node MCP
 * server over stdio, and Java and Node writers interleave on one PostgreSQL high-water table.
 * (Java-issued tokens verified by Node: the package's vector test runs docs/token-vectors.json,
 * whose tokens the Java library signed.)
 */
class CrossLanguageTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate(
          "high_water_cross", ds -> HighWaterSchema.defaults().apply(ds));

  static final Path PACKAGE = Path.of("..", "..", "typescript").toAbsolutePath().normalize();
  private static final LeaseKey SESSION = LeaseKey.of("acct-7", "chat-1");
  @TempDir Path dir;

  @Test
  void aJavaClientsSupersededCallIsRefusedByANodeServerAndItsBodyDoesNotRun() throws Exception {
    SigningKey signing = SigningKey.generate(SignatureScheme.ED25519, "store-1");
    ServerParameters node =
        ServerParameters.builder("node")
            .args(
                PACKAGE.resolve("fixtures/files-server.mjs").toString(),
                dir.resolve("world").toString(),
                TokenKeySet.of(signing.verificationKey()).toText())
            .build();
    McpSyncClient client = McpWorld.connect(node);
    try {
      McpRunFence desktop = McpRunFence.of(sign(signing, 1));
      McpRunFence browser = McpRunFence.of(sign(signing, 2));
      desktop.callTool(client, write("desktop draft"));
      browser.callTool(client, write("browser plan"));
      assertThatThrownBy(() -> desktop.callTool(client, write("desktop late")))
          .isInstanceOfSatisfying(
              RunStoppedException.class,
              e -> {
                assertThat(e.stop().reason()).isEqualTo(Refusal.Reason.SUPERSEDED);
                assertThat(e.stop().newerFence()).hasValue(2);
              });
      FencingToken forged =
          SigningKey.generate(SignatureScheme.ED25519, "store-1")
              .sign(
                  new FencingToken(SESSION, 9, UUID.randomUUID()),
                  Clock.systemUTC(),
                  Duration.ofMinutes(5));
      assertThatThrownBy(() -> McpRunFence.of(forged).callTool(client, write("forged")))
          .isInstanceOfSatisfying(
              RunStoppedException.class,
              e -> assertThat(e.stop().reason()).isEqualTo(Refusal.Reason.FORGED));
    } finally {
      client.closeGracefully();
    }
    McpWorld.assertTheBrowsersPlanFollowedTheDesktopsDraft(dir);
  }

  /**
   * CONTRACT C21 for the Node guard: a table lock held elsewhere (a migration's ALTER TABLE) ends a
   * write at the guard's lock timeout, and the next write goes through once the lock is gone.
   * Before, the timeout was set inside the admission, after the statements that wait for the
   * table's lock, and the write waited as long as the lock was held.
   */
  @Test
  void aTableLockEndsANodeWriteAtItsLockTimeout() throws Exception {
    TestDatabase d = db.database();
    d.execute(
        "CREATE TABLE IF NOT EXISTS writes (id bigserial PRIMARY KEY, fence bigint NOT NULL, writer text NOT NULL)");
    LeaseKey key = LeaseKey.of("acct-7", "locked-" + UUID.randomUUID());
    try (NodePgWriter node = NodePgWriter.start(NodePgWriter.url(d), "200");
        Connection migration = d.newConnection()) {
      migration.setAutoCommit(false);
      try (Statement st = migration.createStatement()) {
        st.execute("LOCK TABLE leasehold_high_water IN ACCESS EXCLUSIVE MODE");
      }
      String answer = node.write(new FencingToken(key, 1, UUID.randomUUID()));
      assertThat(answer).startsWith("error ").contains("lock timeout");
      migration.rollback();
      assertThat(node.write(new FencingToken(key, 2, UUID.randomUUID()))).isEqualTo("admitted 2");
    }
  }

  /**
   * Issue 46 item 2: the Node guard named its table unqualified, so a look-alike {@code
   * leasehold_high_water} in a schema named after the database user (first on PostgreSQL's default
   * search_path) took Node's marks: after Java admitted fence 50 in {@code public}, Node admitted a
   * stale fence 5 in the look-alike, and the marks split. Now every name is schema-qualified
   * ({@code public} by default, as the Java writer's).
   */
  @Test
  void aLookAlikeHighWaterTableFirstOnTheSearchPathNeverTakesNodesMarks() throws Exception {
    TestDatabase d = db.database();
    String user = d.server().user();
    d.execute(
        "CREATE TABLE IF NOT EXISTS public.writes (id bigserial PRIMARY KEY, fence bigint NOT NULL, writer text NOT NULL)");
    d.execute("CREATE SCHEMA IF NOT EXISTS \"" + user + "\"");
    d.execute(
        "CREATE TABLE \""
            + user
            + "\".leasehold_high_water (LIKE public.leasehold_high_water INCLUDING ALL)");
    LeaseKey key = LeaseKey.of("acct-7", "lookalike-" + UUID.randomUUID());
    FencedJdbcWriter javaWriter =
        FencedJdbcWriter.builder(d.dataSource()).verifier(TokenVerifier.trustEveryWriter()).build();
    javaWriter.admit(new FencingToken(key, 50, UUID.randomUUID()));
    try (NodePgWriter node = NodePgWriter.start(NodePgWriter.url(d))) {
      assertThat(node.write(new FencingToken(key, 5, UUID.randomUUID()))).isEqualTo("stale 50");
      assertThat(node.write(new FencingToken(key, 51, UUID.randomUUID()))).isEqualTo("admitted 51");
      assertThat(javaWriter.highWaterMark(key)).hasValue(51);
      try (Connection c = d.newConnection();
          Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery("SELECT count(*) FROM \"" + user + "\".leasehold_high_water")) {
        rs.next();
        assertThat(rs.getLong(1)).as("rows in the look-alike table").isZero();
      }
    } finally {
      // The class shares one database: the other tests name their tables unqualified.
      d.execute("DROP SCHEMA \"" + user + "\" CASCADE");
      d.execute("DROP TABLE public.writes");
    }
  }

  /**
   * Red team, issue 46: qualifying the table was not enough. With a search_path that lists a schema
   * before an explicit pg_catalog (a role's setting, a connection option), a look-alike {@code <=}
   * there made the Node guard admit a stale fence 1 after fence 5 and lower the mark. Both writers
   * now name pg_catalog's operators.
   */
  @Test
  void aLookAlikeOperatorBeforePgCatalogOnTheSearchPathNeverAdmitsAStaleWrite() throws Exception {
    TestDatabase d = db.database();
    d.execute(
        "CREATE TABLE IF NOT EXISTS public.writes (id bigserial PRIMARY KEY, fence bigint NOT NULL, writer text NOT NULL)");
    d.execute("CREATE SCHEMA evil");
    d.execute(
        "CREATE FUNCTION evil.yes(bigint, bigint) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT true'");
    d.execute("CREATE OPERATOR evil.<= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.yes)");
    d.execute(
        "CREATE FUNCTION evil.same(text, text) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT true'");
    d.execute("CREATE OPERATOR evil.= (LEFTARG = text, RIGHTARG = text, FUNCTION = evil.same)");
    LeaseKey key = LeaseKey.of("acct-7", "operator-" + UUID.randomUUID());
    LeaseKey other = LeaseKey.of("acct-7", "other-" + UUID.randomUUID());
    FencedJdbcWriter honest =
        FencedJdbcWriter.builder(d.dataSource()).verifier(TokenVerifier.trustEveryWriter()).build();
    honest.admit(new FencingToken(other, 90, UUID.randomUUID()));
    honest.admit(new FencingToken(key, 5, UUID.randomUUID()));
    String evilPath = "-c search_path=evil,pg_catalog,public";
    String url =
        NodePgWriter.url(d)
            + (d.jdbcUrl().contains("?") ? "&" : "?")
            + "options="
            + java.net.URLEncoder.encode(evilPath, StandardCharsets.UTF_8).replace("+", "%20");
    try (NodePgWriter node = NodePgWriter.start(url);
        com.zaxxer.hikari.HikariDataSource evilPool = new com.zaxxer.hikari.HikariDataSource()) {
      assertThat(node.write(new FencingToken(key, 1, UUID.randomUUID()))).isEqualTo("stale 5");
      evilPool.setJdbcUrl(
          d.jdbcUrl()
              + (d.jdbcUrl().contains("?") ? "&" : "?")
              + "options="
              + java.net.URLEncoder.encode(evilPath, StandardCharsets.UTF_8).replace("+", "%20"));
      evilPool.setUsername(d.server().user());
      evilPool.setPassword(d.server().password());
      evilPool.setMaximumPoolSize(2);
      FencedJdbcWriter javaOnEvilPath =
          FencedJdbcWriter.builder(evilPool).verifier(TokenVerifier.trustEveryWriter()).build();
      assertThatThrownBy(() -> javaOnEvilPath.admit(new FencingToken(key, 2, UUID.randomUUID())))
          .isInstanceOf(io.leasehold.fencing.StaleFenceException.class);
      assertThat(javaOnEvilPath.highWaterMark(key)).hasValue(5);
      assertThat(honest.highWaterMark(key)).hasValue(5);
    } finally {
      d.execute("DROP SCHEMA evil CASCADE");
      d.execute("DROP TABLE public.writes");
    }
  }

  @Test
  void javaAndNodeWritersShareOneMarkAndEveryStaleWriteIsRefused() throws Exception {
    TestDatabase d = db.database();
    try (Connection c = d.dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE writes (id bigserial PRIMARY KEY, fence bigint NOT NULL, writer text NOT NULL)");
    }
    FencedJdbcWriter java =
        FencedJdbcWriter.builder(d.dataSource()).verifier(TokenVerifier.trustEveryWriter()).build();
    Random random = new Random(29);
    long next = 1;
    long highest = 0;
    int stale = 0;
    List<Long> admitted = new ArrayList<>();
    try (NodePgWriter node = NodePgWriter.start(NodePgWriter.url(d))) {
      for (int i = 0; i < 80; i++) {
        boolean staleOne = highest > 1 && random.nextInt(3) == 0;
        long fence = staleOne ? 1 + random.nextInt((int) highest - 1) : next++;
        FencingToken token = new FencingToken(SESSION, fence, UUID.randomUUID());
        boolean viaNode = random.nextBoolean();
        boolean ok;
        if (viaNode) {
          String answer = node.write(token);
          assertThat(answer)
              .as("node's answer to fence %d", fence)
              .matches("admitted \\d+|stale \\d+");
          ok = answer.startsWith("admitted");
        } else {
          try {
            java.write(
                token,
                (conn, t) ->
                    Sql.update(
                        conn, "INSERT INTO writes (fence, writer) VALUES (?, 'java')", t.fence()));
            ok = true;
          } catch (StaleFenceException e) {
            ok = false;
          }
        }
        assertThat(ok)
            .as("fence %d (highest %d) via %s", fence, highest, viaNode ? "node" : "java")
            .isEqualTo(!staleOne);
        if (ok) {
          admitted.add(fence);
          highest = fence;
        } else {
          stale++;
        }
      }
    }
    List<Long> rows = new ArrayList<>();
    List<String> writers = new ArrayList<>();
    try (Connection c = d.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT fence, writer FROM writes ORDER BY id")) {
      while (rs.next()) {
        rows.add(rs.getLong(1));
        writers.add(rs.getString(2));
      }
    }
    assertThat(rows).isEqualTo(admitted).isSorted().doesNotHaveDuplicates();
    assertThat(writers).contains("java", "node");
    assertThat(stale).isPositive();
    assertThat(java.highWaterMark(SESSION)).hasValue(highest);
  }

  private static FencingToken sign(SigningKey key, long fence) {
    return key.sign(
        new FencingToken(SESSION, fence, UUID.randomUUID()),
        Clock.systemUTC(),
        Duration.ofMinutes(5));
  }

  private static CallToolRequest write(String content) {
    return CallToolRequest.builder("write_file")
        .arguments(Map.of("path", "acct-7/chat-1/plan.md", "content", content))
        .build();
  }
}
