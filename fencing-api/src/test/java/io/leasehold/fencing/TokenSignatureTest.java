package io.leasehold.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** CONTRACT C15: signed tokens, key sets, rotation, and strict parsing of the signed forms. */
class TokenSignatureTest {
  private static final LeaseKey KEY = LeaseKey.of("acct-7", "chat-1");
  private static final UUID RUN = UUID.fromString("2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1");

  private static TokenVerificationException.Reason refusal(TokenVerifier v, FencingToken t) {
    try {
      v.verify(t);
    } catch (TokenVerificationException e) {
      return e.reason();
    }
    throw new AssertionError("token was not refused: " + t);
  }

  @ParameterizedTest
  @EnumSource(SignatureScheme.class)
  void signedTokenVerifiesAndEveryForgeryIsRefused(SignatureScheme scheme) {
    SigningKey key = SigningKey.generate(scheme, "k1");
    TokenVerifier verifier = TokenVerifier.signedBy(TokenKeySet.of(key.verificationKey()));
    FencingToken signed =
        key.sign(new FencingToken(KEY, 42, RUN), Clock.systemUTC(), Duration.ofMinutes(5));
    verifier.verify(signed);
    verifier.verify(FencingToken.parse(signed.toText())); // the text form carries it

    FencingToken unsigned = signed.unsigned();
    assertThat(refusal(verifier, unsigned)).isEqualTo(TokenVerificationException.Reason.UNSIGNED);
    // Tampered: the fence, the run, the key, each with the original signature.
    TokenSignature sig = signed.signature().orElseThrow();
    assertThat(refusal(verifier, new FencingToken(KEY, Long.MAX_VALUE, RUN, Optional.of(sig))))
        .isEqualTo(TokenVerificationException.Reason.BAD_SIGNATURE);
    assertThat(refusal(verifier, new FencingToken(KEY, 42, UUID.randomUUID(), Optional.of(sig))))
        .isEqualTo(TokenVerificationException.Reason.BAD_SIGNATURE);
    assertThat(
            refusal(
                verifier,
                new FencingToken(LeaseKey.of("acct-8", "chat-1"), 42, RUN, Optional.of(sig))))
        .isEqualTo(TokenVerificationException.Reason.BAD_SIGNATURE);
    // Signed by another key that claims the same id.
    FencingToken wrongKey =
        SigningKey.generate(scheme, "k1")
            .sign(new FencingToken(KEY, 42, RUN), Clock.systemUTC(), Duration.ofMinutes(5));
    assertThat(refusal(verifier, wrongKey))
        .isEqualTo(TokenVerificationException.Reason.BAD_SIGNATURE);
    // Signed by a key the set does not know.
    FencingToken unknown =
        SigningKey.generate(scheme, "k9")
            .sign(new FencingToken(KEY, 42, RUN), Clock.systemUTC(), Duration.ofMinutes(5));
    assertThat(refusal(verifier, unknown)).isEqualTo(TokenVerificationException.Reason.UNKNOWN_KEY);
    // A signature moved to another key id.
    FencingToken relabelled =
        signed.withSignature(
            new TokenSignature("k2", sig.validFrom(), sig.validUntil(), sig.value()));
    TokenVerifier both =
        TokenVerifier.signedBy(
            TokenKeySet.of(
                key.verificationKey(), SigningKey.generate(scheme, "k2").verificationKey()));
    assertThat(refusal(both, relabelled))
        .isEqualTo(TokenVerificationException.Reason.BAD_SIGNATURE);
    // Garbage of the wrong length in place of the signature (issue 27, finding 9).
    assertThat(
            refusal(
                verifier,
                signed.withSignature(
                    new TokenSignature("k1", sig.validFrom(), sig.validUntil(), "AAAA"))))
        .isEqualTo(TokenVerificationException.Reason.BAD_SIGNATURE);
  }

  @Test
  void anEd25519VerificationKeyCannotSign() {
    SigningKey key = SigningKey.generate(SignatureScheme.ED25519, "pub");
    String published = key.verificationKey().toText();
    assertThat(published).startsWith("leasehold-verify-key:v1:ed25519:pub:");
    // What the resource owner holds parses only as a verification key, never as a signing key.
    assertThatThrownBy(() -> SigningKey.parse(published))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(VerificationKey.parse(published).scheme()).isEqualTo(SignatureScheme.ED25519);
  }

  @ParameterizedTest
  @EnumSource(SignatureScheme.class)
  void keysRoundTripThroughTheirTextFormsWithoutPrintingMaterial(SignatureScheme scheme) {
    SigningKey key = SigningKey.generate(scheme, "2026-12");
    SigningKey again = SigningKey.parse(key.toText());
    TokenVerifier verifier =
        TokenVerifier.signedBy(
            TokenKeySet.parse("# keys\n\n" + key.verificationKey().toText() + "\n"));
    verifier.verify(
        again.sign(new FencingToken(KEY, 7, RUN), Clock.systemUTC(), Duration.ofMinutes(5)));
    assertThat(key.toString())
        .doesNotContain(key.toText().substring(key.toText().lastIndexOf(':') + 1));
    assertThat(key.verificationKey().toString())
        .isEqualTo("VerificationKey[" + scheme.textName() + ", id=2026-12]");
  }

  @Test
  void malformedKeysAreClearErrorsThatNeverEchoTheMaterial() {
    assertThatThrownBy(() -> SigningKey.parse("leasehold-signing-key:v1:hmac-sha256:k1:c2hvcnQ"))
        .hasMessageContaining("32 to 256 bytes");
    assertThatThrownBy(() -> SigningKey.parse("leasehold-signing-key:v1:rsa:k1:AAAA"))
        .hasMessageContaining("unknown scheme");
    assertThatThrownBy(() -> SigningKey.parse("leasehold-signing-key:v1:hmac-sha256:bad.id:AAAA"))
        .hasMessageContaining("key id");
    assertThatThrownBy(
            () -> VerificationKey.parse("leasehold-verify-key:v1:ed25519:k1:c2VjcmV0LXNlY3JldA"))
        .hasMessageContaining("not an Ed25519 public key")
        .message()
        .doesNotContain("c2VjcmV0LXNlY3JldA");
    SigningKey a = SigningKey.generate(SignatureScheme.ED25519, "a");
    SigningKey b = SigningKey.generate(SignatureScheme.ED25519, "a");
    String aText = a.toText();
    String mismatched =
        aText.substring(0, aText.lastIndexOf('.'))
            + b.toText().substring(b.toText().lastIndexOf('.'));
    assertThatThrownBy(() -> SigningKey.parse(mismatched)).hasMessageContaining("does not match");
    assertThatThrownBy(() -> TokenKeySet.parse("# nothing\n"))
        .hasMessageContaining("at least one key");
    assertThatThrownBy(() -> TokenKeySet.parse("garbage")).hasMessageContaining("line 1");
    VerificationKey k = a.verificationKey();
    assertThatThrownBy(() -> TokenKeySet.of(k, k)).hasMessageContaining("two keys have the id a");
  }

  /** The rotation procedure of docs/security.md, step by step, with a verifier that stays up. */
  @Test
  void rotationWithoutDowntime() {
    SigningKey old = SigningKey.generate(SignatureScheme.ED25519, "2026-11");
    AtomicReference<TokenKeySet> keys =
        new AtomicReference<>(TokenKeySet.of(old.verificationKey()));
    TokenVerifier resource = TokenVerifier.signedBy(keys::get);
    FencingToken oldRun =
        old.sign(new FencingToken(KEY, 10, RUN), Clock.systemUTC(), Duration.ofMinutes(5));
    resource.verify(oldRun);

    // 1. The resource learns the new key; 2. the store signs with it. Old and new both verify.
    SigningKey fresh = SigningKey.generate(SignatureScheme.ED25519, "2026-12");
    keys.set(keys.get().with(fresh.verificationKey()));
    FencingToken newRun =
        fresh.sign(
            new FencingToken(KEY, 11, UUID.randomUUID()), Clock.systemUTC(), Duration.ofMinutes(5));
    resource.verify(oldRun);
    resource.verify(newRun);

    // 3. Once no live lease carries an old token, the old key is retired: its tokens are refused,
    // even one this verifier had already verified.
    keys.set(keys.get().without("2026-11"));
    assertThat(refusal(resource, oldRun)).isEqualTo(TokenVerificationException.Reason.UNKNOWN_KEY);
    resource.verify(newRun);
    assertThatThrownBy(() -> keys.get().without("2026-12"))
        .hasMessageContaining("at least one key");
  }

  @Test
  void signedTextFormIsStrict() {
    SigningKey key = SigningKey.generate(SignatureScheme.HMAC_SHA256, "k1");
    FencingToken signed =
        key.sign(new FencingToken(KEY, 42, RUN), Clock.systemUTC(), Duration.ofMinutes(5));
    String text = signed.toText();
    assertThat(text.split("\\.")).hasSize(9);
    assertThat(FencingToken.parse(text)).isEqualTo(signed);
    assertThatThrownBy(() -> FencingToken.parse(text + ".x")).hasMessageContaining("9 when signed");
    assertThatThrownBy(() -> FencingToken.parse(text.substring(0, text.lastIndexOf('.'))))
        .hasMessageContaining("parts");
    assertThatThrownBy(() -> FencingToken.parse(text.replace(".k1.", ".k!.")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FencingToken.parse(text + "="))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(signed.toString())
        .contains("signed by k1")
        .doesNotContain(signed.signature().get().value());
  }

  @Test
  void theLongestKeysStillMakeATokenThatParses() {
    String longest = "\u00e9".repeat(LeaseKey.MAX_LENGTH);
    FencingToken t =
        SigningKey.generate(SignatureScheme.ED25519, "k".repeat(64))
            .sign(
                new FencingToken(LeaseKey.of(longest, longest), Long.MAX_VALUE, RUN),
                Clock.systemUTC(),
                Duration.ofMinutes(5));
    assertThat(FencingToken.parse(t.toText())).isEqualTo(t);
  }

  @Test
  void loneSurrogatesAreRefusedWhereverAKeyEnters() {
    assertThatThrownBy(() -> LeaseKey.of("acct\uD800x", "s"))
        .hasMessageContaining("lone surrogate");
    assertThatThrownBy(() -> LeaseKey.of("a", "x\uDC00")).hasMessageContaining("lone surrogate");
    assertThat(LeaseKey.of("a\uD83D\uDE00", "s").accountId()).hasSize(3); // a real pair is fine
  }

  @Test
  void theHttpHeaderVerifierMapsEveryRefusalToAStatus() {
    SigningKey key = SigningKey.generate(SignatureScheme.HMAC_SHA256, "k1");
    TokenVerifier verifier = TokenVerifier.signedBy(TokenKeySet.of(key.verificationKey()));
    FencingToken signed =
        key.sign(new FencingToken(KEY, 42, RUN), Clock.systemUTC(), Duration.ofMinutes(5));
    assertThat(TokenTransport.verifyHeader(" " + signed.toText() + " ", verifier))
        .isEqualTo(signed);
    assertThat(statusOf(null, verifier)).isEqualTo(401);
    assertThat(statusOf("lh2.nonsense", verifier)).isEqualTo(400);
    assertThat(statusOf(signed.unsigned().toText(), verifier)).isEqualTo(401);
    assertThat(
            statusOf(
                new FencingToken(KEY, Long.MAX_VALUE, RUN, signed.signature()).toText(), verifier))
        .isEqualTo(401);
  }

  private static int statusOf(String header, TokenVerifier verifier) {
    try {
      TokenTransport.verifyHeader(header, verifier);
    } catch (TokenVerificationException e) {
      return e.httpStatus();
    }
    throw new AssertionError("header was accepted: " + header);
  }
}
