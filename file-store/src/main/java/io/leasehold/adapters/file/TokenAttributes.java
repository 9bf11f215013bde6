package io.leasehold.adapters.file;

import static io.leasehold.adapters.file.FencedFileStore.TOKEN_ATTRIBUTE;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The writer's unsigned token that the file store keeps in each data file's {@code
 * user.leasehold.token} extended attribute: written before the file is renamed into place, read to
 * say who wrote a file, and the evidence that a key wrote here when its marks are gone. Never
 * through a link.
 */
final class TokenAttributes {
  private TokenAttributes() {}

  static void write(Path file, FencingToken token) throws IOException {
    Files.getFileAttributeView(file, UserDefinedFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
        .write(TOKEN_ATTRIBUTE, StandardCharsets.US_ASCII.encode(token.unsigned().toText()));
  }

  /**
   * The token that wrote {@code file}, if it has one.
   *
   * @throws IllegalArgumentException if the attribute is not a token
   */
  static Optional<FencingToken> read(Path file) throws IOException {
    UserDefinedFileAttributeView view =
        Files.getFileAttributeView(
            file, UserDefinedFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    if (!view.list().contains(TOKEN_ATTRIBUTE)) {
      return Optional.empty();
    }
    // An attribute's value is at most 64 KiB on Linux: the size is bounded by the file system.
    ByteBuffer buf = ByteBuffer.allocate(view.size(TOKEN_ATTRIBUTE));
    view.read(TOKEN_ATTRIBUTE, buf);
    buf.flip();
    // unsigned(): a planted signed token is read as the run it names, never handed out as a
    // credential.
    return Optional.of(
        FencingToken.parse(StandardCharsets.US_ASCII.decode(buf).toString()).unsigned());
  }

  /** {@link #read}, with an unreadable attribute taken as none: for evidence that can only add. */
  static Optional<FencingToken> readQuietly(Path file) {
    try {
      return read(file);
    } catch (IOException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** Fails unless files in {@code tmp} can carry the attribute; the store cannot work without. */
  static void probe(Path root, Path tmp) throws IOException {
    Path probe = tmp.resolve("probe-" + UUID.randomUUID());
    Files.createFile(probe);
    try {
      UserDefinedFileAttributeView view =
          Files.getFileAttributeView(probe, UserDefinedFileAttributeView.class);
      if (view == null) {
        throw new IOException("the file system of " + root + " has no user extended attributes");
      }
      view.write(TOKEN_ATTRIBUTE, StandardCharsets.US_ASCII.encode("probe"));
    } catch (FileSystemException e) {
      throw new IOException(
          "the file system of " + root + " does not support user extended attributes: " + e, e);
    } finally {
      Files.deleteIfExists(probe);
    }
  }

  /**
   * For a root whose mark directories are gone: every key that wrote a file still under the root
   * had a mark, which is lost. Returns the highest token found for each such key, to be recorded as
   * lost, so the key is refused until an operator resets its mark rather than starting fresh and
   * admitting a stale run on a path it never wrote (CONTRACT C16). Keys with no file here were
   * never admitted, or only deleted; a new store's walk finds nothing. One walk of the root, not
   * into {@code meta} and without following links; the caller holds the store's lock.
   *
   * @throws IOException if a file's token attribute cannot be read (the message names the file and
   *     the repair)
   */
  static Collection<FencingToken> highestPerKey(Path root, Path meta) throws IOException {
    Map<LeaseKey, FencingToken> highest = new HashMap<>();
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
            return d.equals(meta) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            if (attrs.isRegularFile()) {
              Optional<FencingToken> writer;
              try {
                writer = read(file);
              } catch (IllegalArgumentException e) {
                throw new IOException(
                    "the store's marks are missing, and "
                        + file
                        + " carries a user."
                        + TOKEN_ATTRIBUTE
                        + " attribute that is not a token ("
                        + e.getMessage()
                        + "), so the store cannot"
                        + " tell which key wrote it. Restore the file, or remove the attribute if the store"
                        + " did not write it (setfattr -x user."
                        + TOKEN_ATTRIBUTE
                        + " <file>), and open the"
                        + " store again",
                    e);
              }
              writer.ifPresent(
                  t -> highest.merge(t.key(), t, (a, b) -> a.fence() >= b.fence() ? a : b));
            }
            return FileVisitResult.CONTINUE;
          }
        });
    return List.copyOf(highest.values());
  }
}
