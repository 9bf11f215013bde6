package io.leasehold.adapters.file;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;

/**
 * The file store's high-water marks, each kept in two files, {@code .leasehold/marks/<h>} and
 * {@code .leasehold/marks-copy/<h>} ({@code h} the SHA-256 of the key), so that losing or
 * lowering one never lowers a mark (CONTRACT C16).
 *
 * <p>A mark is the higher of the two copies. That is safe after a crash (each copy is replaced
 * by an atomic rename, the primary first, so a crash between the two leaves the primary ahead)
 * and after tampering with one copy (deleted, or a lower value written into it: the other still
 * holds the mark). A copy that cannot be parsed is neither: the key fails closed until an
 * operator resets its mark. Both copies missing means the key never wrote, unless the caller's
 * evidence says otherwise (see {@link FencedFileStore}). The caller holds the store's lock.
 */
final class MarkFiles {
  private static final Set<OpenOption> CREATE_PRIVATE =
      Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);

  private final Path primary;
  private final Path copy;
  private final Path tmp;

  MarkFiles(Path primary, Path copy, Path tmp) {
    this.primary = primary;
    this.copy = copy;
    this.tmp = tmp;
  }

  /** Copies the primary marks of a store made before the second copy existed. */
  void migrateFromSingleCopy() throws IOException {
    try (var s = Files.newDirectoryStream(primary)) {
      for (Path p : s) {
        Path c = copy.resolve(p.getFileName());
        if (!Files.exists(c, LinkOption.NOFOLLOW_LINKS) && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
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
    byte[] bytes = (token.fence() + " " + token.unsigned().toText() + "\n").getBytes(StandardCharsets.US_ASCII);
    String name = name(token.key());
    replace(primary.resolve(name), bytes);
    DurableFiles.forceDirectory(primary);
    replace(copy.resolve(name), bytes);
    DurableFiles.forceDirectory(copy);
  }

  /** Removes the key's mark (an operator's reset to 0). */
  void delete(LeaseKey key) throws IOException {
    String name = name(key);
    Files.deleteIfExists(primary.resolve(name));
    Files.deleteIfExists(copy.resolve(name));
    DurableFiles.forceDirectory(primary);
    DurableFiles.forceDirectory(copy);
  }

  private void replace(Path target, byte[] bytes) throws IOException {
    Path temp = tmp.resolve(UUID.randomUUID() + ".mark");
    try (FileChannel ch =
        FileChannel.open(temp, CREATE_PRIVATE, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
      ByteBuffer buf = ByteBuffer.wrap(bytes);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(true);
    }
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
  }

  private static OptionalLong readOne(Path file, LeaseKey key) throws IOException {
    if (Files.isSymbolicLink(file)) {
      throw damaged(file, key, "it is a symbolic link", null);
    }
    String text;
    try {
      text = Files.readString(file, StandardCharsets.US_ASCII).strip();
    } catch (NoSuchFileException e) {
      return OptionalLong.empty();
    } catch (java.nio.charset.MalformedInputException e) {
      throw damaged(file, key, "it is not ASCII", e);
    }
    // "<fence> <token of the run that raised it>": the token names the key, guarding against a
    // hash collision or a stray file.
    String[] parts = text.split(" ");
    try {
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

  private static IOException damaged(Path file, LeaseKey key, String why, Exception cause) {
    // Fail closed (CONTRACT C16): a mark that cannot be read is never taken for "no mark".
    return new IOException(
        "damaged high-water mark file " + file + " for " + key + " (" + why + "): every operation"
            + " of this key is refused until an operator sets the mark again with"
            + " FencedFileStore.resetMark or ResetMarkCommand, to at least the highest fence this"
            + " key ever wrote (the lease table's current fence for the key is a safe choice)",
        cause);
  }

  static String name(LeaseKey key) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256")
                  .digest((key.accountId() + '\u0000' + key.sessionId()).getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
