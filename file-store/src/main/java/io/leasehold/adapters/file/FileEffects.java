package io.leasehold.adapters.file;

import io.leasehold.adapters.file.internal.DurableFiles;
import io.leasehold.adapters.mark.FileMarkStore;
import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FencingToken;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The {@link FencedFileStore}'s effects on its data files: a write and a delete, each admitted by
 * the key's mark and recorded in the audit log. The store runs them only under its lock, after the
 * pipeline has verified and scoped the token; this class only touches the disk.
 */
final class FileEffects {
  private final Path root;
  private final Path tmp;
  private final FileMarkStore marks;
  private final AuditLog auditLog;
  private final Set<PosixFilePermission> fileMode;

  FileEffects(
      Path root,
      Path tmp,
      FileMarkStore marks,
      AuditLog auditLog,
      Set<PosixFilePermission> fileMode) {
    this.root = root;
    this.tmp = tmp;
    this.marks = marks;
    this.auditLog = auditLog;
    this.fileMode = fileMode;
  }

  /**
   * Admits the token for the target, then replaces the target atomically: a temporary file with the
   * writer's token attribute, forced, renamed over the target through the directory handle.
   */
  FileOperation write(FencingToken token, String relative, byte[] content) throws IOException {
    try (TargetDirectory target = TargetDirectory.open(root, relative, true).orElseThrow();
        SecureDirectoryStream<Path> temps = TargetDirectory.secure(tmp)) {
      BasicFileAttributes before = target.target();
      if (before != null && !before.isRegularFile()) {
        throw new IllegalArgumentException(
            "path names "
                + (before.isDirectory() ? "a directory" : "something other than a regular file")
                + ": "
                + relative);
      }
      Admission admission =
          marks.admit(
              new FileMarkStore.Evidence(
                  before == null ? null : target.file(), target.file().getParent()),
              token);
      Path temp = Path.of(UUID.randomUUID() + ".tmp");
      Path tempFile = tmp.resolve(temp);
      try {
        DurableFiles.writeNew(
            tempFile, content, fileMode, file -> TokenAttributes.write(file, token));
        target.moveIn(temps, temp);
      } catch (IOException | RuntimeException e) {
        Files.deleteIfExists(tempFile);
        throw e;
      }
      target.force();
      FileOperation op =
          new FileOperation(FileOperation.Kind.WRITE, relative, admission, before != null);
      auditLog.append(op);
      return op;
    }
  }

  /**
   * Admits the token, then deletes the target if there is one; a missing target raises only a mark
   * the key already has (C21).
   */
  FileOperation delete(FencingToken token, String relative) throws IOException {
    Optional<TargetDirectory> dir = TargetDirectory.open(root, relative, false);
    try {
      BasicFileAttributes before = dir.isPresent() ? dir.get().target() : null;
      if (before != null && before.isSymbolicLink()) {
        throw new IllegalArgumentException("path names a symbolic link: " + relative);
      }
      if (before != null && !before.isRegularFile()) {
        throw new IllegalArgumentException("path does not name a regular file: " + relative);
      }
      Admission admission =
          before == null
              ? marks.admitIfMarked(token)
              : marks.admit(
                  new FileMarkStore.Evidence(dir.get().file(), dir.get().file().getParent()),
                  token);
      if (before != null) {
        dir.get().delete();
        dir.get().force();
      }
      FileOperation op =
          new FileOperation(FileOperation.Kind.DELETE, relative, admission, before != null);
      auditLog.append(op);
      return op;
    } finally {
      if (dir.isPresent()) {
        dir.get().close();
      }
    }
  }
}
