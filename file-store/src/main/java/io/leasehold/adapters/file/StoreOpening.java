package io.leasehold.adapters.file;

import io.leasehold.adapters.mark.FileMarkStore;
import io.leasehold.fencing.FencingToken;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;

/**
 * What the file store does once, under its lock, when it opens a root: check for extended
 * attributes, create or recover the marks (failing closed when both mark directories are gone,
 * CONTRACT C16), and clear the temporary files of writers that crashed.
 */
final class StoreOpening {

  private StoreOpening() {}

  /** Runs under the store's lock; {@code meta} is the store's own directory, already checked. */
  static Void prepare(Path root, Path meta, FileMarkStore marks, Path tmp) throws IOException {
    // First: the walk below reads the attribute, and must not meet a file system without one.
    TokenAttributes.probe(root, tmp);
    // Under the lock, so that of two processes opening a new store only the first decides.
    if (!marks.exists()) {
      // A new store, or one whose marks were lost (a root restored without .leasehold).
      Collection<FencingToken> lost = TokenAttributes.highestPerKey(root, meta);
      marks.createLost(List.copyOf(lost), "the high-water marks under " + root);
    } else {
      marks.open();
    }
    removeLeftoverTemporaryFiles(tmp);
    return null;
  }

  /** The names of the store's own temporary files: nothing else in tmp is ever deleted. */
  private static final java.util.regex.Pattern OWN_TEMPORARY =
      java.util.regex.Pattern.compile(
          "(probe-)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\\.tmp|\\.mark)?");

  /**
   * Temporary files of writers that crashed; safe to remove because we hold the lock. Only the
   * store's own names, only regular files, never through a link (tmp itself was checked to be a
   * real directory).
   */
  private static void removeLeftoverTemporaryFiles(Path tmp) throws IOException {
    try (DirectoryStream<Path> s = Files.newDirectoryStream(tmp)) {
      for (Path p : s) {
        if (OWN_TEMPORARY.matcher(p.getFileName().toString()).matches()
            && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
