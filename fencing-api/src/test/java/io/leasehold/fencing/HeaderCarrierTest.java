package io.leasehold.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 46, item 7: {@link TokenTransport#verifyHeader} stripped everything {@link
 * Character#isWhitespace} calls white (LF, VT, U+2028, U+3000), so texts that are MALFORMED
 * verified through the header, and an empty header was MISSING where the empty text is MALFORMED.
 * HTTP's optional white space is SP and HTAB only (RFC 9110). Fails on the code before the fix.
 */
class HeaderCarrierTest {
  private static final Instant FROM = Instant.ofEpochMilli(1_796_300_000_000L);
  private static final SigningKey KEY = SigningKey.generate(SignatureScheme.HMAC_SHA256, "k1");
  private static final String TOKEN =
      KEY.sign(
              new FencingToken(LeaseKey.of("acct-7", "chat-1"), 42, UUID.randomUUID()),
              FROM,
              FROM.plusSeconds(30))
          .toText();
  private static final TokenVerifier VERIFIER =
      TokenVerifier.signedBy(TokenKeySet.of(KEY.verificationKey()))
          .withClock(Clock.fixed(FROM.plusSeconds(1), ZoneOffset.UTC));

  static TokenVerificationException.Reason refusal(String header) {
    try {
      TokenTransport.verifyHeader(header, VERIFIER);
      return null;
    } catch (TokenVerificationException e) {
      return e.reason();
    }
  }

  @Test
  void spAndHtabAroundTheValueAreOptionalWhiteSpace() {
    assertThat(refusal(" \t" + TOKEN + "\t ")).isNull();
    assertThat(TokenTransport.fromHeader("  " + TOKEN + "\t").toText()).isEqualTo(TOKEN);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "\n", "\r", "\u000b", "\f", "\u001c", "\u0085", "\u00a0", "\u2028", "\u3000", "\ufeff"
      })
  void anyOtherWhiteSpaceAroundTheValueIsMalformed(String ws) {
    assertThat(refusal(TOKEN + ws)).isEqualTo(TokenVerificationException.Reason.MALFORMED);
    assertThat(refusal(ws + TOKEN)).isEqualTo(TokenVerificationException.Reason.MALFORMED);
    assertThatThrownBy(() -> TokenTransport.fromHeader(ws + TOKEN))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anAbsentHeaderIsMissingAndAnEmptyOneMalformed() {
    assertThat(refusal(null)).isEqualTo(TokenVerificationException.Reason.MISSING);
    assertThat(refusal("")).isEqualTo(TokenVerificationException.Reason.MALFORMED);
    assertThat(refusal(" \t ")).isEqualTo(TokenVerificationException.Reason.MALFORMED);
  }
}
