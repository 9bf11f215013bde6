package io.leasehold.fencing.json;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.SigningKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Writes docs/token-vectors.json, the shared test vectors of docs/token-spec.md. The keys are fixed
 * and both schemes are deterministic, so a run writes the same file; the expected verdicts are
 * written here by hand from the spec, not computed by the implementation under test. {@code
 * TokenVectorsTest.theCommittedFileIsWhatTheGeneratorWrites} runs it and compares, so a change to a
 * case is made here and the file is rewritten with {@code -Dleasehold.writeVectors=true} on that
 * test.
 */
public final class TokenVectorsGenerator {
  static final String HMAC =
      "leasehold-signing-key:v1:hmac-sha256:hmac-2026-12:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
  static final String HMAC_OTHER_SECRET =
      "leasehold-verify-key:v1:hmac-sha256:hmac-2026-12:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8";
  static final String ED =
      "leasehold-signing-key:v1:ed25519:ed-2026-12:MC4CAQAwBQYDK2VwBCIEIOealA7kf30iGsgNBgJQTR5yQ2zkpNAJ5uhsJEUeGbaU.MCowBQYDK2VwAyEA1-ktcwAlZriAqgDVXFoIriGT6g88KPHZ8Z1lBkFQ9fg";
  static final String ED_OTHER =
      "leasehold-signing-key:v1:ed25519:ed-other:MC4CAQAwBQYDK2VwBCIEIN_JYt1UioiXFn9Dy5i5p4kF8j5zuq8McUnDO6pNZXpQ.MCowBQYDK2VwAyEAHTJyCp3H4JNblLth6JhXVvFiiO4LQHu3uzviN1eLgWw";

  static final long FROM = 1_796_300_000_000L;
  static final long UNTIL = 1_796_300_030_000L;
  static final long INSIDE = 1_796_300_010_000L;
  static final long SKEW = 5_000L;
  static final UUID RUN = UUID.fromString("2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1");
  static final LeaseKey KEY = LeaseKey.of("acct-7", "chat-1");

  final ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  final ArrayNode cases = json.createArrayNode();
  final SigningKey hmac = SigningKey.parse(HMAC);
  final SigningKey ed = SigningKey.parse(ED);
  final SigningKey edOther = SigningKey.parse(ED_OTHER);

  private TokenVectorsGenerator() {}

  public static void main(String[] args) throws Exception {
    Files.writeString(Path.of(args[0]), text());
  }

  /** The whole file's text. */
  static String text() throws Exception {
    return new TokenVectorsGenerator().build() + "\n";
  }

  String sign(SigningKey key, LeaseKey k, long fence, long from, long until) {
    return key.sign(
            new FencingToken(k, fence, RUN),
            Instant.ofEpochMilli(from),
            Instant.ofEpochMilli(until))
        .toText();
  }

  String hmacToken() {
    return sign(hmac, KEY, 42, FROM, UNTIL);
  }

  String edToken() {
    return sign(ed, KEY, 42, FROM, UNTIL);
  }

  void add(String name, String token, List<String> keys, long now, long skew, String expect) {
    ObjectNode c = cases.addObject();
    c.put("kind", "token");
    c.put("name", name);
    c.put("token", token);
    ObjectNode v = c.putObject("verifier");
    ArrayNode ks = v.putArray("keys");
    keys.forEach(ks::add);
    v.put("clockSkewMillis", skew);
    c.put("nowMillis", now);
    c.put("expect", expect);
    if (expect.equals("valid")) {
      FencingToken t = FencingToken.parse(token);
      ObjectNode out = c.putObject("token_fields");
      // Decimal strings: a fence may exceed what a JSON number keeps exactly in JavaScript (2^53).
      out.put("fence", Long.toString(t.fence()));
      out.put("runId", t.runId().toString());
      out.put("accountId", t.key().accountId());
      out.put("sessionId", t.key().sessionId());
      out.put(
          "validFromMillis", Long.toString(t.signature().orElseThrow().validFrom().toEpochMilli()));
      out.put(
          "validUntilMillis",
          Long.toString(t.signature().orElseThrow().validUntil().toEpochMilli()));
      out.put("keyId", t.signature().orElseThrow().keyId());
    }
  }

  void add(String name, String token, String expect) {
    add(name, token, List.of(hmacKey(), edKey()), INSIDE, SKEW, expect);
  }

  String hmacKey() {
    return hmac.verificationKey().toText();
  }

  String edKey() {
    return ed.verificationKey().toText();
  }

  /** Replaces dot-separated part {@code i} of a token text. */
  static String part(String token, int i, String value) {
    String[] p = token.split("\\.", -1);
    p[i] = value;
    return String.join(".", p);
  }

  static String get(String token, int i) {
    return token.split("\\.", -1)[i];
  }

  private String build() throws Exception {
    String h = hmacToken();
    String e = edToken();
    // Valid tokens.
    add("valid HMAC-SHA-256 token", h, "valid");
    add("valid Ed25519 token", e, "valid");
    add("valid with only its own key in the set", e, List.of(edKey()), INSIDE, SKEW, "valid");
    add(
        "valid at the start of the window less the skew",
        e,
        List.of(edKey()),
        FROM - SKEW,
        SKEW,
        "valid");
    add(
        "valid at the end of the window plus the skew",
        h,
        List.of(hmacKey()),
        UNTIL + SKEW,
        SKEW,
        "valid");
    add("valid with zero skew at the last millisecond", h, List.of(hmacKey()), UNTIL, 0, "valid");
    add(
        "valid with non-ASCII key ids",
        sign(
            ed,
            LeaseKey.of("Zo\u00eb / \u00fcn\u00efcode.with.dots", "s\u00e9ance:1 2"),
            7,
            FROM,
            UNTIL),
        "valid");
    add("valid with the largest fence", sign(hmac, KEY, Long.MAX_VALUE, FROM, UNTIL), "valid");
    add(
        "valid with an empty window",
        sign(ed, KEY, 3, FROM, FROM),
        List.of(edKey()),
        FROM,
        SKEW,
        "valid");
    add(
        "valid with a window starting at zero",
        sign(hmac, KEY, 3, 0, UNTIL),
        List.of(hmacKey()),
        INSIDE,
        SKEW,
        "valid");

    // Time.
    add("expired HMAC token", h, List.of(hmacKey()), UNTIL + SKEW + 1, SKEW, "EXPIRED");
    add("expired Ed25519 token", e, List.of(edKey()), UNTIL + SKEW + 1, SKEW, "EXPIRED");
    add(
        "expired with zero skew one millisecond after the window",
        h,
        List.of(hmacKey()),
        UNTIL + 1,
        0,
        "EXPIRED");
    add("not yet valid", e, List.of(edKey()), FROM - SKEW - 1, SKEW, "NOT_YET_VALID");
    add("not yet valid with zero skew", h, List.of(hmacKey()), FROM - 1, 0, "NOT_YET_VALID");
    add(
        "expired even with a forged signature is reported as expired (window checked first)",
        part(
            e,
            8,
            get(
                edOther
                    .sign(
                        new FencingToken(KEY, 42, RUN),
                        Instant.ofEpochMilli(FROM),
                        Instant.ofEpochMilli(UNTIL))
                    .toText(),
                8)),
        List.of(edKey()),
        UNTIL + SKEW + 1,
        SKEW,
        "EXPIRED");

    // Keys.
    add(
        "unsigned token where signatures are required",
        new FencingToken(KEY, 42, RUN).toText(),
        "UNSIGNED");
    add("unknown key id", sign(edOther, KEY, 42, FROM, UNTIL), "UNKNOWN_KEY");
    add(
        "key id known only under the other scheme: HMAC token, Ed25519 key of that id",
        h,
        List.of(edKeyNamed("hmac-2026-12")),
        INSIDE,
        SKEW,
        "BAD_SIGNATURE");
    add(
        "key id known only under the other scheme: Ed25519 token, HMAC key of that id",
        e,
        List.of(hmacKeyNamed("ed-2026-12")),
        INSIDE,
        SKEW,
        "BAD_SIGNATURE");
    add(
        "same key id, another HMAC secret",
        h,
        List.of(HMAC_OTHER_SECRET),
        INSIDE,
        SKEW,
        "BAD_SIGNATURE");
    add(
        "signed by another Ed25519 key under the same id",
        sign(
            SigningKey.parse(ED_OTHER.replace(":ed-other:", ":ed-2026-12:")), KEY, 42, FROM, UNTIL),
        "BAD_SIGNATURE");

    // Tampered fields (each is still canonical).
    add("tampered fence", part(h, 1, "43"), "BAD_SIGNATURE");
    add("tampered fence, Ed25519", part(e, 1, "9223372036854775807"), "BAD_SIGNATURE");
    add("tampered run id", part(e, 2, "2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a2"), "BAD_SIGNATURE");
    add("tampered account id", part(h, 3, "YWNjdC04"), "BAD_SIGNATURE");
    add("tampered session id", part(e, 4, "Y2hhdC0y"), "BAD_SIGNATURE");
    add("tampered window start", part(e, 5, Long.toString(FROM - 1)), "BAD_SIGNATURE");
    add(
        "tampered window end (extended)",
        part(h, 6, Long.toString(UNTIL + 3_600_000)),
        "BAD_SIGNATURE");
    add(
        "signature moved to another known key id",
        part(e, 7, "ed-other"),
        List.of(edKey(), edOther.verificationKey().toText()),
        INSIDE,
        SKEW,
        "BAD_SIGNATURE");
    add(
        "signature of another token",
        part(h, 8, get(sign(hmac, KEY, 41, FROM, UNTIL), 8)),
        "BAD_SIGNATURE");
    add("signature with one character changed", part(e, 8, flip(get(e, 8))), "BAD_SIGNATURE");
    add("HMAC signature of the wrong length", part(h, 8, "AAAA"), "BAD_SIGNATURE");
    add("Ed25519 signature cut short", part(e, 8, get(e, 8).substring(0, 84)), "BAD_SIGNATURE");

    // Not canonical, or not a token.
    add("empty text", "", "MALFORMED");
    add("retired lh1 form", "lh1.42." + RUN + ".YWNjdC03.Y2hhdC0x", "MALFORMED");
    add("unknown future version", "lh3" + h.substring(3), "MALFORMED");
    add("upper-case prefix", "LH2" + h.substring(3), "MALFORMED");
    add("leading zero in the fence", part(h, 1, "042"), "MALFORMED");
    add("plus sign in the fence", part(h, 1, "+42"), "MALFORMED");
    add("zero fence", part(h, 1, "0"), "MALFORMED");
    add("negative fence", part(h, 1, "-1"), "MALFORMED");
    add("fence beyond 2^63-1", part(h, 1, "9223372036854775808"), "MALFORMED");
    add("upper-case run id", part(h, 2, RUN.toString().toUpperCase()), "MALFORMED");
    add("run id without dashes' canonical groups", part(h, 2, "1-1-1-1-1"), "MALFORMED");
    add("padding in the account id", part(h, 3, "YWNjdA=="), "MALFORMED");
    add("non-zero trailing bits in the account id", part(h, 3, "YWNjdB"), "MALFORMED");
    add("standard base64 alphabet in the session id", part(h, 4, "Y2hh+C0x"), "MALFORMED");
    add("account id that is not UTF-8", part(h, 3, "_w"), "MALFORMED");
    add("blank account id", part(h, 3, "ICAg"), "MALFORMED");
    add("control character in the account id", part(h, 3, "AQ"), "MALFORMED");
    add("empty session id", part(h, 4, ""), "MALFORMED");
    add("leading zero in the window start", part(h, 5, "0" + FROM), "MALFORMED");
    add("window end before its start", part(h, 6, Long.toString(FROM - 1)), "MALFORMED");
    add("key id with a forbidden character", part(h, 7, "hmac!2026"), "MALFORMED");
    add("key id longer than 64 characters", part(h, 7, "k".repeat(65)), "MALFORMED");
    add("padding on the signature", part(h, 8, get(h, 8) + "="), "MALFORMED");
    add(
        "non-zero trailing bits in the signature",
        part(h, 8, trailingBits(get(h, 8))),
        "MALFORMED");
    add("leading space", " " + h, "MALFORMED");
    add("trailing newline", h + "\n", "MALFORMED");
    add("six parts", h.substring(0, h.indexOf('.', h.indexOf(get(h, 5)))), "MALFORMED");
    add("extra part after the signature", h + ".x", "MALFORMED");
    add("oversized text (1401 characters)", "lh2." + "1".repeat(1397), "MALFORMED");

    // Spec 1.1 (issue 46): the questions 1.0 left open, each answered by a vector.
    new MoreTokenVectors(this).add();

    ObjectNode root = json.createObjectNode();
    root.put("spec", "docs/token-spec.md");
    root.put("format", "lh2");
    root.put("specVersion", "1.1");
    root.put(
        "comment",
        "Each case has a 'kind' (docs/token-spec.md section 9). 'token': verify"
            + " 'token' with the verifier (its verification keys, its clock skew allowance) at time"
            + " 'nowMillis'; 'expect' is 'valid' or the error class of the first failed step. 'header':"
            + " the same through the Leasehold-Token header, whose value is 'header' (null: absent)."
            + " 'input': a verifier given the JSON value 'input' instead of text. 'verificationKey',"
            + " 'signingKey', 'keySet': parse 'text'; 'expect' is 'valid' or 'refused'. 'skew': build a"
            + " verifier with 'clockSkewMillis'. Signing keys, for implementations that also issue tokens:");
    ObjectNode signing = root.putObject("signingKeys");
    signing.put("hmac", HMAC);
    signing.put("ed25519", ED);
    signing.put("ed25519Other", ED_OTHER);
    root.put("count", cases.size());
    root.set("cases", cases);
    return json.writeValueAsString(root);
  }

  private String edKeyNamed(String id) {
    return edKey().replace(":ed-2026-12:", ":" + id + ":");
  }

  private String hmacKeyNamed(String id) {
    return hmacKey().replace(":hmac-2026-12:", ":" + id + ":");
  }

  /** The text with its first character changed to another base64url character. */
  private static String flip(String sig) {
    char c = sig.charAt(0);
    return (c == 'A' ? 'B' : 'A') + sig.substring(1);
  }

  /** Sets the unused low bits of the last character: the same bytes, another spelling. */
  private static String trailingBits(String sig) {
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char last = sig.charAt(sig.length() - 1);
    int v = alphabet.indexOf(last);
    // A 32-byte HMAC tag is 43 characters: the last one carries 4 bits and 2 unused.
    return sig.substring(0, sig.length() - 1) + alphabet.charAt(v | 1);
  }
}
