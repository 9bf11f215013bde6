package io.leasehold.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A small reference model of docs/token-spec.md 1.1, written from the spec and sharing no code with
 * either implementation: the differential test's third opinion. It decides signatures by
 * recomputing them with the signing keys the corpus generator used (HMAC and Ed25519 are both
 * deterministic), and Ed25519 points by Euler's criterion and the list of the eight small-order
 * encodings rather than by decompressing and multiplying.
 */
final class TokenSpecModel {
  private static final BigInteger P = BigInteger.TWO.pow(255).subtract(BigInteger.valueOf(19));
  private static final BigInteger D =
      BigInteger.valueOf(-121665).multiply(BigInteger.valueOf(121666).modInverse(P)).mod(P);
  private static final BigInteger MAX_LONG = BigInteger.valueOf(Long.MAX_VALUE);
  private static final Set<String> SMALL_ORDER =
      Set.of(
          "0100000000000000000000000000000000000000000000000000000000000000",
          "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
          "0000000000000000000000000000000000000000000000000000000000000000",
          "0000000000000000000000000000000000000000000000000000000000000080",
          "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
          "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
          "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
          "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa");
  private static final String SPKI = "302a300506032b6570032100";
  private static final String PKCS8 = "302e020100300506032b657004220420";
  private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  private static final Pattern DECIMAL = Pattern.compile("0|[1-9][0-9]*");
  private static final Pattern RUN_ID =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  private static final String ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

  /** Signing material the generator used, by verification key text. */
  private final Map<String, byte[]> hmacSecrets;

  private final Map<String, PrivateKey> edPrivate;

  /** Ed25519 private key material (base64url of the PKCS#8) to its own public half. */
  private final Map<String, String> publicOfPrivate;

  TokenSpecModel(
      Map<String, byte[]> hmacSecrets,
      Map<String, PrivateKey> edPrivate,
      Map<String, String> publicOfPrivate) {
    this.hmacSecrets = hmacSecrets;
    this.edPrivate = edPrivate;
    this.publicOfPrivate = publicOfPrivate;
  }

  String verdict(JsonNode c) {
    return switch (c.get("kind").asText()) {
      case "token" -> token(c, c.get("token").asText());
      case "header" -> header(c);
      case "input" -> "MALFORMED";
      case "skew" -> {
        long s = c.get("clockSkewMillis").asLong();
        yield s >= 0 && s <= 600_000 ? "valid" : "refused";
      }
      case "verificationKey" ->
          key(c.get("text").asText(), "leasehold-verify-key:v1:") != null ? "valid" : "refused";
      case "signingKey" -> signingKey(c.get("text").asText()) ? "valid" : "refused";
      case "keySet" -> keySet(c.get("text").asText());
      default -> "unknown kind";
    };
  }

  private String header(JsonNode c) {
    if (c.get("header").isNull()) {
      return "MISSING";
    }
    String h = c.get("header").asText();
    int a = 0;
    int b = h.length();
    while (a < b && (h.charAt(a) == ' ' || h.charAt(a) == '\t')) {
      a++;
    }
    while (b > a && (h.charAt(b - 1) == ' ' || h.charAt(b - 1) == '\t')) {
      b--;
    }
    return token(c, h.substring(a, b));
  }

  /** The verdict of section 5's steps on a text. */
  private String token(JsonNode c, String text) {
    if (text.length() > 1400) {
      return "MALFORMED";
    }
    String[] p = text.split("\\.", -1);
    if (!p[0].equals("lh2") || (p.length != 5 && p.length != 9)) {
      return "MALFORMED";
    }
    if (number(p[1]) == null
        || number(p[1]).signum() == 0
        || !RUN_ID.matcher(p[2]).matches()
        || !id(p[3])
        || !id(p[4])) {
      return "MALFORMED";
    }
    if (p.length == 5) {
      return "UNSIGNED";
    }
    BigInteger from = number(p[5]);
    BigInteger until = number(p[6]);
    if (from == null
        || until == null
        || until.compareTo(from) < 0
        || !KEY_ID.matcher(p[7]).matches()
        || p[8].length() > 128
        || base64url(p[8]) == null) {
      return "MALFORMED";
    }
    BigInteger now = BigInteger.valueOf(c.get("nowMillis").asLong());
    BigInteger skew = BigInteger.valueOf(c.get("verifier").get("clockSkewMillis").asLong());
    if (now.compareTo(until.add(skew)) > 0) {
      return "EXPIRED";
    }
    if (now.add(skew).compareTo(from) < 0) {
      return "NOT_YET_VALID";
    }
    String keyText = null;
    for (JsonNode k : c.get("verifier").get("keys")) {
      String[] parts = k.asText().split(":");
      if (parts[3].equals(p[7])) {
        keyText = k.asText();
      }
    }
    if (keyText == null) {
      return "UNKNOWN_KEY";
    }
    byte[] content = text.substring(0, text.lastIndexOf('.')).getBytes(StandardCharsets.US_ASCII);
    return Arrays.equals(base64url(p[8]), sign(keyText, content)) ? "valid" : "BAD_SIGNATURE";
  }

  private byte[] sign(String keyText, byte[] content) {
    try {
      if (hmacSecrets.containsKey(keyText)) {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(hmacSecrets.get(keyText), "HmacSHA256"));
        return mac.doFinal(content);
      }
      Signature s = Signature.getInstance("Ed25519");
      s.initSign(edPrivate.get(keyText));
      s.update(content);
      return s.sign();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static BigInteger number(String s) {
    if (!DECIMAL.matcher(s).matches()) {
      return null;
    }
    BigInteger n = new BigInteger(s);
    return n.compareTo(MAX_LONG) > 0 ? null : n;
  }

  /**
   * An account or session id: canonical base64url of strict UTF-8, 1 to 128 units, no control, not
   * blank.
   */
  private static boolean id(String part) {
    byte[] bytes = base64url(part);
    String s = bytes == null ? null : utf8(bytes);
    if (s == null || s.isEmpty() || s.length() > 128) {
      return false;
    }
    boolean blank = true;
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch <= 0x1f || (ch >= 0x7f && ch <= 0x9f)) {
        return false;
      }
      boolean space =
          ch == 0x20
              || ch == 0x1680
              || (ch >= 0x2000 && ch <= 0x2006)
              || (ch >= 0x2008 && ch <= 0x200a)
              || ch == 0x2028
              || ch == 0x2029
              || ch == 0x205f
              || ch == 0x3000;
      blank &= space;
    }
    return !blank;
  }

  /** Canonical unpadded base64url (RFC 4648 section 5), decoded by hand; null if not canonical. */
  static byte[] base64url(String s) {
    if (s.isEmpty() || s.length() % 4 == 1) {
      return null;
    }
    int bits = 0;
    int acc = 0;
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (int i = 0; i < s.length(); i++) {
      int v = ALPHABET.indexOf(s.charAt(i));
      if (v < 0) {
        return null;
      }
      acc = (acc << 6) | v;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out.write((acc >> bits) & 0xff);
      }
    }
    return (acc & ((1 << bits) - 1)) == 0 ? out.toByteArray() : null;
  }

  /** Strict UTF-8 (RFC 3629 table 3-7), decoded by hand; null if not well-formed. */
  static String utf8(byte[] b) {
    StringBuilder sb = new StringBuilder();
    int i = 0;
    while (i < b.length) {
      int c = b[i] & 0xff;
      int n;
      int min;
      int cp;
      if (c < 0x80) {
        n = 0;
        min = 0;
        cp = c;
      } else if (c >= 0xc2 && c <= 0xdf) {
        n = 1;
        min = 0x80;
        cp = c & 0x1f;
      } else if (c >= 0xe0 && c <= 0xef) {
        n = 2;
        min = 0x800;
        cp = c & 0x0f;
      } else if (c >= 0xf0 && c <= 0xf4) {
        n = 3;
        min = 0x10000;
        cp = c & 0x07;
      } else {
        return null;
      }
      if (i + n >= b.length) {
        return null;
      }
      for (int k = 1; k <= n; k++) {
        int cc = b[i + k] & 0xff;
        if ((cc & 0xc0) != 0x80) {
          return null;
        }
        cp = (cp << 6) | (cc & 0x3f);
      }
      if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
        return null;
      }
      sb.appendCodePoint(cp);
      i += n + 1;
    }
    return sb.toString();
  }

  /** The key id of a valid key text, or null: sections 3.1 to 3.4. */
  String key(String text, String prefix) {
    String t = strip(text);
    if (t.length() > 512 || !t.startsWith(prefix)) {
      return null;
    }
    String[] parts = t.substring(prefix.length()).split(":", -1);
    if (parts.length != 3 || !KEY_ID.matcher(parts[1]).matches()) {
      return null;
    }
    if (parts[0].equals("hmac-sha256")) {
      byte[] m = base64url(parts[2]);
      return m != null && m.length >= 32 && m.length <= 256 && !ed25519Like(m) ? parts[1] : null;
    }
    if (!parts[0].equals("ed25519")) {
      return null;
    }
    if (prefix.startsWith("leasehold-verify")) {
      return publicKey(parts[2]) ? parts[1] : null;
    }
    String[] halves = parts[2].split("\\.", -1);
    if (halves.length != 2 || !publicKey(halves[1])) {
      return null;
    }
    byte[] priv = base64url(halves[0]);
    if (priv == null || priv.length != 48 || !HexFormat.of().formatHex(priv).startsWith(PKCS8)) {
      return null;
    }
    return halves[1].equals(publicOfPrivate.get(halves[0])) ? parts[1] : null;
  }

  private boolean signingKey(String text) {
    return key(text, "leasehold-signing-key:v1:") != null;
  }

  private static String strip(String s) {
    int a = 0;
    int b = s.length();
    while (a < b && " \t\r\n".indexOf(s.charAt(a)) >= 0) {
      a++;
    }
    while (b > a && " \t\r\n".indexOf(s.charAt(b - 1)) >= 0) {
      b--;
    }
    return s.substring(a, b);
  }

  private static boolean ed25519Like(byte[] m) {
    String hex = HexFormat.of().formatHex(m);
    return hex.startsWith(SPKI)
        || hex.startsWith(PKCS8)
        || (hex.startsWith("30") && containsOid(m));
  }

  private static boolean containsOid(byte[] m) {
    byte[] oid = {0x06, 0x03, 0x2b, 0x65, 0x70};
    for (int i = 0; i + 5 <= m.length; i++) {
      if (Arrays.equals(m, i, i + 5, oid, 0, 5)) {
        return true;
      }
    }
    return false;
  }

  /** Section 3.3 for a public key's material text. */
  private static boolean publicKey(String material) {
    byte[] der = base64url(material);
    if (der == null || der.length != 44 || !HexFormat.of().formatHex(der).startsWith(SPKI)) {
      return false;
    }
    byte[] point = Arrays.copyOfRange(der, 12, 44);
    String hex = HexFormat.of().formatHex(point);
    boolean sign = (point[31] & 0x80) != 0;
    byte[] be = new byte[32];
    for (int i = 0; i < 32; i++) {
      be[i] = point[31 - i];
    }
    be[0] &= 0x7f;
    BigInteger y = new BigInteger(1, be);
    if (y.compareTo(P) >= 0) {
      return false;
    }
    BigInteger yy = y.multiply(y).mod(P);
    BigInteger xx =
        yy.subtract(BigInteger.ONE)
            .multiply(D.multiply(yy).add(BigInteger.ONE).modInverse(P))
            .mod(P);
    boolean onCurve =
        xx.signum() == 0
            || xx.modPow(P.subtract(BigInteger.ONE).shiftRight(1), P).equals(BigInteger.ONE);
    if (!onCurve || (xx.signum() == 0 && sign)) {
      return false;
    }
    return !SMALL_ORDER.contains(hex);
  }

  private String keySet(String text) {
    List<String> ids = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    String[] lines = text.split("\n", -1);
    for (String raw : lines) {
      String line = strip(raw);
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String id = key(line, "leasehold-verify-key:v1:");
      if (id == null || !seen.add(id)) {
        return "refused";
      }
      ids.add(id);
    }
    return ids.isEmpty() || ids.size() > 64 ? "refused" : "valid " + String.join(",", ids);
  }
}
