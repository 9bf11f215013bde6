package io.leasehold.fencing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
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

  /** What this implementation says of a case: "valid" or the error class of the failed step. */
  static String verdict(JsonNode c) {
    FencingToken token;
    try {
      token = FencingToken.parse(c.get("token").asText());
    } catch (IllegalArgumentException e) {
      return "MALFORMED";
    }
    List<VerificationKey> keys = new ArrayList<>();
    c.get("verifier").get("keys").forEach(k -> keys.add(VerificationKey.parse(k.asText())));
    SignedTokenVerifier verifier =
        TokenVerifier.signedBy(TokenKeySet.of(keys.toArray(VerificationKey[]::new)))
            .withClock(Clock.fixed(Instant.ofEpochMilli(c.get("nowMillis").asLong()), ZoneOffset.UTC))
            .withClockSkew(Duration.ofMillis(c.get("verifier").get("clockSkewMillis").asLong()));
    try {
      verifier.verify(token);
      return "valid";
    } catch (TokenVerificationException e) {
      return e.reason().name();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void everyVectorGetsItsVerdict(String name, JsonNode c) {
    assertThat(verdict(c)).as(name).isEqualTo(c.get("expect").asText());
    if (c.has("token_fields")) {
      FencingToken t = FencingToken.parse(c.get("token").asText());
      JsonNode f = c.get("token_fields");
      assertThat(t.fence()).isEqualTo(f.get("fence").asLong());
      assertThat(t.key().accountId()).isEqualTo(f.get("accountId").asText());
      assertThat(t.key().sessionId()).isEqualTo(f.get("sessionId").asText());
      assertThat(t.toText()).isEqualTo(c.get("token").asText());
    }
  }

  @Test
  void thereAreAtLeastFortyCasesCoveringEveryVerdict() throws Exception {
    List<String> verdicts = cases().map(a -> ((JsonNode) a.get()[1]).get("expect").asText()).toList();
    assertThat(verdicts).hasSizeGreaterThanOrEqualTo(40);
    assertThat(verdicts).contains("valid", "MALFORMED", "UNSIGNED", "UNKNOWN_KEY", "BAD_SIGNATURE",
        "EXPIRED", "NOT_YET_VALID");
  }

  @Test
  void theCommittedFileIsWhatTheGeneratorWrites() throws Exception {
    if (Boolean.getBoolean("leasehold.writeVectors")) {
      Files.writeString(FILE, TokenVectorsGenerator.text());
    }
    assertThat(Files.readString(FILE)).isEqualTo(TokenVectorsGenerator.text());
  }
}
