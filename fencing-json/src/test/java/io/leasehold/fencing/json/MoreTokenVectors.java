package io.leasehold.fencing.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenSignature;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/**
 * The vectors token spec 1.1 added (issue 46): the questions 1.0 left open, key parsing, long
 * signatures, the header carrier and non-text inputs. Part of {@link TokenVectorsGenerator}; the
 * expected verdicts are written by hand from the spec.
 */
final class MoreTokenVectors {
  private static final HexFormat HEX = HexFormat.of();

  /** The key texts' prefixes, as token spec section 3 writes them. */
  private static final String VERIFY = "leasehold-verify-key:v1:";

  private static final String SIGNING = "leasehold-signing-key:v1:";
  private static final String SPKI = "302a300506032b6570032100";
  private static final long MAX_SAFE = (1L << 53) - 1;

  private final TokenVectorsGenerator g;

  MoreTokenVectors(TokenVectorsGenerator g) {
    this.g = g;
  }

  void add() {
    tokens();
    headers();
    inputs();
    skews();
    verificationKeys();
    signingKeys();
    keySets();
  }

  private static String b64(byte[] bytes) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static String b64(String utf8) {
    return b64(utf8.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] filled(int n, int value) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) value);
    return b;
  }

  private void tokens() {
    String h = g.hmacToken();
    String e = g.edToken();
    long from = TokenVectorsGenerator.FROM;
    long until = TokenVectorsGenerator.UNTIL;
    long inside = TokenVectorsGenerator.INSIDE;
    List<String> hk = List.of(g.hmacKey());
    List<String> ek = List.of(g.edKey());

    // Signature lengths (1.1: a signature is 1 to 128 characters; longer is MALFORMED).
    g.add(
        "signature of exactly 128 characters (96 bytes) is well-formed, then wrong",
        TokenVectorsGenerator.part(h, 8, b64(filled(96, 0x41))),
        "BAD_SIGNATURE");
    g.add(
        "signature of 132 characters is malformed (over 128)",
        TokenVectorsGenerator.part(h, 8, b64(filled(99, 0x41))),
        "MALFORMED");
    g.add(
        "signature of 129 characters is malformed",
        TokenVectorsGenerator.part(h, 8, "A".repeat(129)),
        "MALFORMED");
    g.add(
        "signature of a length 1 mod 4 is malformed (85 characters)",
        TokenVectorsGenerator.part(e, 8, TokenVectorsGenerator.get(e, 8).substring(0, 85)),
        "MALFORMED");
    g.add(
        "account id of a length 1 mod 4 is malformed",
        TokenVectorsGenerator.part(h, 3, "YWNjd"),
        "MALFORMED");
    g.add(
        "single base64url character as the session id is malformed",
        TokenVectorsGenerator.part(h, 4, "Y"),
        "MALFORMED");

    // Ed25519 signatures must be canonical (RFC 8032 5.1.7).
    byte[] sig = Base64.getUrlDecoder().decode(TokenVectorsGenerator.get(e, 8));
    g.add(
        "Ed25519 signature with S + L in place of S",
        TokenVectorsGenerator.part(e, 8, b64(Ed25519Signatures.withSPlusL(sig))),
        ek,
        inside,
        TokenVectorsGenerator.SKEW,
        "BAD_SIGNATURE");
    byte[] badR = sig.clone();
    System.arraycopy(
        HEX.parseHex("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
        0,
        badR,
        0,
        32);
    g.add(
        "Ed25519 signature with a non-canonical R (y = p + 1)",
        TokenVectorsGenerator.part(e, 8, b64(badR)),
        ek,
        inside,
        TokenVectorsGenerator.SKEW,
        "BAD_SIGNATURE");
    g.add(
        "Ed25519 signature R = identity, S = 0 under an honest key",
        TokenVectorsGenerator.part(e, 8, b64(identitySignature())),
        ek,
        inside,
        TokenVectorsGenerator.SKEW,
        "BAD_SIGNATURE");

    // Id lengths are UTF-16 code units: 1 to 128.
    g.add(
        "account id of 128 code units",
        g.sign(g.hmac, LeaseKey.of("a".repeat(128), "s"), 5, from, until),
        "valid");
    g.add(
        "account id of 129 code units",
        TokenVectorsGenerator.part(h, 3, b64("a".repeat(129))),
        "MALFORMED");
    g.add(
        "session id of 64 astral characters (128 code units)",
        g.sign(g.hmac, LeaseKey.of("a", "\uD83D\uDE00".repeat(64)), 5, from, until),
        "valid");
    g.add(
        "session id of 127 code units plus an astral character (129 code units)",
        TokenVectorsGenerator.part(h, 4, b64("a".repeat(127) + "\uD83D\uDE00")),
        "MALFORMED");
    g.add(
        "both ids of 128 three-byte characters (the longest token texts)",
        g.sign(
            g.ed,
            LeaseKey.of("\u20ac".repeat(128), "\u3042".repeat(128)),
            Long.MAX_VALUE,
            from,
            until),
        "valid");

    // Controls, white space.
    malformedId("C1 control U+0085 in the account id", h, 3, "a\u0085b");
    malformedId("C1 control U+009F in the session id", h, 4, "\u009f");
    malformedId("DEL U+007F in the account id", h, 3, "a\u007f");
    validAccountId("account id of only U+00A0 (not white space here)", "\u00a0");
    validAccountId("account id of only U+2007 (not white space here)", "\u2007");
    malformedId("account id of only U+3000 is blank", h, 3, "\u3000");
    malformedId("account id of only U+2028 is blank", h, 3, "\u2028\u2029");
    malformedId("account id of only U+1680 and U+205F is blank", h, 3, "\u1680\u205f");
    validAccountId("account id starting with U+FEFF keeps it", "\ufeffa");
    validAccountId("account id holding the noncharacter U+FFFF", "a\uffff");

    // Strict UTF-8 (RFC 3629).
    String[][] utf8 = {
      {"overlong two-byte form of '/'", "c0af"},
      {"overlong three-byte form of '/'", "e080af"},
      {"UTF-8 of a surrogate (CESU-8)", "eda080"},
      {"UTF-8 beyond U+10FFFF", "f4908080"},
      {"truncated three-byte sequence", "e282"},
      {"lone continuation byte", "80"},
      {"five-byte sequence", "f888808080"},
      {"byte 0xFF", "61ff"},
    };
    for (String[] u : utf8) {
      g.add(
          "account id that is not strict UTF-8: " + u[0],
          TokenVectorsGenerator.part(h, 3, b64(HEX.parseHex(u[1]))),
          "MALFORMED");
    }

    // Not ASCII.
    g.add(
        "full-width digit in the fence", TokenVectorsGenerator.part(h, 1, "4\uff12"), "MALFORMED");
    g.add(
        "Arabic-Indic digits in the window start",
        TokenVectorsGenerator.part(h, 5, "\u0661\u0667\u0669"),
        "MALFORMED");

    // Key ids are compared exactly.
    SigningKey upper =
        SigningKey.parse(TokenVectorsGenerator.HMAC.replace(":hmac-2026-12:", ":HMAC-2026-12:"));
    g.add(
        "key id differing only in case is another key",
        g.sign(upper, TokenVectorsGenerator.KEY, 42, from, until),
        hk,
        inside,
        TokenVectorsGenerator.SKEW,
        "UNKNOWN_KEY");

    // Window arithmetic is exact: no overflow of valid-until + skew, no underflow of valid-from -
    // skew.
    g.add(
        "window ending at 2^63-1 ms with the largest skew, clock at 2^53-1",
        g.sign(g.hmac, TokenVectorsGenerator.KEY, 42, from, Long.MAX_VALUE),
        hk,
        MAX_SAFE,
        600_000,
        "valid");
    g.add(
        "window starting at 2^63-1 ms, clock at 2^53-1",
        g.sign(g.hmac, TokenVectorsGenerator.KEY, 42, Long.MAX_VALUE, Long.MAX_VALUE),
        hk,
        MAX_SAFE,
        600_000,
        "NOT_YET_VALID");
    g.add(
        "window starting at 0 with the largest skew, clock at 0",
        g.sign(g.hmac, TokenVectorsGenerator.KEY, 42, 0, 0),
        hk,
        0,
        600_000,
        "valid");
    g.add("the largest skew at its last millisecond", h, hk, until + 600_000, 600_000, "valid");
    g.add("the largest skew one millisecond later", h, hk, until + 600_001, 600_000, "EXPIRED");
  }

  /**
   * The HMAC token {@code h} with part {@code part} (3 the account id, 4 the session id) replaced
   * by {@code id}, base64url-encoded: a token the spec calls MALFORMED.
   */
  private void malformedId(String name, String h, int part, String id) {
    g.add(name, TokenVectorsGenerator.part(h, part, b64(id)), "MALFORMED");
  }

  /** A valid HMAC token for the account id {@code account}: an id the spec keeps as it is. */
  private void validAccountId(String name, String account) {
    g.add(
        name,
        g.sign(
            g.hmac,
            LeaseKey.of(account, "s"),
            5,
            TokenVectorsGenerator.FROM,
            TokenVectorsGenerator.UNTIL),
        "valid");
  }

  private static byte[] identitySignature() {
    byte[] sig = new byte[64];
    sig[0] = 1;
    return sig;
  }

  private void header(String name, String header, String expect) {
    ObjectNode c = g.cases.addObject();
    c.put("kind", "header");
    c.put("name", name);
    if (header == null) {
      c.putNull("header");
    } else {
      c.put("header", header);
    }
    verifier(c, List.of(g.hmacKey()), TokenVectorsGenerator.SKEW);
    c.put("nowMillis", TokenVectorsGenerator.INSIDE);
    c.put("expect", expect);
  }

  private static void verifier(ObjectNode c, List<String> keys, long skew) {
    ObjectNode v = c.putObject("verifier");
    ArrayNode ks = v.putArray("keys");
    keys.forEach(ks::add);
    v.put("clockSkewMillis", skew);
  }

  private void headers() {
    String h = g.hmacToken();
    header("header: the token as it is", h, "valid");
    header(
        "header: SP and HTAB around the value are optional white space (RFC 9110)",
        " \t" + h + "\t ",
        "valid");
    header(
        "header: a leading space, malformed as text, is optional white space here",
        " " + h,
        "valid");
    header("header: absent", null, "MISSING");
    header("header: empty", "", "MALFORMED");
    header("header: only SP and HTAB", " \t ", "MALFORMED");
    String[][] others = {
      {"LF", "\n"},
      {"CR", "\r"},
      {"VT", "\u000b"},
      {"FF", "\f"},
      {"U+001C", "\u001c"},
      {"NEL U+0085", "\u0085"},
      {"U+00A0", "\u00a0"},
      {"U+2028", "\u2028"},
      {"U+3000", "\u3000"},
      {"BOM U+FEFF", "\ufeff"},
    };
    for (String[] o : others) {
      header("header: trailing " + o[0] + " is not optional white space", h + o[1], "MALFORMED");
      header("header: leading " + o[0] + " is not optional white space", o[1] + h, "MALFORMED");
    }
  }

  private void inputs() {
    String h = g.hmacToken();
    FencingToken t = FencingToken.parse(h);
    TokenSignature sig = t.signature().orElseThrow();
    ObjectNode shaped = g.json.createObjectNode();
    shaped.putObject("key").put("accountId", "acct-7").put("sessionId", "chat-1");
    shaped.put("fence", "42").put("runId", t.runId().toString());
    shaped
        .putObject("signature")
        .put("validFrom", Long.toString(sig.validFrom().toEpochMilli()))
        .put("validUntil", Long.toString(sig.validUntil().toEpochMilli()))
        .put("keyId", sig.keyId())
        .put("value", sig.value());
    List<Object[]> inputs = new ArrayList<>();
    inputs.add(new Object[] {"null", g.json.getNodeFactory().nullNode()});
    inputs.add(new Object[] {"a number", g.json.getNodeFactory().numberNode(42)});
    inputs.add(new Object[] {"a boolean", g.json.getNodeFactory().booleanNode(true)});
    inputs.add(new Object[] {"an empty object", g.json.createObjectNode()});
    inputs.add(new Object[] {"an array holding the token text", g.json.createArrayNode().add(h)});
    inputs.add(new Object[] {"a JSON-shaped token object with numbers as strings", shaped});
    for (Object[] in : inputs) {
      ObjectNode c = g.cases.addObject();
      c.put("kind", "input");
      c.put("name", "input that is not text: " + in[0]);
      c.set("input", (JsonNode) in[1]);
      verifier(c, List.of(g.hmacKey()), TokenVectorsGenerator.SKEW);
      // Long after the window: an implementation that skipped the window would say "valid".
      c.put("nowMillis", MAX_SAFE);
      c.put("expect", "MALFORMED");
    }
  }

  private void skews() {
    long[][] skews = {{0, 1}, {5_000, 1}, {600_000, 1}, {600_001, 0}, {-1, 0}};
    for (long[] s : skews) {
      ObjectNode c = g.cases.addObject();
      c.put("kind", "skew");
      c.put("name", "clock skew allowance of " + s[0] + " ms");
      c.put("clockSkewMillis", s[0]);
      c.put("expect", s[1] == 1 ? "valid" : "refused");
    }
    // Spec 5: the allowance is a whole number of milliseconds; a verifier with a finer one is not
    // built (the red team found Java took 1.5 ms and acted as 1 ms).
    for (double fraction : new double[] {1.5, 5_000.5}) {
      ObjectNode c = g.cases.addObject();
      c.put("kind", "skew");
      c.put("name", "clock skew allowance of " + fraction + " ms (not whole milliseconds)");
      c.put("clockSkewMillis", fraction);
      c.put("expect", "refused");
    }
  }

  private void key(String kind, String name, String text, String expect) {
    ObjectNode c = g.cases.addObject();
    c.put("kind", kind);
    c.put("name", name);
    c.put("text", text);
    c.put("expect", expect);
  }

  private static String hmacText(String prefix, String id, byte[] secret) {
    return prefix + "hmac-sha256:" + id + ":" + b64(secret);
  }

  private static String edText(String id, String derHex) {
    return VERIFY + "ed25519:" + id + ":" + b64(HEX.parseHex(derHex));
  }

  private String edPoint() {
    String t = g.edKey();
    return HEX.formatHex(
        Base64.getUrlDecoder().decode(t.substring(t.lastIndexOf(':') + 1)), 12, 44);
  }

  private void verificationKeys() {
    String k = g.hmacKey();
    String kind = "verificationKey";
    key(kind, "HMAC key of 32 bytes", hmacText(VERIFY, "k", filled(32, 7)), "valid");
    key(kind, "HMAC key of 31 bytes", hmacText(VERIFY, "k", filled(31, 7)), "refused");
    key(kind, "HMAC key of 256 bytes", hmacText(VERIFY, "k", filled(256, 7)), "valid");
    key(kind, "HMAC key of 257 bytes", hmacText(VERIFY, "k", filled(257, 7)), "refused");
    key(
        kind,
        "key text over 512 characters",
        hmacText(VERIFY, "k".repeat(64), filled(310, 7)),
        "refused");
    key(kind, "SP, HTAB, CR and LF around a key text", " \t" + k + "\r\n", "valid");
    String[][] ws = {
      {"U+00A0", "\u00a0"},
      {"U+2007", "\u2007"},
      {"U+202F", "\u202f"},
      {"a BOM", "\ufeff"},
      {"U+001C", "\u001c"},
      {"U+001F", "\u001f"},
      {"VT", "\u000b"},
      {"FF", "\f"},
      {"NEL U+0085", "\u0085"},
      {"U+3000", "\u3000"},
    };
    for (String[] w : ws) {
      key(kind, w[0] + " before a key text", w[1] + k, "refused");
      key(kind, w[0] + " after a key text", k + w[1], "refused");
    }
    key(kind, "unknown scheme", k.replace("hmac-sha256", "hmac-sha512"), "refused");
    key(kind, "scheme name in upper case", k.replace("hmac-sha256", "HMAC-SHA256"), "refused");
    key(
        kind,
        "prefix in another case",
        k.replace("leasehold-verify-key", "Leasehold-verify-key"),
        "refused");
    key(
        kind,
        "signing key text where a verification key is expected",
        TokenVectorsGenerator.HMAC,
        "refused");
    key(
        kind,
        "key id of 65 characters",
        hmacText(VERIFY, "k".repeat(65), filled(32, 7)),
        "refused");
    key(kind, "key id with a dot", hmacText(VERIFY, "k.1", filled(32, 7)), "refused");
    key(kind, "padding on the key material", k + "=", "refused");
    key(kind, "a fourth colon-separated part", k + ":x", "refused");
    key(kind, "Ed25519 public key", g.edKey(), "valid");
    String point = edPoint();
    // Points a strict verifier refuses as public keys: small order, or not canonical.
    String[][] weakPoints = {
      {
        "Ed25519 public key of small order: identity",
        "0100000000000000000000000000000000000000000000000000000000000000"
      },
      {
        "Ed25519 public key of small order: order 2",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"
      },
      {
        "Ed25519 public key of small order: order 4, sign 0",
        "0000000000000000000000000000000000000000000000000000000000000000"
      },
      {
        "Ed25519 public key of small order: order 4, sign 1",
        "0000000000000000000000000000000000000000000000000000000000000080"
      },
      {
        "Ed25519 public key of small order: order 8 (a)",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"
      },
      {
        "Ed25519 public key of small order: order 8 (b)",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85"
      },
      {
        "Ed25519 public key of small order: order 8 (c)",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"
      },
      {
        "Ed25519 public key of small order: order 8 (d)",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa"
      },
      {
        "Ed25519 public key, identity with the sign bit set (x = 0)",
        "0100000000000000000000000000000000000000000000000000000000000080"
      },
      {
        "Ed25519 public key, y = p + 1",
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"
      },
      {
        "Ed25519 public key, y = p",
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"
      },
      {
        "Ed25519 public key, order 2 with the sign bit set (x = 0)",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
      },
      {
        "Ed25519 public key, not on the curve (y = 2)",
        "0200000000000000000000000000000000000000000000000000000000000000"
      },
    };
    for (String[] w : weakPoints) {
      key(kind, w[0], edText("weak", SPKI + w[1]), "refused");
    }
    String nullParams = "302c300706032b65700500032100" + point;
    key(kind, "Ed25519 SPKI with NULL parameters", edText("k", nullParams), "refused");
    key(
        kind,
        "Ed25519 SPKI with NULL parameters as an HMAC secret",
        VERIFY + "hmac-sha256:k:" + b64(HEX.parseHex(nullParams)),
        "refused");
    key(
        kind,
        "Ed25519 SPKI with BIT STRING unused bits 1",
        edText("k", "302a300506032b6570032101" + point),
        "refused");
    key(kind, "Ed25519 SPKI with a trailing byte", edText("k", SPKI + point + "00"), "refused");
    key(kind, "Ed25519 SPKI one byte short", edText("k", SPKI + point.substring(2)), "refused");
    key(
        kind,
        "Ed25519 public key as an HMAC secret",
        g.edKey().replace(":ed25519:", ":hmac-sha256:"),
        "refused");
    String edSigning = TokenVectorsGenerator.ED;
    String priv = edSigning.substring(edSigning.lastIndexOf(':') + 1, edSigning.lastIndexOf('.'));
    key(kind, "Ed25519 private key as an HMAC secret", VERIFY + "hmac-sha256:k:" + priv, "refused");
    key(kind, "HMAC secret as an Ed25519 key", k.replace(":hmac-sha256:", ":ed25519:"), "refused");
  }

  private void signingKeys() {
    String kind = "signingKey";
    String ed = TokenVectorsGenerator.ED;
    String other = TokenVectorsGenerator.ED_OTHER;
    String priv = ed.substring(ed.lastIndexOf(':') + 1, ed.lastIndexOf('.'));
    String pub = ed.substring(ed.lastIndexOf('.') + 1);
    String head = SIGNING + "ed25519:ed-2026-12:";
    key(kind, "HMAC signing key", TokenVectorsGenerator.HMAC, "valid");
    key(kind, "Ed25519 signing key", ed, "valid");
    key(
        kind,
        "Ed25519 signing key whose halves are two keys'",
        head + priv + other.substring(other.lastIndexOf('.')),
        "refused");
    key(
        kind,
        "Ed25519 signing key with a small-order public half",
        head
            + priv
            + "."
            + b64(
                HEX.parseHex(
                    SPKI + "0100000000000000000000000000000000000000000000000000000000000000")),
        "refused");
    byte[] privDer = Base64.getUrlDecoder().decode(priv);
    key(
        kind,
        "Ed25519 private key with a trailing byte",
        head + b64(Arrays.copyOf(privDer, 49)) + "." + pub,
        "refused");
    key(kind, "Ed25519 signing key without its public half", head + priv, "refused");
    key(
        kind,
        "Ed25519 signing key with three halves",
        head + priv + "." + pub + "." + pub,
        "refused");
    key(kind, "HMAC signing key of 31 bytes", hmacText(SIGNING, "k", filled(31, 9)), "refused");
    key(kind, "HMAC signing key of 257 bytes", hmacText(SIGNING, "k", filled(257, 9)), "refused");
    key(
        kind,
        "HMAC signing key whose secret is an Ed25519 private key",
        SIGNING + "hmac-sha256:k:" + priv,
        "refused");
    key(kind, "a BOM before a signing key", "\ufeff" + ed, "refused");
    key(kind, "a trailing LF after a signing key", ed + "\n", "valid");
  }

  private void keySet(String name, String text, String expect, List<String> ids) {
    ObjectNode c = g.cases.addObject();
    c.put("kind", "keySet");
    c.put("name", name);
    c.put("text", text);
    c.put("expect", expect);
    if (ids != null) {
      ArrayNode a = c.putArray("ids");
      ids.forEach(a::add);
    }
  }

  private void keySets() {
    String h = g.hmacKey();
    String e = g.edKey();
    keySet(
        "key set: two keys, comments, blank lines",
        "# keys\n\n" + h + "\n# the new one\n" + e + "\n",
        "valid",
        List.of("hmac-2026-12", "ed-2026-12"));
    keySet(
        "key set: CRLF line ends and indented lines",
        "\t" + h + "\r\n  " + e + " \r\n\r\n",
        "valid",
        List.of("hmac-2026-12", "ed-2026-12"));
    keySet("key set: empty text", "", "refused", null);
    keySet("key set: only comments and blank lines", "# none yet\n\n  \n", "refused", null);
    keySet("key set: a BOM before the first line", "\ufeff" + h + "\n", "refused", null);
    keySet("key set: a line indented with U+00A0", "\u00a0" + h + "\n", "refused", null);
    keySet("key set: a comment after a BOM", "\ufeff# keys\n" + h + "\n", "refused", null);
    keySet("key set: lines ending in CR only are one line", h + "\r" + e + "\r", "refused", null);
    keySet("key set: keys separated by U+2028 are one line", h + "\u2028" + e, "refused", null);
    keySet(
        "key set: two keys with one id",
        h + "\n" + hmacText(VERIFY, "hmac-2026-12", filled(32, 7)) + "\n",
        "refused",
        null);
    keySet(
        "key set: ids differing only in case are two keys",
        h + "\n" + hmacText(VERIFY, "HMAC-2026-12", filled(32, 7)) + "\n",
        "valid",
        List.of("hmac-2026-12", "HMAC-2026-12"));
    keySet("key set: one bad line among good ones", h + "\ngarbage\n" + e + "\n", "refused", null);
    StringBuilder many = new StringBuilder();
    List<String> ids = new ArrayList<>();
    for (int i = 1; i <= 65; i++) {
      if (i == 65) {
        keySet("key set: 64 keys", many.toString(), "valid", List.copyOf(ids));
      }
      many.append(hmacText(VERIFY, "k" + i, filled(32, i))).append('\n');
      ids.add("k" + i);
    }
    keySet("key set: 65 keys", many.toString(), "refused", null);
  }
}
