package io.leasehold.fencing.json;

import java.math.BigInteger;
import java.util.Arrays;

/**
 * Ed25519 signatures made malleable, for the token vectors here and the MCP module's generated
 * corpus: a verifier must refuse a signature whose scalar is not reduced (RFC 8032, section 5.1.7).
 */
public final class Ed25519Signatures {
  /** The order of the Ed25519 base point, L = 2^252 + 27742317777372353535851937790883648493. */
  private static final BigInteger L =
      BigInteger.TWO.pow(252).add(new BigInteger("27742317777372353535851937790883648493"));

  private Ed25519Signatures() {}

  /**
   * The same signature with L added to its scalar S: the same point on the curve, but S is no
   * longer below L, so a strict verifier refuses it.
   *
   * @param sig a 64-byte signature (R, then S little-endian)
   * @return the signature with S + L (truncated to 32 bytes)
   */
  public static byte[] withSPlusL(byte[] sig) {
    byte[] s = new byte[32];
    for (int i = 0; i < 32; i++) {
      s[i] = sig[63 - i];
    }
    byte[] sum = new BigInteger(1, s).add(L).toByteArray();
    byte[] out = sig.clone();
    Arrays.fill(out, 32, 64, (byte) 0);
    for (int i = 0; i < Math.min(32, sum.length); i++) {
      out[32 + i] = sum[sum.length - 1 - i];
    }
    return out;
  }
}
