package io.leasehold.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 46, item 6: Ed25519 keys were not checked as RFC 8032 and RFC 8410 require. Under a
 * small-order public key anyone could forge a token (R = identity, S = 0); DER with NULL
 * parameters, unused bits in the BIT STRING or trailing bytes loaded. Each test fails on the code
 * before the fix.
 */
class Ed25519KeyCheckTest {
  private static final LeaseKey KEY = LeaseKey.of("acct-7", "chat-1");
  private static final UUID RUN = UUID.fromString("2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1");
  private static final HexFormat HEX = HexFormat.of();

  /** The eight points of small order, canonically encoded, and non-canonical spellings of them. */
  static final List<String> SMALL_ORDER =
      List.of(
          "0100000000000000000000000000000000000000000000000000000000000000", // identity
          "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // order 2
          "0000000000000000000000000000000000000000000000000000000000000000", // order 4
          "0000000000000000000000000000000000000000000000000000000000000080", // order 4
          "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05", // order 8
          "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85", // order 8
          "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", // order 8
          "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa"); // order 8

  static final List<String> NON_CANONICAL =
      List.of(
          "0100000000000000000000000000000000000000000000000000000000000080", // identity, x = 0
          // signed
          "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // y = p + 1
          "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // y = p
          "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"); // order 2, x = 0

  // signed

  static String spki(String pointHex) {
    return "302a300506032b6570032100" + pointHex;
  }

  static String verifyKeyText(String derHex) {
    return VerificationKey.TEXT_PREFIX + "ed25519:weak:" + b64(HEX.parseHex(derHex));
  }

  static String b64(byte[] bytes) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** A token "signed" with R = the identity's encoding and S = 0: valid under a small-order key. */
  static FencingToken forged() {
    byte[] sig = new byte[64];
    sig[0] = 1;
    Instant from = Instant.ofEpochMilli(1_796_300_000_000L);
    return new FencingToken(KEY, 1_000_000, RUN)
        .withSignature(new TokenSignature("weak", from, from.plusSeconds(60), b64(sig)));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3, 4, 5, 6, 7})
  void aSmallOrderPublicKeyIsRefusedWhereAnyoneCouldForge(int i) throws Exception {
    String der = spki(SMALL_ORDER.get(i));
    assertThatThrownBy(() -> VerificationKey.parse(verifyKeyText(der)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("small order");
    // The programmatic path refuses it too, where the JDK could decode it.
    PublicKey decoded;
    try {
      decoded =
          KeyFactory.getInstance("Ed25519")
              .generatePublic(new X509EncodedKeySpec(HEX.parseHex(der)));
    } catch (java.security.GeneralSecurityException e) {
      return;
    }
    assertThatThrownBy(() -> VerificationKey.ed25519("weak", decoded))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("small order");
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3})
  void aNonCanonicalPointEncodingIsRefused(int i) {
    assertThatThrownBy(() -> VerificationKey.parse(verifyKeyText(spki(NON_CANONICAL.get(i)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("non-canonical encoding");
  }

  @Test
  void theForgedTokenOfTheIdentityKeyIsNeverAdmitted() {
    // Before the fix the key loaded and this token verified.
    String weak = verifyKeyText(spki(SMALL_ORDER.get(0)));
    assertThatThrownBy(() -> TokenKeySet.parse(weak)).hasMessageContaining("line 1");
    assertThat(FencingToken.parse(forged().toText())).isEqualTo(forged());
  }

  @Test
  void derOtherThanRfc8410sExactFormIsRefusedAndNeverLoadsAsBothSchemes() {
    String point = publicPoint();
    String withNullParameters = "302c300706032b65700500032100" + point;
    String unusedBits = "302a300506032b6570032101" + point;
    String trailingByte = spki(point) + "00";
    for (String der : List.of(withNullParameters, unusedBits, trailingByte)) {
      assertThatThrownBy(() -> VerificationKey.parse(verifyKeyText(der)))
          .as(der)
          .hasMessageContaining("not an Ed25519 public key");
    }
    // The same bytes load as one scheme at most: the honest SPKI only as Ed25519.
    String honest = b64(HEX.parseHex(spki(point)));
    assertThat(VerificationKey.parse(VerificationKey.TEXT_PREFIX + "ed25519:k:" + honest).scheme())
        .isEqualTo(SignatureScheme.ED25519);
    assertThatThrownBy(
            () -> VerificationKey.parse(VerificationKey.TEXT_PREFIX + "hmac-sha256:k:" + honest))
        .hasMessageContaining("is an Ed25519 key");
  }

  @Test
  void aSigningKeyWithTrailingBytesOrAnotherKeysPublicHalfIsRefused() {
    SigningKey a = SigningKey.generate(SignatureScheme.ED25519, "a");
    String text = a.toText();
    String priv = text.substring(text.lastIndexOf(':') + 1, text.lastIndexOf('.'));
    String pub = text.substring(text.lastIndexOf('.') + 1);
    byte[] longer = java.util.Arrays.copyOf(Base64.getUrlDecoder().decode(priv), 49);
    assertThatThrownBy(
            () -> SigningKey.parse(SigningKey.TEXT_PREFIX + "ed25519:a:" + b64(longer) + "." + pub))
        .hasMessageContaining("not an Ed25519 private key");
    String weakPub = b64(HEX.parseHex(spki(SMALL_ORDER.get(1))));
    assertThatThrownBy(
            () -> SigningKey.parse(SigningKey.TEXT_PREFIX + "ed25519:a:" + priv + "." + weakPub))
        .hasMessageContaining("small order");
  }

  @Test
  void aSignatureWithSAboveTheGroupOrderIsRefused() {
    SigningKey key = SigningKey.generate(SignatureScheme.ED25519, "k1");
    Instant from = Instant.ofEpochMilli(1_796_300_000_000L);
    FencingToken honest = key.sign(new FencingToken(KEY, 42, RUN), from, from.plusSeconds(60));
    byte[] sig = Base64.getUrlDecoder().decode(honest.signature().orElseThrow().value());
    byte[] sLe = java.util.Arrays.copyOfRange(sig, 32, 64);
    BigInteger l =
        BigInteger.TWO.pow(252).add(new BigInteger("27742317777372353535851937790883648493"));
    BigInteger s = new BigInteger(1, reverse(sLe)).add(l);
    byte[] sPlusL = reverse(toFixed(s));
    System.arraycopy(sPlusL, 0, sig, 32, 32);
    FencingToken malleated =
        honest.withSignature(new TokenSignature("k1", from, from.plusSeconds(60), b64(sig)));
    SignedTokenVerifier verifier =
        TokenVerifier.signedBy(TokenKeySet.of(key.verificationKey()))
            .withClock(Clock.fixed(from.plusSeconds(1), ZoneOffset.UTC))
            .withClockSkew(Duration.ZERO);
    verifier.verify(honest);
    assertThatThrownBy(() -> verifier.verify(malleated))
        .isInstanceOfSatisfying(
            TokenVerificationException.class,
            e -> assertThat(e.reason()).isEqualTo(TokenVerificationException.Reason.BAD_SIGNATURE));
  }

  /**
   * Red team on issue 46: the object factories took an Ed25519 key's DER as an HMAC secret, so a
   * resource that built its key in code from a public key's bytes admitted tokens anyone who knew
   * the public key could mint; its own toText() was then refused by parse (spec 3.4).
   */
  @Test
  void anEd25519KeysDerIsRefusedAsAnHmacSecretByTheObjectFactories() {
    SigningKey ed = SigningKey.generate(SignatureScheme.ED25519, "ed");
    String t = ed.verificationKey().toText();
    byte[] spki = Base64.getUrlDecoder().decode(t.substring(t.lastIndexOf(':') + 1));
    assertThat(spki).hasSize(44);
    assertThatThrownBy(() -> VerificationKey.hmac("x", spki))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is an Ed25519 key, not an HMAC secret");
    assertThatThrownBy(() -> SigningKey.hmac("x", spki))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is an Ed25519 key, not an HMAC secret");
    byte[] withTail = java.util.Arrays.copyOf(spki, 48);
    assertThatThrownBy(() -> VerificationKey.hmac("x", withTail))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Ed25519");
    assertThat(VerificationKey.hmac("x", new byte[44]).keyId()).isEqualTo("x");
  }

  /**
   * Red team on issue 46: a clock-skew allowance that is not a whole number of milliseconds was
   * taken (and acted as the milliseconds below it); spec section 5 says the verifier must refuse to
   * be built with it, as Node does.
   */
  @ParameterizedTest
  @ValueSource(longs = {1L, 1_500_000L, 5_999_999L, 999_999L})
  void aClockSkewThatIsNotAWholeNumberOfMillisecondsIsRefused(long nanos) {
    SignedTokenVerifier verifier =
        TokenVerifier.signedBy(
            TokenKeySet.of(SigningKey.generate(SignatureScheme.ED25519, "k").verificationKey()));
    assertThatThrownBy(() -> verifier.withClockSkew(Duration.ofNanos(nanos)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("whole number of milliseconds");
    assertThat(verifier.withClockSkew(Duration.ofMillis(2)).clockSkew())
        .isEqualTo(Duration.ofMillis(2));
    assertThat(verifier.withClockSkew(Duration.ofMinutes(10)).clockSkew())
        .isEqualTo(Duration.ofMinutes(10));
  }

  private static String publicPoint() {
    String t = SigningKey.generate(SignatureScheme.ED25519, "x").verificationKey().toText();
    byte[] der = Base64.getUrlDecoder().decode(t.substring(t.lastIndexOf(':') + 1));
    return HEX.formatHex(der, 12, 44);
  }

  private static byte[] reverse(byte[] b) {
    byte[] r = new byte[b.length];
    for (int i = 0; i < b.length; i++) {
      r[i] = b[b.length - 1 - i];
    }
    return r;
  }

  private static byte[] toFixed(BigInteger v) {
    byte[] raw = v.toByteArray();
    byte[] out = new byte[32];
    int n = Math.min(raw.length, 32);
    System.arraycopy(raw, raw.length - n, out, 32 - n, n);
    return out;
  }
}
