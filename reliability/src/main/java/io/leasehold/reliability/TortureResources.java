package io.leasehold.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.adapters.file.FileOperation;
import io.leasehold.adapters.file.StoredFile;
import io.leasehold.adapters.jdbc.FencedJdbcWriter;
import io.leasehold.adapters.jdbc.HighWaterSchema;
import io.leasehold.adapters.tool.FencedTool;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.FileToolJournal;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The three adapters every worker writes through, shared by all processes of a run: a file store
 * (with its audit log) in a shared directory, a tool executor with a shared journal file, and the
 * database writer on a register table with a log of admitted writes.
 */
final class TortureResources {
  private final FencedFileStore files;
  private final FencedToolExecutor tools;
  private final FencedJdbcWriter db;

  TortureResources(Path dir, DataSource ds) {
    this.files =
        FencedFileStore.builder(dir.resolve("files"))
            .verifier(TokenVerifier.trustEveryWriter())
            .auditLog(true)
            .open();
    this.tools =
        FencedToolExecutor.builder()
            .verifier(TokenVerifier.trustEveryWriter())
            .journal(FileToolJournal.open(dir.resolve("tools.jsonl")))
            .tool(FencedTool.of("set", args -> JsonNodeFactory.instance.textNode("ok")))
            .build();
    this.db =
        FencedJdbcWriter.builder(ds)
            .verifier(TokenVerifier.trustEveryWriter())
            .lockTimeout(java.time.Duration.ofMillis(500))
            .build();
  }

  static void createSchema(DataSource ds) {
    HighWaterSchema.defaults().apply(ds);
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      // The register each write sets, and a log of every admitted write (the checker's evidence).
      s.execute(
          "CREATE TABLE IF NOT EXISTS torture_register (account_id text, session_id text, value text,"
              + " PRIMARY KEY (account_id, session_id)); CREATE TABLE IF NOT EXISTS torture_log (seq bigserial PRIMARY KEY,"
              + " account_id text, session_id text, fence bigint, run_id uuid, write_id text)");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  static String path(LeaseKey key) {
    return key.accountId() + "/" + key.sessionId() + "/register";
  }

  /**
   * Writes through one adapter; returns the id the resource records (for the tool, its call id).
   */
  String write(String adapter, Fenced fenced, LeaseKey key, String writeId) {
    switch (adapter) {
      case "file" -> {
        files.write(fenced, path(key), writeId.getBytes(StandardCharsets.UTF_8));
        return writeId;
      }
      case "tool" -> {
        return tools
            .call(fenced, "set", JsonNodeFactory.instance.objectNode().put("writeId", writeId))
            .callId()
            .toString();
      }
      case "jdbc" -> {
        db.write(
            fenced,
            (c, token) -> {
              // The register and the log in one statement of the fenced transaction.
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "WITH reg AS (INSERT INTO torture_register VALUES (?, ?, ?) ON CONFLICT (account_id, session_id)"
                          + " DO UPDATE SET value = EXCLUDED.value RETURNING account_id, session_id, value)"
                          + " INSERT INTO torture_log (account_id, session_id, fence, run_id, write_id)"
                          + " SELECT account_id, session_id, ?, ?, value FROM reg")) {
                ps.setString(1, key.accountId());
                ps.setString(2, key.sessionId());
                ps.setString(3, writeId);
                ps.setLong(4, token.fence());
                ps.setObject(5, token.runId());
                ps.executeUpdate();
              }
              return null;
            });
        return writeId;
      }
      default -> throw new IllegalArgumentException(adapter);
    }
  }

  /**
   * One admitted operation in a resource's own log.
   *
   * @param token the admitted token
   * @param id the write id (file: none; tool: the call id; jdbc: the write id)
   */
  record Admitted(FencingToken token, String id) {}

  /**
   * What the resources say happened, read after the run.
   *
   * @param admitted per adapter and key, the admitted operations in admission order
   * @param acknowledgedIds per adapter, ids whose completion the resource recorded
   * @param finalFileWriter per key, the token recorded on the file
   * @param finalJdbcValue per key, the register's value
   */
  record Logs(
      Map<String, Map<LeaseKey, List<Admitted>>> admitted,
      Map<String, Set<String>> acknowledgedIds,
      Map<LeaseKey, FencingToken> finalFileWriter,
      Map<LeaseKey, String> finalJdbcValue) {}

  static Logs read(Path dir, DataSource ds, Set<LeaseKey> keys) {
    Map<String, Map<LeaseKey, List<Admitted>>> admitted = new HashMap<>();
    Map<String, Set<String>> acked = new HashMap<>();
    FencedFileStore files =
        FencedFileStore.builder(dir.resolve("files"))
            .verifier(TokenVerifier.trustEveryWriter())
            .auditLog(true)
            .open();
    Map<LeaseKey, List<Admitted>> fileLog = new HashMap<>();
    for (FileOperation op : files.auditLog()) {
      fileLog
          .computeIfAbsent(op.admission().token().key(), k -> new ArrayList<>())
          .add(new Admitted(op.admission().token(), null));
    }
    admitted.put("file", fileLog);
    Map<LeaseKey, FencingToken> fileWriters = new HashMap<>();
    for (LeaseKey k : keys) {
      Optional<StoredFile> f = files.read(path(k));
      f.flatMap(StoredFile::writtenBy).ifPresent(t -> fileWriters.put(k, t));
    }

    Map<LeaseKey, List<Admitted>> toolLog = new HashMap<>();
    Set<String> finished = new HashSet<>();
    ObjectMapper json = new ObjectMapper();
    try {
      for (String line : Files.readAllLines(dir.resolve("tools.jsonl"))) {
        JsonNode n = json.readTree(line);
        String event = n.get("event").asText();
        if (event.equals("started")) {
          FencingToken t = FencingToken.parse(n.get("token").asText());
          toolLog
              .computeIfAbsent(t.key(), k -> new ArrayList<>())
              .add(new Admitted(t, n.get("call").asText()));
        } else if (event.equals("finished")) {
          finished.add(n.get("call").asText());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    admitted.put("tool", toolLog);
    acked.put("tool", finished);

    Map<LeaseKey, List<Admitted>> jdbcLog = new HashMap<>();
    Set<String> jdbcIds = new HashSet<>();
    Map<LeaseKey, String> jdbcValues = new HashMap<>();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      try (ResultSet rs =
          s.executeQuery(
              "SELECT account_id, session_id, fence, run_id, write_id FROM torture_log ORDER BY seq")) {
        while (rs.next()) {
          LeaseKey k = LeaseKey.of(rs.getString(1), rs.getString(2));
          FencingToken t =
              new FencingToken(k, rs.getLong(3), rs.getObject(4, java.util.UUID.class));
          jdbcLog.computeIfAbsent(k, x -> new ArrayList<>()).add(new Admitted(t, rs.getString(5)));
          jdbcIds.add(rs.getString(5));
        }
      }
      try (ResultSet rs =
          s.executeQuery("SELECT account_id, session_id, value FROM torture_register")) {
        while (rs.next()) {
          jdbcValues.put(LeaseKey.of(rs.getString(1), rs.getString(2)), rs.getString(3));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    admitted.put("jdbc", jdbcLog);
    acked.put("jdbc", jdbcIds);
    return new Logs(admitted, acked, fileWriters, jdbcValues);
  }
}
