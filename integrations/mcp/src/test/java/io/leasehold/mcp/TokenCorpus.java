package io.leasehold.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.fencing.json.Ed25519Signatures;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A seeded generator of mutated tokens, header values, non-text inputs, skews, keys and key sets in
 * the schema of docs/token-vectors.json (token spec 1.1 section 9). The same seed gives the same
 * corpus. Its keys are the vector file's public test keys and a few variants, so the {@link
 * TokenSpecModel} can recompute every signature.
 */
final class TokenCorpus {
  static final String HMAC_A =
      "leasehold-signing-key:v1:hmac-sha256:hmac-2026-12:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
  static final String HMAC_B =
      "leasehold-signing-key:v1:hmac-sha256:hmac-2026-12:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8";
  static final String HMAC_C =
      "leasehold-signing-key:v1:hmac-sha256:HMAC-2026-12:VVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVU";
  static final String ED_A =
      "leasehold-signing-key:v1:ed25519:ed-2026-12:MC4CAQAwBQYDK2VwBCIEIOealA7kf30iGsgNBgJQTR5yQ2zkpNAJ5uhsJEUeGbaU.MCowBQYDK2VwAyEA1-ktcwAlZriAqgDVXFoIriGT6g88KPHZ8Z1lBkFQ9fg";
  static final String ED_B =
      "leasehold-signing-key:v1:ed25519:ed-other:MC4CAQAwBQYDK2VwBCIEIN_JYt1UioiXFn9Dy5i5p4kF8j5zuq8McUnDO6pNZXpQ.MCowBQYDK2VwAyEAHTJyCp3H4JNblLth6JhXVvFiiO4LQHu3uzviN1eLgWw";
  static final String ED_C = ED_B.replace(":ed-other:", ":ed-2026-12:");
  static final List<String> SIGNERS = List.of(HMAC_A, HMAC_B, HMAC_C, ED_A, ED_B, ED_C);

  private static final long MAX_SAFE = (1L << 53) - 1;
  private static final long BASE = 1_796_300_000_000L;
  private static final HexFormat HEX = HexFormat.of();
  private static final String SPKI = "302a300506032b6570032100";
  private static final List<String> POINTS =
      List.of(
          "0100000000000000000000000000000000000000000000000000000000000000",
          "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
          "0000000000000000000000000000000000000000000000000000000000000000",
          "0000000000000000000000000000000000000000000000000000000000000080",
          "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
          "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
          "0100000000000000000000000000000000000000000000000000000000000080",
          "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
          "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
          "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
          "0200000000000000000000000000000000000000000000000000000000000000",
          "d7e92d73002566b880aa00d55c5a08ae2193ea0f3c28f1d9f19d65064150f5f8");
  private static final String[] CHARS = {
    ".", " ", "\t", "\n", "\r", "A", "a", "=", "+", "/", "-", "_", "0", "9", "\u00e9", "\u00a0",
    "\u2028", "\ufeff", "\u0085", "\u000b", "Z", "\uff12", "\f", "\u3000", ":", "#", "\u001c",
    "\u2007"
  };
  private static final String[] SPACES = {
    "", " ", "\t", " \t ", "\n", "\r\n", "\r", "\u000b", "\f", "\u00a0", "\u2007", "\u202f",
    "\u2028", "\u3000", "\ufeff", "\u0085", "\u001c", "\u001f"
  };
  private static final String[] ID_CHARS = {
    "\u00a0", "\u2007", "\u202f", "\u3000", "\u2028", "\u1680", "\u205f", "\ufeff", "\uffff",
    "\u0085", "\u009f", "\u007f", "\u0001", " ", "\t", "\u180e", "\u200b", "\u2000", "\u2006",
    "\u2008", "\u200a", "\u2029", "x"
  };
  private static final String[] UTF8 = {
    "c0af",
    "e080af",
    "eda080",
    "f4908080",
    "e282",
    "80",
    "f888808080",
    "ff",
    "efbbbf61",
    "c2a0",
    "e28080",
    "f09f9880",
    "edbfbf",
    "f48fbfbf",
    "00",
    "c285",
    "c29f",
    "e3808061"
  };

  private final SplittableRandom r;
  private final ObjectMapper json = new ObjectMapper();
  private final ArrayNode cases = JsonNodeFactory.instance.arrayNode();

  TokenCorpus(long seed) {
    this.r = new SplittableRandom(seed);
  }

  /** The corpus document: {@code signingKeys} and {@code cases}. */
  ObjectNode generate(int size) {
    for (int i = 0; i < size; i++) {
      int k = r.nextInt(100);
      ObjectNode c =
          k < 45
              ? tokenCase()
              : k < 55
                  ? headerCase()
                  : k < 58
                      ? inputCase()
                      : k < 60
                          ? skewCase()
                          : k < 80
                              ? keyCase("verificationKey")
                              : k < 88 ? keyCase("signingKey") : keySetCase();
      c.put("name", "#" + i + " " + c.get("kind").asText());
      cases.add(c);
    }
    ObjectNode root = json.createObjectNode();
    root.putObject("signingKeys").put("hmac", HMAC_A);
    root.set("cases", cases);
    return root;
  }

  private <T> T pick(List<T> list) {
    return list.get(r.nextInt(list.size()));
  }

  private String pick(String[] a) {
    return a[r.nextInt(a.length)];
  }

  static String b64(byte[] b) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  private byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) r.nextInt(256);
    }
    return b;
  }

  static String verifyText(String signing) {
    String material = signing.substring(signing.lastIndexOf(':') + 1);
    String pub = material.contains(".") ? material.substring(material.indexOf('.') + 1) : material;
    return signing.substring(0, signing.lastIndexOf(':') + 1).replace("signing", "verify") + pub;
  }

  /** The signature of {@code content} under a signer's text. */
  static byte[] sign(String signer, byte[] content) {
    String material = signer.substring(signer.lastIndexOf(':') + 1);
    try {
      if (signer.contains(":hmac-sha256:")) {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(Base64.getUrlDecoder().decode(material), "HmacSHA256"));
        return mac.doFinal(content);
      }
      Signature s = Signature.getInstance("Ed25519");
      s.initSign(privateKey(signer));
      s.update(content);
      return s.sign();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  static PrivateKey privateKey(String signer) throws GeneralSecurityException {
    String material = signer.substring(signer.lastIndexOf(':') + 1);
    byte[] der = Base64.getUrlDecoder().decode(material.substring(0, material.indexOf('.')));
    return KeyFactory.getInstance("Ed25519").generatePrivate(new PKCS8EncodedKeySpec(der));
  }

  // ---- tokens ----

  private byte[] idBytes() {
    return switch (r.nextInt(12)) {
      case 0, 1, 2 -> word().getBytes(StandardCharsets.UTF_8);
      case 3 -> "a".repeat(127 + r.nextInt(3)).getBytes(StandardCharsets.UTF_8);
      case 4 -> "\uD83D\uDE00".repeat(63 + r.nextInt(3)).getBytes(StandardCharsets.UTF_8);
      case 5 -> ("a".repeat(127) + "\uD83D\uDE00").getBytes(StandardCharsets.UTF_8);
      case 6 -> pick(ID_CHARS).getBytes(StandardCharsets.UTF_8);
      case 7 ->
          (pick(ID_CHARS) + pick(ID_CHARS) + (r.nextBoolean() ? "" : pick(ID_CHARS)))
              .getBytes(StandardCharsets.UTF_8);
      case 8 -> HEX.parseHex(pick(UTF8));
      case 9 -> randomBytes(1 + r.nextInt(8));
      case 10 -> "\u20ac".repeat(120 + r.nextInt(10)).getBytes(StandardCharsets.UTF_8);
      default -> "Zo\u00eb s\u00e9ance.1".getBytes(StandardCharsets.UTF_8);
    };
  }

  private String word() {
    String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-";
    StringBuilder sb = new StringBuilder();
    for (int i = 1 + r.nextInt(12); i > 0; i--) {
      sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
    }
    return sb.toString();
  }

  private String fence() {
    return switch (r.nextInt(14)) {
      case 0 -> "1";
      case 1 -> Long.toString(Long.MAX_VALUE);
      case 2 -> "9223372036854775808";
      case 3 -> "0";
      case 4 -> "042";
      case 5 -> "-1";
      case 6 -> "9007199254740993";
      default -> Long.toString(1 + r.nextLong(1L << (1 + r.nextInt(62))));
    };
  }

  private String uuid() {
    String hex = HEX.formatHex(randomBytes(16));
    return hex.substring(0, 8)
        + "-"
        + hex.substring(8, 12)
        + "-"
        + hex.substring(12, 16)
        + "-"
        + hex.substring(16, 20)
        + "-"
        + hex.substring(20);
  }

  private record Window(long from, long until) {}

  private Window window() {
    long from =
        switch (r.nextInt(4)) {
          case 0 -> 0;
          case 1 -> r.nextLong(MAX_SAFE);
          default -> BASE;
        };
    long until =
        switch (r.nextInt(8)) {
          case 0 -> from;
          case 1 -> Long.MAX_VALUE;
          case 2 -> Math.max(0, from - 1);
          case 3 -> from + r.nextLong(1_000_000_000L);
          default -> from + 30_000;
        };
    if (r.nextInt(30) == 0) {
      from = Long.MAX_VALUE;
      until = Long.MAX_VALUE;
    }
    return new Window(from, until);
  }

  /** A freshly signed (or unsigned) token text and its window. */
  private String freshToken(String signer, Window w) {
    String text =
        "lh2."
            + (r.nextInt(5) == 0 ? fence() : Long.toString(1 + r.nextInt(1000)))
            + "."
            + uuid()
            + "."
            + b64(r.nextInt(3) == 0 ? idBytes() : word().getBytes(StandardCharsets.UTF_8))
            + "."
            + b64(r.nextInt(3) == 0 ? idBytes() : word().getBytes(StandardCharsets.UTF_8));
    if (signer == null) {
      return text;
    }
    String keyId = signer.split(":")[3];
    if (r.nextInt(15) == 0) {
      keyId =
          pick(
              List.of(
                  keyId.toUpperCase(java.util.Locale.ROOT), "k".repeat(65), "k.1", "other", ""));
    }
    String content = text + "." + w.from + "." + w.until + "." + keyId;
    return content + "." + b64(sign(signer, content.getBytes(StandardCharsets.UTF_8)));
  }

  private String mutate(String text, String signer) {
    String t = text;
    for (int n = r.nextInt(4) == 0 ? 2 : 1; n > 0; n--) {
      t = mutateOnce(t);
    }
    if (signer != null && r.nextInt(4) == 0) {
      String[] p = t.split("\\.", -1);
      if (p.length == 9) {
        String content = t.substring(0, t.lastIndexOf('.'));
        t = content + "." + b64(sign(signer, content.getBytes(StandardCharsets.UTF_8)));
      }
    }
    return t;
  }

  private String mutateOnce(String t) {
    int at = t.isEmpty() ? 0 : r.nextInt(t.length());
    String[] p = t.split("\\.", -1);
    switch (r.nextInt(9)) {
      case 0:
        return t.isEmpty() ? t : t.substring(0, at) + pick(CHARS) + t.substring(at + 1);
      case 1:
        return t.substring(0, at) + pick(CHARS) + t.substring(at);
      case 2:
        return t.isEmpty() ? t : t.substring(0, at) + t.substring(at + 1);
      case 3:
        p[r.nextInt(p.length)] =
            pick(
                List.of(
                    "",
                    "0",
                    "A",
                    "AA",
                    "AAA",
                    "AAAAA",
                    "=",
                    "lh1",
                    "lh3",
                    "LH2",
                    b64(randomBytes(1 + r.nextInt(9))),
                    fence(),
                    uuid().toUpperCase(java.util.Locale.ROOT)));
        return String.join(".", p);
      case 4:
        return r.nextBoolean() ? t + ".x" : t.substring(0, Math.max(0, t.lastIndexOf('.')));
      case 5:
        return pick(SPACES) + t + pick(SPACES);
      default:
        if (p.length != 9) {
          return t + pick(CHARS);
        }
        p[8] = mutateSignature(p[8]);
        return String.join(".", p);
    }
  }

  private String mutateSignature(String sig) {
    if (sig.isEmpty()) {
      return "A";
    }
    byte[] bytes = TokenSpecModel.base64url(sig);
    switch (r.nextInt(8)) {
      case 0:
        int i = r.nextInt(sig.length());
        return sig.substring(0, i) + (sig.charAt(i) == 'A' ? 'B' : 'A') + sig.substring(i + 1);
      case 1:
        return sig.substring(0, 1 + r.nextInt(sig.length()));
      case 2:
        return pick(
            List.of(b64(randomBytes(96)), b64(randomBytes(99)), "A".repeat(128 + r.nextInt(6))));
      case 3:
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        char last = sig.charAt(sig.length() - 1);
        int v = alphabet.indexOf(last);
        return v < 0 ? sig : sig.substring(0, sig.length() - 1) + alphabet.charAt(v ^ 1);
      case 4:
        byte[] identity = new byte[64];
        identity[0] = 1;
        return b64(identity);
      case 5:
        if (bytes != null && bytes.length == 64) {
          return b64(Ed25519Signatures.withSPlusL(bytes));
        }
        return sig + "A";
      case 6:
        if (bytes != null && bytes.length == 64) {
          byte[] b = bytes.clone();
          System.arraycopy(HEX.parseHex(POINTS.get(7)), 0, b, 0, 32);
          return b64(b);
        }
        return sig;
      default:
        return b64(randomBytes(r.nextBoolean() ? 32 : 64));
    }
  }

  /** A verifier that usually holds the signer's own key (null: any keys). */
  private void verifier(ObjectNode c, Window w, String signer) {
    List<String> keys = new ArrayList<>();
    if (signer != null && r.nextInt(10) < 7) {
      keys.add(verifyText(signer));
    }
    while (keys.isEmpty()) {
      if (r.nextBoolean()) {
        keys.add(verifyText(r.nextBoolean() ? HMAC_A : HMAC_B));
      }
      if (r.nextInt(3) == 0) {
        keys.add(verifyText(HMAC_C));
      }
      if (r.nextBoolean()) {
        keys.add(verifyText(r.nextInt(4) == 0 ? ED_C : ED_A));
      }
      if (r.nextInt(3) == 0) {
        keys.add(verifyText(ED_B));
      }
    }
    // One key per id: drop later keys whose id is taken.
    java.util.Set<String> ids = new java.util.HashSet<>();
    keys.removeIf(k -> !ids.add(k.split(":")[3]));
    long skew = pick(List.of(0L, 1L, 5_000L, 600_000L, r.nextLong(600_001)));
    ObjectNode v = c.putObject("verifier");
    ArrayNode ks = v.putArray("keys");
    keys.forEach(ks::add);
    v.put("clockSkewMillis", skew);
    long now =
        switch (r.nextInt(10)) {
          case 0 -> w.from - skew - 1;
          case 1 -> w.from - skew;
          case 2 -> w.from;
          case 3 -> w.until;
          case 4 -> w.until > MAX_SAFE ? MAX_SAFE : w.until + skew;
          case 5 -> w.until > MAX_SAFE ? MAX_SAFE : w.until + skew + 1;
          case 6 -> r.nextLong(MAX_SAFE);
          case 7 -> MAX_SAFE;
          default ->
              w.from
                  + (w.until > w.from ? r.nextLong(Math.min(w.until - w.from, MAX_SAFE) + 1) : 0);
        };
    c.put("nowMillis", Math.max(0, Math.min(MAX_SAFE, now)));
  }

  private ObjectNode tokenCase() {
    ObjectNode c = json.createObjectNode();
    c.put("kind", "token");
    Window w = window();
    String signer = r.nextInt(10) == 0 ? null : pick(SIGNERS);
    String text = freshToken(signer, w);
    c.put("token", r.nextInt(5) < 2 ? text : mutate(text, signer));
    verifier(c, w, signer);
    return c;
  }

  private ObjectNode headerCase() {
    ObjectNode c = json.createObjectNode();
    c.put("kind", "header");
    Window w = window();
    String signer = pick(SIGNERS);
    String text = freshToken(signer, w);
    int k = r.nextInt(20);
    if (k == 0) {
      c.putNull("header");
    } else if (k == 1) {
      c.put("header", pick(List.of("", " ", "\t", " \t")));
    } else {
      c.put("header", space() + (k < 5 ? mutate(text, signer) : text) + space());
    }
    verifier(c, w, signer);
    return c;
  }

  /** White space for a header: mostly HTTP's optional white space, sometimes anything. */
  private String space() {
    return r.nextInt(10) < 6 ? pick(List.of("", "", " ", "\t", " \t")) : pick(SPACES);
  }

  private ObjectNode inputCase() {
    ObjectNode c = json.createObjectNode();
    c.put("kind", "input");
    Window w = window();
    String text = freshToken(pick(SIGNERS), w);
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode shaped = f.objectNode();
    shaped.putObject("key").put("accountId", word()).put("sessionId", word());
    shaped.put("fence", "42").put("runId", uuid());
    shaped
        .putObject("signature")
        .put("validFrom", Long.toString(w.from))
        .put("validUntil", Long.toString(w.until))
        .put("keyId", "hmac-2026-12")
        .put("value", text.substring(text.lastIndexOf('.') + 1));
    String signer = pick(SIGNERS);
    c.set(
        "input",
        switch (r.nextInt(7)) {
          case 0 -> f.nullNode();
          case 1 -> f.numberNode(r.nextLong());
          case 2 -> f.booleanNode(r.nextBoolean());
          case 3 -> f.arrayNode().add(text);
          case 4 -> f.objectNode();
          case 5 -> f.objectNode().put("token", text);
          default -> shaped;
        });
    verifier(c, w, signer);
    return c;
  }

  private ObjectNode skewCase() {
    ObjectNode c = json.createObjectNode();
    c.put("kind", "skew");
    c.put(
        "clockSkewMillis",
        pick(
            List.of(
                -1L,
                0L,
                1L,
                5_000L,
                599_999L,
                600_000L,
                600_001L,
                (long) r.nextInt(-1000, 700_000))));
    return c;
  }

  // ---- keys ----

  private String verificationKeyText() {
    String prefix = "leasehold-verify-key:v1:";
    String point = pick(POINTS);
    return switch (r.nextInt(10)) {
      case 0, 1 -> verifyText(pick(SIGNERS));
      case 2 ->
          prefix
              + "hmac-sha256:k"
              + r.nextInt(3)
              + ":"
              + b64(randomBytes(pick(List.of(1, 16, 31, 32, 33, 64, 255, 256, 257, 300, 400))));
      case 3, 4 -> prefix + "ed25519:p:" + b64(HEX.parseHex(SPKI + point));
      case 5 -> prefix + "ed25519:p:" + b64(HEX.parseHex(SPKI + HEX.formatHex(randomBytes(32))));
      case 6 ->
          prefix
              + pick(List.of("ed25519", "hmac-sha256"))
              + ":d:"
              + b64(
                  HEX.parseHex(
                      pick(
                          List.of(
                              "302c300706032b65700500032100" + point,
                              "302a300506032b6570032101" + point,
                              SPKI + point + "00",
                              SPKI + point.substring(2),
                              "302e020100300506032b657004220420" + point))));
      case 7 -> prefix + "hmac-sha256:e:" + material(verifyText(pick(List.of(ED_A, ED_B))));
      case 8 -> prefix + "ed25519:h:" + b64(randomBytes(32 + r.nextInt(20)));
      default -> prefix + "hmac-sha256:k:" + b64(randomBytes(32));
    };
  }

  private static String material(String keyText) {
    return keyText.substring(keyText.lastIndexOf(':') + 1);
  }

  private String signingKeyText() {
    String a = ED_A.substring(ED_A.lastIndexOf(':') + 1);
    String b = ED_B.substring(ED_B.lastIndexOf(':') + 1);
    String privA = a.substring(0, a.indexOf('.'));
    String pubA = a.substring(a.indexOf('.') + 1);
    String pubB = b.substring(b.indexOf('.') + 1);
    String head = "leasehold-signing-key:v1:ed25519:s:";
    byte[] privDer = Base64.getUrlDecoder().decode(privA);
    return switch (r.nextInt(9)) {
      case 0, 1 -> pick(SIGNERS);
      case 2 -> head + privA + "." + pubB;
      case 3 -> head + privA + "." + b64(HEX.parseHex(SPKI + pick(POINTS)));
      case 4 -> head + b64(Arrays.copyOf(privDer, pick(List.of(47, 49, 50)))) + "." + pubA;
      case 5 ->
          head + pick(List.of(privA, privA + "." + pubA + "." + pubA, "." + pubA, privA + "."));
      case 6 ->
          "leasehold-signing-key:v1:hmac-sha256:s:"
              + b64(randomBytes(pick(List.of(31, 32, 256, 257))));
      case 7 -> "leasehold-signing-key:v1:hmac-sha256:s:" + privA;
      default -> {
        byte[] flipped = privDer.clone();
        flipped[16 + r.nextInt(32)] ^= 1;
        yield head + b64(flipped) + "." + pubA;
      }
    };
  }

  private String mutateKey(String text) {
    if (r.nextInt(3) == 0) {
      return text;
    }
    String t = text;
    switch (r.nextInt(8)) {
      case 0, 1:
        return pick(SPACES) + t + pick(SPACES);
      case 2:
        int at = r.nextInt(Math.min(40, t.length()));
        return t.substring(0, at) + Character.toUpperCase(t.charAt(at)) + t.substring(at + 1);
      case 3:
        String[] p = t.split(":", -1);
        p[3] = pick(List.of("k".repeat(65), "k.1", "K", "", "\u00fc", "k" + r.nextInt(9)));
        return String.join(":", p);
      case 4:
        return t + pick(List.of("=", ":x", "A", "AA"));
      case 5:
        return t.contains(":ed25519:")
            ? t.replace(":ed25519:", ":hmac-sha256:")
            : t.replace(":hmac-sha256:", ":ed25519:");
      case 6:
        int i = r.nextInt(t.length());
        return t.substring(0, i) + pick(CHARS) + t.substring(i + 1);
      default:
        return t + "A".repeat(400 + r.nextInt(200));
    }
  }

  private ObjectNode keyCase(String kind) {
    ObjectNode c = json.createObjectNode();
    c.put("kind", kind);
    c.put("text", mutateKey(kind.equals("signingKey") ? signingKeyText() : verificationKeyText()));
    return c;
  }

  private ObjectNode keySetCase() {
    ObjectNode c = json.createObjectNode();
    c.put("kind", "keySet");
    List<String> lines = new ArrayList<>();
    if (r.nextInt(30) == 0) {
      int n = 62 + r.nextInt(5);
      for (int i = 1; i <= n; i++) {
        lines.add("leasehold-verify-key:v1:hmac-sha256:k" + i + ":" + b64(randomBytes(32)));
      }
    } else {
      for (int n = r.nextInt(6); n > 0; n--) {
        lines.add(
            switch (r.nextInt(8)) {
              case 0, 1, 2 -> verifyText(pick(SIGNERS));
              case 3 -> mutateKey(verificationKeyText());
              case 4 -> "# " + word();
              case 5 -> pick(List.of("", "   ", "\t", "\u00a0"));
              default -> pick(SPACES) + verifyText(pick(SIGNERS)) + pick(SPACES);
            });
      }
    }
    String sep = pick(List.of("\n", "\n", "\r\n", "\r"));
    String text =
        (r.nextInt(20) == 0 ? "\ufeff" : "")
            + String.join(sep, lines)
            + (r.nextBoolean() ? sep : "");
    c.put("text", text);
    return c;
  }

  /** The model's knowledge of the generator's keys: signing material by verification key text. */
  static TokenSpecModel model() {
    Map<String, byte[]> hmac = new LinkedHashMap<>();
    Map<String, PrivateKey> ed = new LinkedHashMap<>();
    Map<String, String> publicOfPrivate = new LinkedHashMap<>();
    try {
      for (String s : SIGNERS) {
        String material = s.substring(s.lastIndexOf(':') + 1);
        if (s.contains(":hmac-sha256:")) {
          hmac.put(verifyText(s), Base64.getUrlDecoder().decode(material));
        } else {
          ed.put(verifyText(s), privateKey(s));
          publicOfPrivate.put(
              material.substring(0, material.indexOf('.')),
              material.substring(material.indexOf('.') + 1));
        }
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
    return new TokenSpecModel(hmac, ed, publicOfPrivate);
  }
}
