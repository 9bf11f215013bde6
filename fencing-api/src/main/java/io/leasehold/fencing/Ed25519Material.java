package io.leasehold.fencing;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;

/**
 * Ed25519 key material checked as docs/token-spec.md section 3.2 requires (issue 46, item 6): DER
 * exactly as RFC 8410 writes it, public keys that are canonical encodings (RFC 8032 5.1.3) of
 * points not of small order, and signatures whose {@code S} is below the group order and whose
 * {@code R} is a canonical encoding. The JDK's key factory accepts more (NULL parameters, trailing
 * bytes), and a small-order public key lets anyone forge, so these checks run before the JDK sees
 * the bytes.
 */
final class Ed25519Material {
  /** The DER of an Ed25519 SubjectPublicKeyInfo up to the 32 key bytes (RFC 8410 section 4). */
  static final byte[] SPKI_PREFIX = {
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00
  };

  /** The DER of an Ed25519 OneAsymmetricKey v1 up to the 32 seed bytes (RFC 8410 section 7). */
  static final byte[] PKCS8_PREFIX = {
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20
  };

  private static final BigInteger P = BigInteger.TWO.pow(255).subtract(BigInteger.valueOf(19));
  private static final BigInteger L =
      BigInteger.TWO.pow(252).add(new BigInteger("27742317777372353535851937790883648493"));
  private static final BigInteger D =
      BigInteger.valueOf(-121665).multiply(BigInteger.valueOf(121666).modInverse(P)).mod(P);
  private static final BigInteger SQRT_M1 =
      BigInteger.TWO.modPow(P.subtract(BigInteger.ONE).shiftRight(2), P);

  private Ed25519Material() {}

  /** Whether {@code bytes} starts with {@code prefix}: the scheme-pinning test of section 3. */
  static boolean startsWith(byte[] bytes, byte[] prefix) {
    return bytes.length >= prefix.length
        && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
  }

  /** The DER of the Ed25519 object identifier, 1.3.101.112. */
  private static final byte[] OID = {0x06, 0x03, 0x2b, 0x65, 0x70};

  /**
   * Whether HMAC material is, or resembles, an Ed25519 key in DER: it starts with either prefix, or
   * it is a DER SEQUENCE that holds the Ed25519 OID anywhere (a variant the key parsers refuse,
   * such as one with NULL parameters, is no secret either). A random secret matches with
   * probability below 2^-40.
   */
  static boolean looksLikeEd25519Der(byte[] material) {
    if (startsWith(material, SPKI_PREFIX) || startsWith(material, PKCS8_PREFIX)) {
      return true;
    }
    if (material.length == 0 || material[0] != 0x30) {
      return false;
    }
    for (int i = 0; i + OID.length <= material.length; i++) {
      if (Arrays.equals(material, i, i + OID.length, OID, 0, OID.length)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The public key, or an exception saying what is wrong with the material.
   *
   * @param der the SubjectPublicKeyInfo
   * @param context the start of the message ("malformed verification key k1")
   */
  static PublicKey publicKey(byte[] der, String context) {
    requireEncoding(
        der,
        SPKI_PREFIX,
        context,
        "public",
        "SubjectPublicKeyInfo of RFC 8410: no parameters, no trailing bytes");
    String why = pointProblem(Arrays.copyOfRange(der, SPKI_PREFIX.length, der.length));
    if (why != null) {
      throw new IllegalArgumentException(context + ": refused Ed25519 public key: " + why);
    }
    try {
      return KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(der));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(context + ": not an Ed25519 public key");
    }
  }

  /** The private key of a 48-byte PKCS#8 v1 encoding, or an exception. */
  static PrivateKey privateKey(byte[] der, String context) {
    requireEncoding(
        der,
        PKCS8_PREFIX,
        context,
        "private",
        "PKCS#8 v1 encoding of RFC 8410: no parameters, no attributes, no trailing bytes");
    try {
      return KeyFactory.getInstance("Ed25519").generatePrivate(new PKCS8EncodedKeySpec(der));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(context + ": not an Ed25519 private key");
    }
  }

  /**
   * Refuses DER that is not exactly {@code prefix} and the 32 key bytes: the one encoding RFC 8410
   * gives each kind of key, so nothing else in the material can change what the key means.
   *
   * @param kind "public" or "private"
   * @param encoding the name of the expected encoding, for the message
   */
  private static void requireEncoding(
      byte[] der, byte[] prefix, String context, String kind, String encoding) {
    int length = prefix.length + 32;
    if (der.length != length || !startsWith(der, prefix)) {
      throw new IllegalArgumentException(
          context
              + ": not an Ed25519 "
              + kind
              + " key (expected the "
              + length
              + "-byte "
              + encoding
              + ")");
    }
  }

  /**
   * Why a 32-byte public key encoding is refused, or null if it is a canonical encoding of a point
   * on the curve whose order is not small.
   */
  static String pointProblem(byte[] encoded) {
    boolean sign = (encoded[31] & 0x80) != 0;
    BigInteger y = littleEndian(encoded, 0, 32, true);
    if (y.compareTo(P) >= 0) {
      return "non-canonical encoding (y is not below 2^255-19)";
    }
    BigInteger yy = y.multiply(y).mod(P);
    BigInteger u = yy.subtract(BigInteger.ONE).mod(P);
    BigInteger v = D.multiply(yy).add(BigInteger.ONE).mod(P);
    BigInteger xx = u.multiply(v.modInverse(P)).mod(P);
    BigInteger x = xx.modPow(P.add(BigInteger.valueOf(3)).shiftRight(3), P);
    if (!x.multiply(x).mod(P).equals(xx)) {
      x = x.multiply(SQRT_M1).mod(P);
    }
    if (!x.multiply(x).mod(P).equals(xx)) {
      return "not a point on the curve";
    }
    if (x.signum() == 0 && sign) {
      return "non-canonical encoding (x is zero and its sign bit is set)";
    }
    if (x.testBit(0) != sign) {
      x = P.subtract(x);
    }
    BigInteger[] q = {x, y};
    for (int i = 0; i < 3; i++) {
      q = add(q, q);
    }
    if (q[0].signum() == 0 && q[1].equals(BigInteger.ONE)) {
      return "a point of small order (anyone could forge signatures under it)";
    }
    return null;
  }

  /**
   * Whether a 64-byte signature is in canonical form: {@code S < L} and {@code R} an encoding with
   * {@code y < p} and, where {@code x} is zero ({@code y = 1} or {@code y = p - 1}), no sign bit.
   * RFC 8032 5.1.7 requires both; the JDK and OpenSSL do check them, and this keeps the rule the
   * verifier's own, whatever the provider.
   */
  static boolean canonicalSignature(byte[] signature) {
    if (littleEndian(signature, 32, 64, false).compareTo(L) >= 0) {
      return false;
    }
    BigInteger y = littleEndian(signature, 0, 32, true);
    if (y.compareTo(P) >= 0) {
      return false;
    }
    boolean xIsZero = y.equals(BigInteger.ONE) || y.equals(P.subtract(BigInteger.ONE));
    return !(xIsZero && (signature[31] & 0x80) != 0);
  }

  /** Edwards addition on -x^2 + y^2 = 1 + d x^2 y^2 (complete: no exceptional cases). */
  private static BigInteger[] add(BigInteger[] a, BigInteger[] b) {
    BigInteger t = D.multiply(a[0]).multiply(b[0]).multiply(a[1]).multiply(b[1]).mod(P);
    BigInteger x =
        a[0].multiply(b[1])
            .add(a[1].multiply(b[0]))
            .multiply(BigInteger.ONE.add(t).modInverse(P))
            .mod(P);
    BigInteger y =
        a[1].multiply(b[1])
            .add(a[0].multiply(b[0]))
            .multiply(BigInteger.ONE.subtract(t).mod(P).modInverse(P))
            .mod(P);
    return new BigInteger[] {x, y};
  }

  private static BigInteger littleEndian(byte[] bytes, int from, int to, boolean clearTopBit) {
    byte[] big = new byte[to - from];
    for (int i = 0; i < big.length; i++) {
      big[i] = bytes[to - 1 - i];
    }
    if (clearTopBit) {
      big[0] &= 0x7f;
    }
    return new BigInteger(1, big);
  }
}
