package io.leasehold.fencing;

import io.leasehold.fencing.internal.Arguments;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The keys a resource accepts token signatures from, by key id. Several keys let keys rotate
 * without downtime: add the new key everywhere tokens are verified, then let the lease store sign
 * with it, then remove the old key once no live lease still carries a token it signed
 * (docs/security.md gives the procedure).
 *
 * <h2>Text form</h2>
 *
 * One {@link VerificationKey} text per line (lines end at LF; SP, HTAB and CR around a line are
 * ignored, no other white space); blank lines and lines starting with {@code #} are ignored. A text
 * without a key, or with a byte order mark, is refused. A resource reads it from a file it trusts
 * ({@link #parse(String)}).
 *
 * <p>Immutable and thread-safe.
 */
public final class TokenKeySet {
  /** Most keys a set may hold. */
  public static final int MAX_KEYS = 64;

  private final Map<String, VerificationKey> keys;

  private TokenKeySet(Map<String, VerificationKey> keys) {
    this.keys = Collections.unmodifiableMap(keys);
  }

  /**
   * A set of the given keys.
   *
   * @param keys the keys, with distinct ids
   * @return the set
   * @throws IllegalArgumentException if a key is null, two keys share an id, or there are none or
   *     more than {@value #MAX_KEYS}
   */
  public static TokenKeySet of(VerificationKey... keys) {
    Arguments.required(keys, "keys");
    return of(List.of(keys));
  }

  /**
   * A set of the given keys.
   *
   * @param keys the keys, with distinct ids
   * @return the set
   * @throws IllegalArgumentException if a key is null, two keys share an id, or there are none or
   *     more than {@value #MAX_KEYS}
   */
  public static TokenKeySet of(Collection<VerificationKey> keys) {
    if (keys == null || keys.isEmpty()) {
      throw new IllegalArgumentException("a key set needs at least one key");
    }
    if (keys.size() > MAX_KEYS) {
      throw new IllegalArgumentException("a key set holds at most " + MAX_KEYS + " keys");
    }
    Map<String, VerificationKey> map = new LinkedHashMap<>();
    for (VerificationKey k : keys) {
      if (k == null) {
        throw new IllegalArgumentException("keys must not contain null");
      }
      if (map.putIfAbsent(k.keyId(), k) != null) {
        throw new IllegalArgumentException("two keys have the id " + k.keyId());
      }
    }
    return new TokenKeySet(map);
  }

  /**
   * Parses the text form (see the class javadoc).
   *
   * @param text the lines
   * @return the set
   * @throws IllegalArgumentException if a line is not a verification key (the message names the
   *     line number, never the key material), or as {@link #of(Collection)}
   */
  public static TokenKeySet parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("key set text must not be null");
    }
    List<VerificationKey> keys = new ArrayList<>();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = KeyCodec.stripKeyText(lines[i]);
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      try {
        keys.add(VerificationKey.parse(line));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("key set line " + (i + 1) + ": " + e.getMessage());
      }
    }
    return of(keys);
  }

  /**
   * The text form: one key per line.
   *
   * @return the text
   */
  public String toText() {
    StringBuilder sb = new StringBuilder();
    for (VerificationKey k : keys.values()) {
      sb.append(k.toText()).append('\n');
    }
    return sb.toString();
  }

  /**
   * This set plus a key (rotation, step 1).
   *
   * @param key the new key
   * @return a new set
   * @throws IllegalArgumentException if a key with that id is in the set already
   */
  public TokenKeySet with(VerificationKey key) {
    Arguments.required(key, "key");
    List<VerificationKey> list = new ArrayList<>(keys.values());
    list.add(key);
    return of(list);
  }

  /**
   * This set without a key (rotation, last step: the key is retired).
   *
   * @param keyId the retired key's id
   * @return a new set
   * @throws IllegalArgumentException if no key has that id, or it is the last key
   */
  public TokenKeySet without(String keyId) {
    if (!keys.containsKey(keyId)) {
      throw new IllegalArgumentException("no key with id " + keyId + " in " + this);
    }
    List<VerificationKey> list = new ArrayList<>(keys.values());
    list.removeIf(k -> k.keyId().equals(keyId));
    return of(list);
  }

  /**
   * A key by id.
   *
   * @param keyId the id
   * @return the key, or empty
   */
  public Optional<VerificationKey> get(String keyId) {
    return Optional.ofNullable(keyId == null ? null : keys.get(keyId));
  }

  /**
   * The keys, in the order given.
   *
   * @return the keys
   */
  public List<VerificationKey> keys() {
    return List.copyOf(keys.values());
  }

  @Override
  public String toString() {
    return "TokenKeySet" + keys.keySet();
  }
}
