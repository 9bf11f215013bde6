package io.leasehold.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 46, item 8: the white space around key texts and key-set lines, the byte order mark and the
 * largest HMAC secret were open questions answered differently by Java and Node (Java stripped
 * U+001C-U+001F, Node U+00A0, U+2007, U+202F and a BOM; both refused long secrets with "expected
 * text starting with ..."). Token spec 1.1 section 3.1 answers them. Fails on the code before.
 */
class KeyTextTest {
  /** The HMAC verification key of docs/token-vectors.json. */
  private static final String KEY =
      "leasehold-verify-key:v1:hmac-sha256:hmac-2026-12:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";

  @Test
  void spHtabCrAndLfAroundAKeyTextAreIgnored() {
    assertThat(VerificationKey.parse(" \t" + KEY + "\r\n").keyId()).isEqualTo("hmac-2026-12");
    assertThat(TokenKeySet.parse("# keys\r\n\t" + KEY + " \r\n\r\n").keys()).hasSize(1);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "\u001c", "\u001f", "\u000b", "\f", "\u0085", "\u00a0", "\u2007", "\u202f", "\u3000",
        "\ufeff"
      })
  void otherWhiteSpaceAroundAKeyTextIsRefused(String ws) {
    assertThatThrownBy(() -> VerificationKey.parse(ws + KEY))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> VerificationKey.parse(KEY + ws))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TokenKeySet.parse(KEY + ws + "\n")).hasMessageContaining("line 1");
  }

  @Test
  void aByteOrderMarkIsNamedInTheError() {
    assertThatThrownBy(() -> TokenKeySet.parse("\ufeff" + KEY + "\n"))
        .hasMessageContaining("byte order mark");
  }

  @Test
  void anHmacSecretHas32To256BytesAndALongerOneIsToldSo() {
    String b64 = Base64.getUrlEncoder().withoutPadding().encodeToString(filled(256));
    assertThat(VerificationKey.parse(VerificationKey.TEXT_PREFIX + "hmac-sha256:k:" + b64).keyId())
        .isEqualTo("k");
    String longer = Base64.getUrlEncoder().withoutPadding().encodeToString(filled(257));
    assertThatThrownBy(
            () -> VerificationKey.parse(VerificationKey.TEXT_PREFIX + "hmac-sha256:k:" + longer))
        .hasMessageContaining("32 to 256 bytes");
    String tooLong = Base64.getUrlEncoder().withoutPadding().encodeToString(filled(400));
    assertThatThrownBy(
            () -> VerificationKey.parse(VerificationKey.TEXT_PREFIX + "hmac-sha256:k:" + tooLong))
        .hasMessageContaining("longer than 512 characters")
        .message()
        .doesNotContain("expected text starting with");
    assertThatThrownBy(() -> SigningKey.hmac("k", filled(257)))
        .hasMessageContaining("32 to 256 bytes");
  }

  private static byte[] filled(int n) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) 7);
    return b;
  }
}
