package io.leasehold.fencing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The refusal vocabulary against its vectors (docs/refusal-vectors.json), which the Node package's
 * test/refusal.test.mjs runs as well: the reasons with their actions and listener decisions, the
 * reason of each token-verification failure, the vocabulary's own words, and each refusal's written
 * form, there and back.
 */
class RefusalVectorsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final Path FILE = Path.of("..", "docs", "refusal-vectors.json");

  private static JsonNode vectors() throws Exception {
    return JSON.readTree(Files.readString(FILE));
  }

  @Test
  void everyReasonHasTheVectorsActionAndDecision() throws Exception {
    JsonNode reasons = vectors().get("reasons");
    assertThat(reasons).hasSize(Refusal.Reason.values().length);
    for (JsonNode r : reasons) {
      Refusal.Reason reason = Refusal.Reason.ofWireName(r.get("reason").asText()).orElseThrow();
      assertThat(reason.action().name().toLowerCase(Locale.ROOT))
          .as(reason.name())
          .isEqualTo(r.get("action").asText());
      assertThat(reason.decision().name()).as(reason.name()).isEqualTo(r.get("decision").asText());
    }
  }

  @Test
  void everyTokenFailureHasTheVectorsReason() throws Exception {
    JsonNode map = vectors().get("tokenReasons");
    assertThat(map.size()).isEqualTo(TokenVerificationException.Reason.values().length);
    for (TokenVerificationException.Reason r : TokenVerificationException.Reason.values()) {
      assertThat(Refusal.Reason.of(r).wireName())
          .as(r.name())
          .isEqualTo(map.get(r.name()).asText());
      Refusal fromException = Refusal.of(new TokenVerificationException(r, "words"), null);
      assertThat(fromException.reason()).isEqualTo(Refusal.Reason.of(r));
    }
  }

  @Test
  void theVocabularysOwnWordsAreTheVectorsWords() throws Exception {
    JsonNode m = vectors().get("messages");
    assertThat(Refusal.DUPLICATE_MESSAGE).isEqualTo(m.get("duplicate").asText());
    assertThat(Refusal.UNAVAILABLE_MESSAGE).isEqualTo(m.get("unavailable").asText());
  }

  @Test
  void everyCaseIsWrittenExactlyAndReadsBack() throws Exception {
    JsonNode cases = vectors().get("cases");
    assertThat(cases.size()).isGreaterThanOrEqualTo(12);
    for (JsonNode c : cases) {
      String name = c.get("name").asText();
      JsonNode in = c.get("input");
      Refusal.Reason reason = Refusal.Reason.ofWireName(in.get("reason").asText()).orElseThrow();
      OptionalLong highest =
          in.has("highestSeen")
              ? OptionalLong.of(Long.parseLong(in.get("highestSeen").asText()))
              : OptionalLong.empty();
      Refusal refusal = Refusal.of(reason, token(in), highest, in.path("detail").asText(null));
      assertThat(refusal.action().name().toLowerCase(Locale.ROOT))
          .as(name)
          .isEqualTo(c.get("action").asText());
      Map<String, Object> written = refusal.written();
      JsonNode tree = JSON.valueToTree(written);
      assertThat(tree).as(name).isEqualTo(c.get("object"));
      assertThat(written.keySet())
          .as(name + ": member order")
          .containsExactlyElementsOf(() -> c.get("object").fieldNames());
      Refusal back =
          Refusal.fromWritten(JSON.convertValue(c.get("object"), Map.class)).orElseThrow();
      assertThat(back.written()).as(name + ": read back").isEqualTo(written);
    }
  }

  /**
   * Every single UTF-16 code unit as a detail: "refused" exactly for the vectors' blank characters,
   * U+FFFD for a lone surrogate, the character itself otherwise; the Node test tries the same, so
   * the two languages agree on every one (Java's isBlank and JavaScript's trim did not: NBSP,
   * U+202F, U+FEFF and U+001C-U+001F).
   */
  @Test
  void everyCodeUnitIsBlankExactlyWhenTheVectorsSaySo() throws Exception {
    boolean[] blank = new boolean[0x10000];
    for (JsonNode range : vectors().get("blankCharacters")) {
      String[] ends = range.asText().split("-");
      int from = Integer.parseInt(ends[0], 16);
      int to = Integer.parseInt(ends[ends.length - 1], 16);
      Arrays.fill(blank, from, to + 1, true);
    }
    for (int c = 0; c < 0x10000; c++) {
      String detail = String.valueOf((char) c);
      String expected = blank[c] ? "refused" : Character.isSurrogate((char) c) ? "\ufffd" : detail;
      assertThat(Refusal.of(Refusal.Reason.FORGED, null, OptionalLong.empty(), detail).message())
          .as("U+%04X", c)
          .isEqualTo(expected);
    }
  }

  /** A guard's exceptions name their refusal, and the token they carry. */
  @Test
  void aGuardsExceptionsAreRefusalsOfTheirOwnReason() {
    FencingToken token = new FencingToken(LeaseKey.of("acct-7", "chat-1"), 3, UUID.randomUUID());
    Refusal stale = Refusal.of(new StaleFenceException(token, 9));
    assertThat(stale.reason()).isEqualTo(Refusal.Reason.SUPERSEDED);
    assertThat(stale.fence()).hasValue(3);
    assertThat(stale.highestSeen()).hasValue(9);
    assertThat(stale.action()).isEqualTo(Refusal.Action.STOP_RUN);
    Refusal lost = Refusal.of(new LeaseLostException(token, "renewal failed"));
    assertThat(lost.reason()).isEqualTo(Refusal.Reason.LEASE_LOST);
    assertThat(lost.key()).hasValue(token.key());
    Refusal broken =
        Refusal.of(new IllegalStateException("relation leasehold_mark does not exist"));
    assertThat(broken.reason()).isEqualTo(Refusal.Reason.UNAVAILABLE);
    assertThat(broken.message())
        .isEqualTo(Refusal.UNAVAILABLE_MESSAGE)
        .doesNotContain("leasehold_mark");
    assertThat(broken.action()).isEqualTo(Refusal.Action.RETRY_LATER);
    assertThat(Arrays.stream(Refusal.Reason.values()).map(Refusal.Reason::decision))
        .doesNotContain(GuardListener.Decision.ADMITTED);
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
    if (!in.has("validFromMillis")) {
      return t;
    }
    Instant from = Instant.ofEpochMilli(Long.parseLong(in.get("validFromMillis").asText()));
    Instant until = Instant.ofEpochMilli(Long.parseLong(in.get("validUntilMillis").asText()));
    return t.withSignature(new TokenSignature("store-1", from, until, "AAAA"));
  }
}
