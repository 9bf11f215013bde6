package io.leasehold.adapters.mark;

import io.leasehold.adapters.file.internal.DurableFiles;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * The marks of a {@link FileMarkStore}, each kept in two files, {@code <dir>/marks/<h>} and {@code
 * <dir>/marks-copy/<h>} ({@code h} the SHA-256 of the key), so that losing or lowering one never
 * lowers a mark (CONTRACT C16).
 *
 * <p>A mark is the higher of the two copies. That is safe after a crash (each copy is replaced by
 * an atomic rename, the primary first, so a crash between the two leaves the primary ahead) and
 * after tampering with one copy (deleted, or a lower value written into it: the other still holds
 * the mark). A copy that cannot be parsed is neither: the key fails closed until an operator resets
 * its mark, and so is anything that is not a small regular file (a named pipe would block the
 * reader forever, holding the owner's lock; a huge file would exhaust the heap). An operator's
 * reset to 0 writes a mark of 0 ({@link #forget}), never removes the files. Both copies missing
 * means the key has no mark, unless the caller's evidence says otherwise (see {@link
 * FileMarkStore}); a key whose marks were lost with both directories is recorded as lost (see
 * {@link #create}), which refuses like a damaged mark. The caller holds the owner's lock.
 *
 * @param primary the primary copies' directory
 * @param copy the second copies' directory
 * @param tmp where a mark file is written before it is renamed into place
 * @param repair how an operator resets a mark, named in every refusal
 */
record MarkFiles(Path primary, Path copy, Path tmp, String repair) {
  /** The primary copies' directory, inside the mark store's directory. */
  static final String PRIMARY = "marks";

  /** The second copies' directory. */
  static final String COPY = "marks-copy";

  /**
   * Largest mark file read: a fence, a space, a token's text and a newline fit with room to spare.
   */
  static final int MAX_MARK_BYTES = 4096;

  /** First word of a mark recorded as lost, instead of a fence. */
  private static final String LOST = "lost";

  /** First word of a mark an operator reset to 0: the key has a mark, and it is 0. */
  private static final String FORGOTTEN = "forgotten";

  /** A mark file's name: the hex SHA-256 of its key. */
  private static final java.util.regex.Pattern MARK_NAME =
      java.util.regex.Pattern.compile("[0-9a-f]{64}");

  /**
   * Creates both mark directories, holding {@code records} (a mark file's bytes by key): those of a
   * store's lost keys, or the marks of an older layout being upgraded. Each directory is filled
   * under a name of its own and renamed into place, the copy first: a crash before the renames
   * leaves both missing (the next open decides again), one between them leaves the copy, which
   * holds every record by itself.
   */
  void create(Map<LeaseKey, byte[]> records) throws IOException {
    Path newPrimary = fresh(primary);
    Path newCopy = fresh(copy);
    for (Map.Entry<LeaseKey, byte[]> r : records.entrySet()) {
      replace(newPrimary.resolve(name(r.getKey())), r.getValue());
      replace(newCopy.resolve(name(r.getKey())), r.getValue());
    }
    DurableFiles.forceDirectory(newPrimary);
    DurableFiles.forceDirectory(newCopy);
    Files.move(newCopy, copy, StandardCopyOption.ATOMIC_MOVE);
    DurableFiles.forceDirectory(copy.getParent());
    Files.move(newPrimary, primary, StandardCopyOption.ATOMIC_MOVE);
    DurableFiles.forceDirectory(primary.getParent());
  }

  /** An empty directory to fill for {@code dir}, after removing one a crashed creation left. */
  private Path fresh(Path dir) throws IOException {
    Path filling = dir.resolveSibling(dir.getFileName() + ".new");
    if (Files.exists(filling, LinkOption.NOFOLLOW_LINKS)) {
      DurableFiles.ownDirectory(filling); // refuses a link or a file planted under this name
      try (var s = Files.newDirectoryStream(filling)) {
        for (Path p : s) {
          if (!MARK_NAME.matcher(p.getFileName().toString()).matches()
              || !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(
                filling
                    + " holds "
                    + p.getFileName()
                    + ", which the store never writes there; move it"
                    + " aside and open the store again");
          }
          Files.delete(p);
        }
      }
      Files.delete(filling);
    }
    DurableFiles.ownDirectory(filling);
    return filling;
  }

  /** Copies the primary marks of a store made before the second copy existed. */
  void migrateFromSingleCopy() throws IOException {
    try (var s = Files.newDirectoryStream(primary)) {
      for (Path p : s) {
        Path c = copy.resolve(p.getFileName());
        if (!Files.exists(c, LinkOption.NOFOLLOW_LINKS)
            && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
          replace(c, Files.readAllBytes(p));
        }
      }
    }
    DurableFiles.forceDirectory(copy);
  }

  /**
   * The key's mark.
   *
   * @return the mark, empty if neither copy exists
   * @throws IOException if a copy is damaged (the message names the repair)
   */
  OptionalLong read(LeaseKey key) throws IOException {
    String name = name(key);
    OptionalLong a = readOne(primary.resolve(name), key);
    OptionalLong b = readOne(copy.resolve(name), key);
    if (a.isEmpty()) {
      return b;
    }
    if (b.isEmpty()) {
      return a;
    }
    return OptionalLong.of(Math.max(a.getAsLong(), b.getAsLong()));
  }

  /** Raises (or, for an operator's reset, sets) the key's mark in both copies, durably. */
  void write(FencingToken token) throws IOException {
    writeBoth(name(token.key()), markRecord(token));
  }

  /** A mark file's bytes: the fence and the token of the run that raised it. */
  static byte[] markRecord(FencingToken token) {
    return (token.fence() + " " + token.unsigned().toText() + "\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  /** Replaces both copies of a mark, the primary first (see the class comment), durably. */
  private void writeBoth(String name, byte[] bytes) throws IOException {
    replace(primary.resolve(name), bytes);
    DurableFiles.forceDirectory(primary);
    replace(copy.resolve(name), bytes);
    DurableFiles.forceDirectory(copy);
  }

  /**
   * What a lost key's mark holds instead of a fence: every operation of the key is refused, naming
   * the highest fence found in its files, until an operator resets the mark.
   */
  static byte[] lostRecord(FencingToken highestSeen) {
    return (LOST + " " + highestSeen.unsigned().toText() + "\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Sets the key's mark to 0 (an operator's reset to 0) in both copies, durably. The mark files
   * stay, holding {@code forgotten <account> <session>} (base64url): a key with data but no mark
   * file still reads as marks deleted behind the store's back (CONTRACT C16), while after this
   * reset the next run of any fence is admitted, also on files the key wrote before.
   */
  void forget(LeaseKey key) throws IOException {
    writeBoth(name(key), forgottenRecord(key));
  }

  /** A mark file's bytes for a mark of 0. */
  static byte[] forgottenRecord(LeaseKey key) {
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    return (FORGOTTEN
            + " "
            + b64.encodeToString(key.accountId().getBytes(StandardCharsets.UTF_8))
            + " "
            + b64.encodeToString(key.sessionId().getBytes(StandardCharsets.UTF_8))
            + "\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * The key a {@code forgotten} mark names.
   *
   * @throws IllegalArgumentException if the record is damaged
   */
  private static LeaseKey forgottenKey(String account, String session) {
    Base64.Decoder b64 = Base64.getUrlDecoder();
    return LeaseKey.of(
        new String(b64.decode(account), StandardCharsets.UTF_8),
        new String(b64.decode(session), StandardCharsets.UTF_8));
  }

  private void replace(Path target, byte[] bytes) throws IOException {
    Path temp = tmp.resolve(UUID.randomUUID() + ".mark");
    DurableFiles.writeNew(temp, bytes, DurableFiles.OWNER_READ_WRITE, f -> {});
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
  }

  private OptionalLong readOne(Path file, LeaseKey key) throws IOException {
    String text;
    try {
      text = readSmallRegularFile(file, key).strip();
    } catch (NoSuchFileException e) {
      return OptionalLong.empty();
    }
    // "<fence> <token of the run that raised it>", or "forgotten <account> <session>" after a
    // reset to 0: either names the key, guarding against a hash collision or a stray file.
    String[] parts = text.split(" ");
    if (parts.length == 2 && parts[0].equals(LOST)) {
      String seen;
      try {
        seen =
            "what is left (files, journal lines) shows fence "
                + FencingToken.parse(parts[1]).fence()
                + " of this key";
      } catch (IllegalArgumentException e) {
        seen = "the record of the highest fence seen is damaged too";
      }
      throw damaged(
          file,
          key,
          "both mark directories were lost and the key's mark with them; "
              + seen
              + ", and deleted files may have had higher",
          null);
    }
    try {
      if (parts.length == 3 && parts[0].equals(FORGOTTEN)) {
        if (!forgottenKey(parts[1], parts[2]).equals(key)) {
          throw new IllegalArgumentException("it names another key");
        }
        return OptionalLong.of(0);
      }
      if (parts.length != 2) {
        throw new IllegalArgumentException("expected '<fence> <token>'");
      }
      FencingToken writer = FencingToken.parse(parts[1]);
      long fence = Long.parseLong(parts[0]);
      if (!writer.key().equals(key) || fence != writer.fence()) {
        throw new IllegalArgumentException("it names another key or fence");
      }
      return OptionalLong.of(fence);
    } catch (IllegalArgumentException e) {
      throw damaged(file, key, e.getMessage(), e);
    }
  }

  /**
   * The file's text, if it is a regular file (never followed through a link) of at most {@value
   * #MAX_MARK_BYTES} bytes of ASCII. The type is checked before the file is opened: opening a named
   * pipe blocks until someone writes to it.
   *
   * @throws NoSuchFileException if it does not exist
   * @throws IOException if it is anything else (the message names the repair)
   */
  private String readSmallRegularFile(Path file, LeaseKey key) throws IOException {
    BasicFileAttributes attributes =
        Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (attributes.isSymbolicLink()) {
      throw damaged(file, key, "it is a symbolic link", null);
    }
    if (!attributes.isRegularFile()) {
      throw damaged(file, key, "it is not a regular file", null);
    }
    if (attributes.size() > MAX_MARK_BYTES) {
      throw damaged(
          file,
          key,
          "it holds " + attributes.size() + " bytes, more than a mark's " + MAX_MARK_BYTES,
          null);
    }
    ByteBuffer buf = ByteBuffer.allocate(MAX_MARK_BYTES + 1);
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      while (buf.hasRemaining() && ch.read(buf) >= 0) {
        // read until the end, or until the file proves longer than a mark
      }
    }
    if (!buf.hasRemaining()) {
      throw damaged(file, key, "it grew past " + MAX_MARK_BYTES + " bytes while it was read", null);
    }
    buf.flip();
    try {
      return StandardCharsets.US_ASCII
          .newDecoder()
          .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
          .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
          .decode(buf)
          .toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      throw damaged(file, key, "it is not ASCII", e);
    }
  }

  private IOException damaged(Path file, LeaseKey key, String why, Exception cause) {
    // Fail closed (CONTRACT C16): a mark that cannot be read is never taken for "no mark".
    return new IOException(
        "damaged high-water mark file "
            + file
            + " for "
            + key
            + " ("
            + why
            + "): every operation"
            + " of this key is refused until an operator sets the mark again with "
            + repair
            + ", to at"
            + " least the highest fence this"
            + " key ever wrote (the lease table's current fence for the key is a safe choice)",
        cause);
  }

  static String name(LeaseKey key) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256")
                  .digest(
                      (key.accountId() + '\u0000' + key.sessionId())
                          .getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
