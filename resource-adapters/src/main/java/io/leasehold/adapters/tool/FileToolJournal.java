package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.adapters.CrossProcessLock;
import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * A durable journal in one append-only file of JSON lines, shared safely by several processes.
 *
 * <p>Every record is appended and forced to disk under a lock that holds across threads and
 * processes (a JVM lock and an OS lock on {@code <file>.lock}); before each operation the journal
 * reads what other processes appended since, so its marks and call states are those of the file.
 * A line torn by a crash is cut off by the next writer. Each line is an object with an {@code
 * "event"} member: {@code intended} (with the call's tool, token, arguments and idempotency key),
 * {@code started}, {@code finished} (with the result), {@code failed} (with the error), {@code
 * refused} (with the highest fence) or {@code mark_reset} (an operator's audited reset: key,
 * previous and new mark, operator, reason, time). The file only grows: archive it when its sessions are over.
 *
 * <p>Thread-safe, and safe for several processes sharing the file.
 */
public final class FileToolJournal implements ToolJournal {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Path file;
  private final CrossProcessLock lock;
  private final JournalState state = new JournalState();
  private long readUpTo;

  private FileToolJournal(Path file) {
    this.file = file;
    this.lock = new CrossProcessLock(file.resolveSibling(file.getFileName() + ".lock"));
  }

  /**
   * Opens (creating if needed) a journal file and reads it.
   *
   * @param file the journal file; its directory must exist
   * @return the journal
   * @throws ResourceAccessException if the file cannot be read or created
   */
  public static FileToolJournal open(Path file) {
    if (file == null) {
      throw new IllegalArgumentException("file must not be null");
    }
    FileToolJournal journal = new FileToolJournal(file.toAbsolutePath().normalize());
    journal.locked(() -> null);
    return journal;
  }

  @Override
  public void intended(ToolCall call) {
    locked(
        () -> {
          ObjectNode line = JSON.createObjectNode();
          line.put("event", "intended");
          line.put("call", call.callId().toString());
          line.put("tool", call.tool());
          line.put("token", call.token().toText());
          line.set("arguments", call.arguments());
          call.idempotencyKey().ifPresent(k -> line.put("idempotencyKey", k));
          append(line);
          state.intended(call);
          return null;
        });
  }

  @Override
  public Admission admitAndStart(FencingToken token, UUID callId) {
    return locked(
        () -> {
          try {
            state.check(token);
          } catch (StaleFenceException e) {
            ObjectNode line = event("refused", callId);
            line.put("highest", e.highestFence());
            append(line);
            state.refused(callId, e.highestFence());
            throw e;
          }
          ObjectNode line = event("started", callId);
          line.put("token", token.toText());
          append(line);
          return state.started(token, callId);
        });
  }

  @Override
  public void finished(UUID callId, JsonNode result) {
    locked(
        () -> {
          ObjectNode line = event("finished", callId);
          line.set("result", result);
          append(line);
          state.finished(callId, result);
          return null;
        });
  }

  @Override
  public void failed(UUID callId, String error) {
    locked(
        () -> {
          ObjectNode line = event("failed", callId);
          line.put("error", error);
          append(line);
          state.failed(callId, error);
          return null;
        });
  }

  @Override
  public List<ToolCall> calls(LeaseKey key) {
    return locked(() -> state.calls(key));
  }

  @Override
  public OptionalLong highWaterMark(LeaseKey key) {
    return locked(() -> state.mark(key));
  }

  @Override
  public MarkReset resetMark(LeaseKey key, long newMark, String operator, String reason, Instant at) {
    return locked(
        () -> {
          MarkReset reset =
              new MarkReset(key, state.mark(key).orElse(0), newMark, operator, reason, at);
          ObjectNode line = JSON.createObjectNode();
          line.put("event", "mark_reset");
          line.put("accountId", key.accountId());
          line.put("sessionId", key.sessionId());
          line.put("previous", reset.previousMark());
          line.put("mark", newMark);
          line.put("operator", operator);
          line.put("reason", reason);
          line.put("at", at.toString());
          append(line);
          state.applyReset(reset);
          return reset;
        });
  }

  @Override
  public List<MarkReset> markResets() {
    return locked(state::resets);
  }

  // ------------------------------------------------------------------ internals

  private static ObjectNode event(String name, UUID callId) {
    ObjectNode line = JSON.createObjectNode();
    line.put("event", name);
    line.put("call", callId.toString());
    return line;
  }

  private <T> T locked(CrossProcessLock.Action<T> action) {
    try {
      synchronized (this) {
        return lock.call(
            () -> {
              catchUp();
              return action.run();
            });
      }
    } catch (IOException e) {
      throw new ResourceAccessException("tool journal " + file + " failed: " + e, e);
    }
  }

  /** Applies what was appended since the last read; cuts off a torn last line. */
  private void catchUp() throws IOException {
    if (!Files.exists(file)) {
      Files.createFile(file);
    }
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long size = ch.size();
      if (size == readUpTo) {
        return;
      }
      ByteBuffer buf = ByteBuffer.allocate(Math.toIntExact(size - readUpTo));
      ch.read(buf, readUpTo);
      byte[] bytes = buf.array();
      int lineStart = 0;
      for (int i = 0; i < bytes.length; i++) {
        if (bytes[i] == '\n') {
          apply(JSON.readTree(new String(bytes, lineStart, i - lineStart, StandardCharsets.UTF_8)));
          lineStart = i + 1;
        }
      }
      long complete = readUpTo + lineStart;
      if (complete < size) {
        // A writer crashed mid-line; nobody else writes while we hold the lock.
        ch.truncate(complete);
        ch.force(true);
      }
      readUpTo = complete;
    }
  }

  private void append(ObjectNode line) throws IOException {
    byte[] bytes = (JSON.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      ByteBuffer buf = ByteBuffer.wrap(bytes);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(false);
    }
    readUpTo += bytes.length;
  }

  /** Applies a line another process (or an earlier run of this one) appended. */
  private void apply(JsonNode line) throws IOException {
    if ("mark_reset".equals(line.path("event").asText())) {
      state.applyReset(
          new MarkReset(
              LeaseKey.of(line.get("accountId").asText(), line.get("sessionId").asText()),
              line.get("previous").asLong(),
              line.get("mark").asLong(),
              line.get("operator").asText(),
              line.get("reason").asText(),
              Instant.parse(line.get("at").asText())));
      return;
    }
    UUID callId = UUID.fromString(line.get("call").asText());
    switch (line.get("event").asText()) {
      case "intended" -> {
        JsonNode key = line.get("idempotencyKey");
        state.intended(
            new ToolCall(
                callId,
                line.get("tool").asText(),
                FencingToken.parse(line.get("token").asText()),
                line.get("arguments"),
                key == null ? Optional.empty() : Optional.of(key.asText()),
                ToolCall.State.INTENDED,
                Optional.empty(),
                Optional.empty()));
      }
      case "started" -> state.started(FencingToken.parse(line.get("token").asText()), callId);
      case "finished" -> state.finished(callId, line.get("result"));
      case "failed" -> state.failed(callId, line.get("error").asText());
      case "refused" -> state.refused(callId, line.get("highest").asLong());
      default -> throw new IOException("unknown journal event in " + file + ": " + line);
    }
  }
}
