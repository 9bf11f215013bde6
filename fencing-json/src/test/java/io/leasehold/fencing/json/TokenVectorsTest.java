package io.leasehold.fencing.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.SignedTokenVerifier;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenTransport;
import io.leasehold.fencing.TokenVerificationException;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.fencing.VerificationKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * CONTRACT C22: the Java implementation against the shared vectors of docs/token-spec.md, the same
 * file the TypeScript package's tests run.
 */
class TokenVectorsTest {
  static final Path FILE = Path.of("..", "docs", "token-vectors.json");

  static Stream<Arguments> cases() throws Exception {
    JsonNode root = new ObjectMapper().readTree(Files.readString(FILE));
    List<Arguments> out = new ArrayList<>();
    for (JsonNode c : root.get("cases")) {
      out.add(Arguments.of(c.get("name").asText(), c));
    }
    return out.stream();
  }

  /** What this implementation says of a case: "valid", "refused" or the error class. */
  /** The allowance as the vector states it, fractions kept (asLong would make 1.5 ms 1 ms). */
  private static Duration exactMillis(JsonNode millis) {
    return Duration.ofNanos(millis.decimalValue().movePointRight(6).longValueExact());
  }

  static String verdict(JsonNode c) {
    String kind = c.has("kind") ? c.get("kind").asText() : "token";
    return switch (kind) {
      case "token" -> parsedVerdict(c, () -> FencingToken.parse(c.get("token").asText()));
      case "header" -> headerVerdict(c);
      // Java's entry for a token that is not text is its strict JSON reader (the object form).
      case "input" ->
          parsedVerdict(c, () -> FencingJsonModule.readToken(c.get("input").toString()));
      case "skew" ->
          refusedOrValid(
              () ->
                  TokenVerifier.signedBy(
                          TokenKeySet.of(
                              keys(
                                  List.of(
                                      TokenVectorsGenerator.HMAC.replace("signing", "verify")))))
                      .withClockSkew(exactMillis(c.get("clockSkewMillis"))));
      case "verificationKey" -> refusedOrValid(() -> VerificationKey.parse(c.get("text").asText()));
      case "signingKey" -> refusedOrValid(() -> SigningKey.parse(c.get("text").asText()));
      case "keySet" -> keySetVerdict(c);
      default -> throw new AssertionError("unknown vector kind " + kind);
    };
  }

  private static List<VerificationKey> keys(List<String> texts) {
    return texts.stream().map(VerificationKey::parse).toList();
  }

  static SignedTokenVerifier verifier(JsonNode c) {
    List<String> texts = new ArrayList<>();
    c.get("verifier").get("keys").forEach(k -> texts.add(k.asText()));
    return TokenVerifier.signedBy(TokenKeySet.of(keys(texts)))
        .withClock(Clock.fixed(Instant.ofEpochMilli(c.get("nowMillis").asLong()), ZoneOffset.UTC))
        .withClockSkew(Duration.ofMillis(c.get("verifier").get("clockSkewMillis").asLong()));
  }

  /** MALFORMED if {@code parse} refuses the token, else what the case's verifier says of it. */
  private static String parsedVerdict(JsonNode c, Supplier<FencingToken> parse) {
    FencingToken token;
    try {
      token = parse.get();
    } catch (IllegalArgumentException e) {
      return "MALFORMED";
    }
    return verified(c, token);
  }

  private static String verified(JsonNode c, FencingToken token) {
    try {
      verifier(c).verify(token);
      return "valid";
    } catch (TokenVerificationException e) {
      return e.reason().name();
    }
  }

  private static String headerVerdict(JsonNode c) {
    String header = c.get("header").isNull() ? null : c.get("header").asText();
    try {
      TokenTransport.verifyHeader(header, verifier(c));
      return "valid";
    } catch (TokenVerificationException e) {
      return e.reason().name();
    }
  }

  /** Whether the key set is refused; one that loads must hold the case's key ids, in order. */
  private static String keySetVerdict(JsonNode c) {
    String verdict = refusedOrValid(() -> TokenKeySet.parse(c.get("text").asText()));
    if (verdict.equals("valid")) {
      List<String> ids = new ArrayList<>();
      c.get("ids").forEach(i -> ids.add(i.asText()));
      List<String> loaded =
          TokenKeySet.parse(c.get("text").asText()).keys().stream()
              .map(VerificationKey::keyId)
              .toList();
      assertThat(loaded).isEqualTo(ids);
    }
    return verdict;
  }

  private static String refusedOrValid(Runnable parse) {
    try {
      parse.run();
      return "valid";
    } catch (IllegalArgumentException e) {
      return "refused";
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void everyVectorGetsItsVerdict(String name, JsonNode c) {
    assertThat(verdict(c)).as(name).isEqualTo(c.get("expect").asText());
    if (c.has("token_fields") && c.get("kind").asText().equals("token")) {
      FencingToken t = FencingToken.parse(c.get("token").asText());
      JsonNode f = c.get("token_fields");
      assertThat(t.fence()).isEqualTo(f.get("fence").asLong());
      assertThat(t.key().accountId()).isEqualTo(f.get("accountId").asText());
      assertThat(t.key().sessionId()).isEqualTo(f.get("sessionId").asText());
      assertThat(t.toText()).isEqualTo(c.get("token").asText());
    }
  }

  @Test
  void thereAreAtLeastFortyCasesCoveringEveryVerdictAndKind() throws Exception {
    List<JsonNode> all = cases().map(a -> (JsonNode) a.get()[1]).toList();
    List<String> verdicts = all.stream().map(c -> c.get("expect").asText()).toList();
    assertThat(verdicts).hasSizeGreaterThanOrEqualTo(40);
    assertThat(verdicts)
        .contains(
            "valid",
            "refused",
            "MISSING",
            "MALFORMED",
            "UNSIGNED",
            "UNKNOWN_KEY",
            "BAD_SIGNATURE",
            "EXPIRED",
            "NOT_YET_VALID");
    assertThat(all.stream().map(c -> c.get("kind").asText()).distinct().sorted().toList())
        .containsExactly(
            "header", "input", "keySet", "signingKey", "skew", "token", "verificationKey");
  }

  @Test
  void theCommittedFileIsWhatTheGeneratorWrites() throws Exception {
    if (Boolean.getBoolean("leasehold.writeVectors")) {
      Files.writeString(FILE, TokenVectorsGenerator.text());
    }
    assertThat(Files.readString(FILE)).isEqualTo(TokenVectorsGenerator.text());
  }
}
