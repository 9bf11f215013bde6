package io.leasehold.adapters.tool;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The file journal's two line formats, apart from its locking and files ({@link
 * FileToolJournal}).
 *
 * <ul>
 *   <li>The journal: one JSON object per line, {@code "event"} one of {@code intended}, {@code
 *       started}, {@code finished}, {@code failed}, {@code refused} and {@code mark_reset}.
 *   <li>The marks file of journals written before the mark directory ({@link JournalMarks}),
 *       read once to upgrade them: ASCII lines {@code raise|reset <account> <session> <fence>},
 *       the key's parts as unpadded base64url of UTF-8 so no field holds a space or a line break.
 * </ul>
 *
 * <p>A {@code mark_reset} line is what such a journal recorded of an operator's reset; it is
 * still read (and carried into the mark directory's {@code admin.log} at the upgrade), no longer
 * written.
 */
final class JournalLines {
  private static final ObjectMapper JSON = new ObjectMapper();

  private JournalLines() {}

  static ObjectNode intended(ToolCall call) {
    ObjectNode line = event("intended", call.callId());
    line.put("tool", call.tool());
    line.put("token", call.token().unsigned().toText()); // never the signature (C20)
    line.set("arguments", call.arguments());
    call.idempotencyKey().ifPresent(k -> line.put("idempotencyKey", k));
    return line;
  }

  static ObjectNode started(UUID callId, FencingToken token) {
    return event("started", callId).put("token", token.unsigned().toText());
  }

  static ObjectNode finished(UUID callId, JsonNode result) {
    return event("finished", callId).set("result", result);
  }

  static ObjectNode failed(UUID callId, String error) {
    return event("failed", callId).put("error", error);
  }

  static ObjectNode refusedStale(UUID callId, long highest) {
    return event("refused", callId).put("highest", highest);
  }

  static ObjectNode refusedDuplicate(UUID callId, UUID duplicateOf) {
    return event("refused", callId).put("duplicateOf", duplicateOf.toString());
  }

  /**
   * A call's intended line, refused if it is longer than {@code maxLineBytes}.
   *
   * @throws IllegalArgumentException if it is too long; nothing was recorded
   */
  static byte[] intendedLine(ToolCall call, int maxLineBytes) throws JsonProcessingException {
    byte[] line = bytes(intended(call));
    if (line.length > maxLineBytes) {
      throw new IllegalArgumentException(
          "the call of " + call.tool() + " is " + line.length + " bytes as a journal line, over the"
              + " file journal's " + maxLineBytes + ": nothing was recorded. Pass large arguments by"
              + " reference (a path or an id)");
    }
    return line;
  }

  /**
   * A compacted journal: every live call (in doubt, or finished with an idempotency key) in its
   * order; {@code kept[0]} is set to how many calls. The resets live with the marks.
   */
  static byte[] compactedJournal(JournalState state, int[] kept) throws IOException {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (ToolCall c : state.allCalls()) {
      boolean live = c.inDoubt() || (c.state() == ToolCall.State.FINISHED && c.idempotencyKey().isPresent());
      if (!live) {
        continue;
      }
      kept[0]++;
      out.write(bytes(intended(c)));
      if (c.state() != ToolCall.State.INTENDED) {
        out.write(bytes(started(c.callId(), c.token())));
      }
      if (c.state() == ToolCall.State.FINISHED) {
        out.write(bytes(finished(c.callId(), c.result().orElseThrow())));
      }
    }
    return out.toByteArray();
  }

  static byte[] bytes(ObjectNode line) throws JsonProcessingException {
    return (JSON.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8);
  }

  private static ObjectNode event(String name, UUID callId) {
    ObjectNode line = JSON.createObjectNode();
    line.put("event", name);
    line.put("call", callId.toString());
    return line;
  }

  /**
   * Applies one line of an older journal's marks file (without its newline): a raise keeps the
   * higher fence, a reset sets it.
   *
   * @throws IllegalArgumentException if the line is damaged
   */
  static void applyMark(String text, Map<LeaseKey, Long> marks) {
    String[] f = text.split(" ", -1);
    if (f.length != 4 || !(f[0].equals("raise") || f[0].equals("reset"))) {
      throw new IllegalArgumentException("expected 'raise|reset <account> <session> <fence>'");
    }
    LeaseKey key = LeaseKey.of(decode(f[1]), decode(f[2]));
    long fence = Long.parseLong(f[3]);
    if (fence < 0) {
      throw new IllegalArgumentException("negative fence");
    }
    if (f[0].equals("raise")) {
      marks.merge(key, fence, Math::max);
    } else {
      marks.put(key, fence);
    }
  }

  private static String decode(String s) {
    return new String(Base64.getUrlDecoder().decode(s), StandardCharsets.UTF_8);
  }

  /** Applies a line another process (or an earlier run of this one) appended. */
  static void apply(JsonNode line, JournalState state, Path file) throws IOException {
    if (line == null || !line.isObject()) {
      throw new IllegalArgumentException("not a JSON object");
    }
    if ("mark_reset".equals(line.path("event").asText())) {
      state.applyReset(
          new MarkReset(
              LeaseKey.of(req(line, "accountId").asText(), req(line, "sessionId").asText()),
              req(line, "previous").asLong(),
              req(line, "mark").asLong(),
              req(line, "operator").asText(),
              req(line, "reason").asText(),
              Instant.parse(req(line, "at").asText())));
      return;
    }
    UUID callId = UUID.fromString(req(line, "call").asText());
    switch (req(line, "event").asText()) {
      case "intended" -> {
        JsonNode key = line.get("idempotencyKey");
        state.intended(
            new ToolCall(
                callId,
                req(line, "tool").asText(),
                FencingToken.parse(req(line, "token").asText()),
                present(line, "arguments"),
                key == null ? Optional.empty() : Optional.of(key.asText()),
                ToolCall.State.INTENDED,
                Optional.empty(),
                Optional.empty()));
      }
      case "started" -> state.replayStarted(FencingToken.parse(req(line, "token").asText()), callId);
      case "finished" -> state.finished(callId, present(line, "result"));
      case "failed" -> state.failed(callId, req(line, "error").asText());
      case "refused" -> {
        if (line.has("duplicateOf")) {
          state.refusedDuplicate(callId, UUID.fromString(req(line, "duplicateOf").asText()));
        } else {
          state.refused(callId, req(line, "highest").asLong());
        }
      }
      default -> throw new IOException("unknown journal event in " + file + ": " + line);
    }
  }
  /** A required member that may be JSON null (arguments, results). */
  private static JsonNode present(JsonNode line, String name) {
    JsonNode v = line.get(name);
    if (v == null) {
      throw new IllegalArgumentException("missing member '" + name + "'");
    }
    return v;
  }

  /** A required member; its absence is damage, reported with the line, never a null. */
  private static JsonNode req(JsonNode line, String name) {
    JsonNode v = line.get(name);
    if (v == null || v.isNull()) {
      throw new IllegalArgumentException("missing member '" + name + "'");
    }
    return v;
  }
}
