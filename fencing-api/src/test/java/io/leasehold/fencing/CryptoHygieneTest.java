package io.leasehold.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 27, finding 9: the signature text was malleable, and a key's scheme was not pinned by its
 * material. Each test here fails on the code before the fix.
 */
class CryptoHygieneTest {
  private static final LeaseKey KEY = LeaseKey.of("acct-7", "chat-1");
  private static final UUID RUN = UUID.fromString("2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1");

  /** The last character of unpadded base64url carries unused low bits; flip one of them. */
  private static String withTrailingBitsSet(String text) {
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char last = text.charAt(text.length() - 1);
    int value = alphabet.indexOf(last);
    char changed = alphabet.charAt(value ^ 1);
    return text.substring(0, text.length() - 1) + changed;
  }

  @ParameterizedTest
  @EnumSource(SignatureScheme.class)
  void aSignatureWithStrayTrailingBitsDoesNotParse(SignatureScheme scheme) {
    SigningKey key = SigningKey.generate(scheme, "k1");
    String honest =
        key.sign(new FencingToken(KEY, 42, RUN), Clock.systemUTC(), Duration.ofMinutes(5)).toText();
    String malleated = withTrailingBitsSet(honest);
    assertThat(malleated).isNotEqualTo(honest);

    assertThatThrownBy(() -> FencingToken.parse(malleated))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not canonical");
    assertThat(FencingToken.parse(honest).toText()).isEqualTo(honest);
  }

  @Test
  void anEd25519PublicKeyEditedToHmacIsRefusedAsASecret() {
    VerificationKey ed = SigningKey.generate(SignatureScheme.ED25519, "k1").verificationKey();
    String edited = ed.toText().replace(":ed25519:", ":hmac-sha256:");
    assertThat(edited).isNotEqualTo(ed.toText());

    assertThatThrownBy(() -> VerificationKey.parse(edited))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is an Ed25519 key, not an HMAC secret");
  }

  @Test
  void anHmacSigningKeyWhoseSecretIsAnEd25519KeyIsRefused() {
    VerificationKey ed = SigningKey.generate(SignatureScheme.ED25519, "k1").verificationKey();
    String material = ed.toText().substring(ed.toText().lastIndexOf(':') + 1);
    assertThatThrownBy(
            () -> SigningKey.parse(SigningKey.TEXT_PREFIX + "hmac-sha256:k1:" + material))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is an Ed25519 key, not an HMAC secret");
  }

  @ParameterizedTest
  @EnumSource(SignatureScheme.class)
  void keyMaterialWithPaddingOrStrayBitsIsRefused(SignatureScheme scheme) {
    VerificationKey key = SigningKey.generate(scheme, "k1").verificationKey();
    String text = key.toText();
    assertThat(VerificationKey.parse(text).scheme()).isEqualTo(scheme);
    assertThatThrownBy(() -> VerificationKey.parse(withTrailingBitsSet(text)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not canonical");
  }
}
