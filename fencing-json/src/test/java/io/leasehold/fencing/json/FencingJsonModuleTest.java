package io.leasehold.fencing.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FencingJsonModuleTest {
  private final ObjectMapper mapper = new ObjectMapper().registerModule(new FencingJsonModule());
  private static final String RUN = "2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1";

  @Test
  void writesDocumentedShapeAndReadsItBack() throws IOException {
    FencingToken token =
        new FencingToken(LeaseKey.of("acct-7", "chat-1"), 42, UUID.fromString(RUN));
    String json = mapper.writeValueAsString(token);
    assertThat(json)
        .isEqualTo(
            "{\"accountId\":\"acct-7\",\"sessionId\":\"chat-1\",\"fence\":42,\"runId\":\""
                + RUN
                + "\"}");
    assertThat(mapper.readValue(json, FencingToken.class)).isEqualTo(token);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "[]",
        "\"lh2\"",
        "{}",
        "{\"accountId\":\"a\",\"sessionId\":\"s\",\"fence\":42}",
        "{\"accountId\":\"a\",\"sessionId\":\"s\",\"fence\":42,\"runId\":\"" + RUN + "\",\"x\":1}",
        "{\"accountId\":\"a\",\"accountId\":\"b\",\"sessionId\":\"s\",\"fence\":4,\"runId\":\""
            + RUN
            + "\"}",
        "{\"accountId\":\"a\",\"sessionId\":\"s\",\"fence\":\"42\",\"runId\":\"" + RUN + "\"}",
        "{\"accountId\":\"a\",\"sessionId\":\"s\",\"fence\":4.5,\"runId\":\"" + RUN + "\"}",
        "{\"accountId\":\"a\",\"sessionId\":\"s\",\"fence\":0,\"runId\":\"" + RUN + "\"}",
        "{\"accountId\":\"a\",\"sessionId\":\"s\",\"fence\":99999999999999999999,\"runId\":\""
            + RUN
            + "\"}",
        "{\"accountId\":\"\",\"sessionId\":\"s\",\"fence\":1,\"runId\":\"" + RUN + "\"}",
        "{\"accountId\":7,\"sessionId\":\"s\",\"fence\":1,\"runId\":\"" + RUN + "\"}",
        "{\"accountId\":\"a\",\"sessionId\":\"s\",\"fence\":1,\"runId\":\"1-1-1-1-1\"}",
        "{\"accountId\":\"a\",\"sessionId\":\"s\",\"fence\":1,\"runId\":\"nope\"}"
      })
  void rejectsAnythingButTheExactShape(String json) {
    assertThatThrownBy(() -> mapper.readValue(json, FencingToken.class))
        .isInstanceOf(IOException.class);
  }

  /** Issue 13: the JSON token {@code null} parsed to null, and trailing content was accepted. */
  @org.junit.jupiter.api.Test
  void nullAndTrailingContentAreRefused() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper mapper =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .registerModule(new io.leasehold.fencing.json.FencingJsonModule());
    FencingToken t = new FencingToken(LeaseKey.of("a", "b"), 3, java.util.UUID.randomUUID());
    String json = mapper.writeValueAsString(t);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> mapper.readValue("null", FencingToken.class))
        .hasMessageContaining("must not be null");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> io.leasehold.fencing.json.FencingJsonModule.readToken(json + " {\"x\":1}"))
        .isInstanceOf(IllegalArgumentException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> io.leasehold.fencing.json.FencingJsonModule.readToken("null"))
        .isInstanceOf(IllegalArgumentException.class);
    org.assertj.core.api.Assertions.assertThat(
            io.leasehold.fencing.json.FencingJsonModule.readToken(json))
        .isEqualTo(t);
  }

  /** CONTRACT C15: a signed token's four signature members travel together, or not at all. */
  @Test
  void signedTokensRoundTripAndAHalfSignedOneIsRefused() throws Exception {
    SigningKey key = SigningKey.generate(SignatureScheme.HMAC_SHA256, "k1");
    FencingToken signed =
        key.sign(
            new FencingToken(LeaseKey.of("acct-7", "chat-1"), 42, UUID.fromString(RUN)),
            Clock.systemUTC(),
            Duration.ofMinutes(5));
    String js = mapper.writeValueAsString(signed);
    assertThat(js).contains("\"keyId\":\"k1\"");
    assertThat(mapper.readValue(js, FencingToken.class)).isEqualTo(signed);
    String half = js.replaceAll(",\"signature\":\"[^\"]*\"", "");
    assertThatThrownBy(() -> mapper.readValue(half, FencingToken.class))
        .hasMessageContaining("all of validFrom, validUntil, keyId and signature");
  }

  @Test
  void aLoneSurrogateInAKeyIsRefused() {
    String bad =
        "{\"accountId\":\"acct\\ud800x\",\"sessionId\":\"s\",\"fence\":1,\"runId\":\""
            + RUN
            + "\"}";
    assertThatThrownBy(() -> mapper.readValue(bad, FencingToken.class))
        .hasMessageContaining("lone surrogate");
  }
}
