package io.leasehold.adapters.tool;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The file journal's two line formats, apart from its locking and files ({@link FileToolJournal}).
 *
 * <ul>
 *   <li>The journal: one JSON object per line, {@code "event"} one of {@code intended}, {@code
 *       started}, {@code finished}, {@code failed}, {@code refused}, {@code mark_reset} (an
 *       operator's reset) and {@code highest_admitted} (a compacted journal's evidence per key).
 *   <li>The marks file of journals written before the mark directory ({@link JournalMarks}), read
 *       once to upgrade them: ASCII lines {@code raise|reset <account> <session> <fence>}, the
 *       key's parts as unpadded base64url of UTF-8 so no field holds a space or a line break.
 * </ul>
 *
 * <p>A {@code mark_reset} line records an operator's reset (also in the mark directory's {@code
 * admin.log}, where an upgrade carries an older journal's): it restarts the key's evidence.
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
          "the call of "
              + call.tool()
              + " is "
              + line.length
              + " bytes as a journal line, over the"
              + " file journal's "
              + maxLineBytes
              + ": nothing was recorded. Pass large arguments by"
              + " reference (a path or an id)");
    }
    return line;
  }

  /**
   * A call's outcome as a journal line, refused when it is longer than the journal reads back: the
   * outcome is then not recorded and the call stays in doubt.
   */
  static byte[] outcomeLine(ObjectNode outcome, String what, UUID callId, int maxLineBytes)
      throws JsonProcessingException {
    byte[] line = bytes(outcome);
    if (line.length > maxLineBytes) {
      throw new ResourceAccessException(
          what
              + " of call "
              + callId
              + " is "
              + line.length
              + " bytes as a journal line, over the file journal's "
              + maxLineBytes
              + ": it was not recorded and the call stays in doubt. Return large results by"
              + " reference (a path or an id)",
          null);
    }
    return line;
  }

  /**
   * What the journal records of an operator's reset (the marks record it too, in {@code
   * admin.log}): in journal order it restarts the key's evidence at the reset's mark.
   */
  static ObjectNode markReset(MarkReset reset) {
    ObjectNode line = JSON.createObjectNode();
    line.put("event", "mark_reset");
    line.put("accountId", reset.key().accountId());
    line.put("sessionId", reset.key().sessionId());
    line.put("previous", reset.previousMark());
    line.put("mark", reset.newMark());
    line.put("operator", reset.operator());
    line.put("reason", reset.reason());
    line.put("at", reset.at().toString());
    return line;
  }

  /** A compacted journal's record of the highest fence admitted for a key since its last reset. */
  static ObjectNode highestAdmitted(LeaseKey key, long fence) {
    ObjectNode line = JSON.createObjectNode();
    line.put("event", "highest_admitted");
    line.put("accountId", key.accountId());
    line.put("sessionId", key.sessionId());
    line.put("fence", fence);
    return line;
  }

  /**
   * A compacted journal: every live call (in doubt, or finished with an idempotency key) in its
   * order, then every key's {@link #highestAdmitted} line, so the compacted journal keeps the
   * evidence its marks are checked against (CONTRACT C16); {@code kept[0]} is set to how many
   * calls. The resets live with the marks; the evidence line stands for the key's last one.
   */
  static byte[] compactedJournal(JournalState state, int[] kept) throws IOException {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (ToolCall c : state.allCalls()) {
      boolean live =
          c.inDoubt() || (c.state() == ToolCall.State.FINISHED && c.idempotencyKey().isPresent());
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
    for (Map.Entry<LeaseKey, Long> e : state.allEvidence().entrySet()) {
      out.write(bytes(highestAdmitted(e.getKey(), e.getValue())));
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
   * higher fence; a reset sets it if it matches one of {@code journalResets} (the resets the
   * journal recorded, each matched once and removed), else it is taken as a raise: a reset the
   * journal never recorded lowers nothing.
   *
   * @throws IllegalArgumentException if the line is damaged
   */
  static void applyMark(String text, Map<LeaseKey, Long> marks, List<MarkReset> journalResets) {
    String[] f = text.split(" ", -1);
    if (f.length != 4 || !(f[0].equals("raise") || f[0].equals("reset"))) {
      throw new IllegalArgumentException("expected 'raise|reset <account> <session> <fence>'");
    }
    LeaseKey key = LeaseKey.of(decode(f[1]), decode(f[2]));
    long fence = Long.parseLong(f[3]);
    if (fence < 0) {
      throw new IllegalArgumentException("negative fence");
    }
    Optional<MarkReset> recorded =
        f[0].equals("reset")
            ? journalResets.stream()
                .filter(r -> r.key().equals(key) && r.newMark() == fence)
                .findFirst()
            : Optional.empty();
    if (recorded.isPresent()) {
      journalResets.remove(recorded.get());
      marks.put(key, fence);
    } else {
      marks.merge(key, fence, Math::max);
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
    if ("highest_admitted".equals(line.path("event").asText())) {
      long fence = req(line, "fence").asLong();
      if (fence < 0) {
        throw new IllegalArgumentException("negative fence");
      }
      state.applyEvidence(
          LeaseKey.of(req(line, "accountId").asText(), req(line, "sessionId").asText()), fence);
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
      case "started" ->
          state.replayStarted(FencingToken.parse(req(line, "token").asText()), callId);
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
