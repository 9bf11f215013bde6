package io.leasehold.adapters.file;

import io.leasehold.adapters.CrossProcessLock;
import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.adapters.StateFiles;
import io.leasehold.fencing.AdminDeniedException;
import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.Admission;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.GuardListener;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerifier;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * Files under a root directory, written, replaced and deleted only by the newest run of each
 * session (CONTRACT C9-C11).
 *
 * <pre>{@code
 * FencedFileStore files = FencedFileStore.open(Path.of("/srv/agent-files"), TokenVerifier.signedBy(keys));
 * files.write(lease, "chat-1/answer.md", bytes); // StaleFenceException if a newer run wrote
 * }</pre>
 *
 * <p>Every token is verified by the store's {@link TokenVerifier} before the mark is read
 * (CONTRACT C15); a token that fails changes nothing.
 *
 * <h2>How a write is made</h2>
 *
 * Every operation runs under one lock that holds across threads and processes (a JVM lock plus
 * an OS file lock on {@code .leasehold/lock}). Under it the store reads the key's high-water mark
 * (kept twice, in {@code .leasehold/marks/} and {@code .leasehold/marks-copy/}; the higher copy
 * counts, so deleting or lowering one copy never lowers a mark), refuses a lower fence, raises the mark durably if the fence is
 * higher (before touching the data, so the mark never lags an acknowledged write), then writes the
 * content to a temporary file, records the writer's token in the file's {@code
 * user.leasehold.token} extended attribute, forces it to disk, renames it over the target
 * atomically and forces the directory. A crash at any point leaves the old content or the new,
 * never a torn file. Files keep their plain content: other tools read them as usual.
 *
 * <h2>Paths</h2>
 *
 * Paths are relative, {@code /}-separated, without {@code .} or {@code ..} segments, and not
 * under {@code .leasehold}, each name at most {@value #MAX_SEGMENT_BYTES} UTF-8 bytes (checked
 * before anything is admitted); directories are created as needed. Writes and deletes open the
 * path's directories one by one from the root without following links and rename or delete
 * relative to that handle, so a path through a symbolic link is refused, even one swapped in while
 * the store works. The store's own directories must be real directories; {@link #open} refuses a
 * planted link, and only the store's own temporary names are ever deleted.
 *
 * <h2>Failing closed (CONTRACT C16)</h2>
 *
 * A mark file that cannot be read (damaged, not a regular file, larger than a mark), or a key
 * whose marks are gone while the operation's target was written by it, refuses every operation
 * of the key with {@link ResourceAccessException} naming the repair: {@link #resetMark} (or
 * {@code ResetMarkCommand}) to the key's true fence. A store opened on a root whose two mark
 * directories are both missing (restored without {@code .leasehold}, say) walks the root once
 * and records every key that wrote a file still there as lost, refused the same way, so that no
 * key starts fresh; a file whose token attribute cannot be read stops the open, naming the
 * file. A key that only deleted files, or whose files are all gone, leaves no evidence: restore
 * {@code .leasehold} with the data. The store's own files (marks, logs, lock) are created
 * readable by their owner only.
 *
 * <h2>Limits</h2>
 *
 * Fencing orders the runs of one lease key. Two sessions writing the same path are not ordered
 * against each other; give each session its own directory. The file system must support user
 * extended attributes (ext4, XFS, Btrfs and tmpfs on current kernels do); {@link #open} checks.
 *
 * <p>Thread-safe, and safe for several processes sharing the root.
 */
public final class FencedFileStore {
  /** The resource kind this guard reports to its {@link GuardListener}. */
  public static final String RESOURCE = "file";

  /** Extended attribute that holds the text form of the writer's token. */
  public static final String TOKEN_ATTRIBUTE = "leasehold.token";
  /** The store's own directory inside the root. */
  public static final String META_DIR = ".leasehold";
  /** Longest accepted relative path, in characters. */
  public static final int MAX_PATH_LENGTH = 1024;
  /** Longest accepted path segment (a file or directory name), in UTF-8 bytes, as on Linux. */
  public static final int MAX_SEGMENT_BYTES = 255;

  private final Path root;
  private final Path lockFile;
  private final Path tmp;
  private final MarkFiles marks;
  private final AuditLog auditLog;
  private static final System.Logger LOG = System.getLogger(FencedFileStore.class.getName());
  private final Path adminLog;
  private final CrossProcessLock lock;
  private final TokenVerifier verifier;
  private final AdminPolicy adminPolicy;
  private final Clock clock;
  private final GuardListener listener;

  private FencedFileStore(Path root, Builder b) throws IOException {
    this.root = root;
    this.verifier = b.verifier;
    this.adminPolicy = b.adminPolicy;
    this.clock = b.clock;
    this.listener = b.listener;
    Path meta = root.resolve(META_DIR);
    this.lockFile = meta.resolve("lock");
    this.tmp = meta.resolve("tmp");
    Path primaryMarks = meta.resolve("marks");
    Path copyMarks = meta.resolve("marks-copy");
    this.marks = new MarkFiles(primaryMarks, copyMarks, tmp);
    this.auditLog = new AuditLog(meta.resolve("audit.log"), b.auditLog);
    this.adminLog = meta.resolve("admin.log");
    // The store's own directories: real directories, never links (CONTRACT C16).
    DurableFiles.ownDirectory(meta);
    DurableFiles.ownDirectory(tmp);
    this.lock = new CrossProcessLock(lockFile);
    locked(
        () -> {
          // First: the walk below reads the attribute, and must not meet a file system without one.
          TokenAttributes.probe(root, tmp);
          // Under the lock, so that of two processes opening a new store only the first decides.
          if (!Files.exists(primaryMarks, LinkOption.NOFOLLOW_LINKS)
              && !Files.exists(copyMarks, LinkOption.NOFOLLOW_LINKS)) {
            // A new store, or one whose marks were lost (a root restored without .leasehold).
            Collection<FencingToken> lost = TokenAttributes.highestPerKey(root, meta);
            marks.create(lost);
            if (!lost.isEmpty()) {
              LOG.log(
                  System.Logger.Level.WARNING,
                  () -> "the high-water marks under " + root + " were missing: " + lost.size() + " key(s)"
                      + " with files here are refused until an operator resets their marks"
                      + " (ResetMarkCommand, to the lease table's current fence for the key)");
            }
          } else {
            DurableFiles.ownDirectory(primaryMarks);
            boolean singleCopyStore = !Files.exists(copyMarks, LinkOption.NOFOLLOW_LINKS);
            DurableFiles.ownDirectory(copyMarks);
            if (singleCopyStore) {
              marks.migrateFromSingleCopy();
            }
          }
          removeLeftoverTemporaryFiles();
          return null;
        });
  }

  /**
   * Opens (creating if needed) a store on a directory, without an audit log.
   *
   * @param root the root directory
   * @param verifier how tokens are verified (CONTRACT C15)
   * @return the store
   * @throws ResourceAccessException if the directory cannot be prepared or lacks extended
   *     attributes
   */
  public static FencedFileStore open(Path root, TokenVerifier verifier) {
    return builder(root).verifier(verifier).open();
  }

  /**
   * Starts a builder, for the audit log and the administrators.
   *
   * @param root the root directory
   * @return the builder
   */
  public static Builder builder(Path root) {
    if (root == null) {
      throw new IllegalArgumentException("root must not be null");
    }
    return new Builder(root);
  }

  /**
   * The root directory (its real path).
   *
   * @return the root
   */
  public Path root() {
    return root;
  }

  /**
   * Creates or replaces a file, if the token's fence is at least the key's high-water mark.
   *
   * @param fenced the writer's lease (refused locally once lost) or token
   * @param path the relative path
   * @param content the new content
   * @return the completed operation
   * @throws StaleFenceException if a newer run has written for the key; nothing changed
   * @throws io.leasehold.fencing.LeaseLostException if the lease is known lost; nothing changed
   * @throws IllegalArgumentException if the path is not acceptable or an argument is null
   * @throws ResourceAccessException if the file system fails
   */
  public FileOperation write(Fenced fenced, String path, byte[] content) {
    return GuardListener.observe(listener, RESOURCE, () -> writeUnobserved(fenced, path, content));
  }

  private FileOperation writeUnobserved(Fenced fenced, String path, byte[] content) {
    if (content == null) {
      throw new IllegalArgumentException("content must not be null");
    }
    String relative = checkPath(path);
    FencingToken token = TokenVerifier.presentVerified(fenced, verifier);
    return locked(
        () -> {
          try (TargetDirectory target = TargetDirectory.open(root, relative, true).orElseThrow();
              SecureDirectoryStream<Path> temps = TargetDirectory.secure(tmp)) {
            BasicFileAttributes before = target.target();
            if (before != null && !before.isRegularFile()) {
              throw new IllegalArgumentException(
                  "path names " + (before.isDirectory() ? "a directory" : "something other than a regular file")
                      + ": " + relative);
            }
            Admission admission = admit(token, before == null ? null : target.file());
            Path temp = Path.of(UUID.randomUUID() + ".tmp");
            Path tempFile = tmp.resolve(temp);
            try {
              try (FileChannel ch =
                  FileChannel.open(
                      tempFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                ByteBuffer buf = ByteBuffer.wrap(content);
                while (buf.hasRemaining()) {
                  ch.write(buf);
                }
                TokenAttributes.write(tempFile, token);
                ch.force(true);
              }
              target.moveIn(temps, temp);
            } catch (IOException | RuntimeException e) {
              Files.deleteIfExists(tempFile);
              throw e;
            }
            target.force();
            FileOperation op = new FileOperation(FileOperation.Kind.WRITE, relative, admission, before != null);
            auditLog.append(op);
            return op;
          }
        });
  }

  /**
   * Deletes a file, if the token's fence is at least the key's high-water mark. Deleting a file
   * that does not exist is admitted (and raises the mark) all the same.
   *
   * @param fenced the writer's lease or token
   * @param path the relative path
   * @return the completed operation; {@link FileOperation#existed()} says whether there was a file
   * @throws StaleFenceException if a newer run has written for the key; nothing changed
   * @throws io.leasehold.fencing.LeaseLostException if the lease is known lost; nothing changed
   * @throws IllegalArgumentException if the path is not acceptable, names a directory or a link
   * @throws ResourceAccessException if the file system fails
   */
  public FileOperation delete(Fenced fenced, String path) {
    return GuardListener.observe(listener, RESOURCE, () -> deleteUnobserved(fenced, path));
  }

  private FileOperation deleteUnobserved(Fenced fenced, String path) {
    String relative = checkPath(path);
    FencingToken token = TokenVerifier.presentVerified(fenced, verifier);
    return locked(
        () -> {
          Optional<TargetDirectory> dir = TargetDirectory.open(root, relative, false);
          try {
            BasicFileAttributes before = dir.isPresent() ? dir.get().target() : null;
            if (before != null && before.isSymbolicLink()) {
              throw new IllegalArgumentException("path names a symbolic link: " + relative);
            }
            if (before != null && !before.isRegularFile()) {
              throw new IllegalArgumentException("path does not name a regular file: " + relative);
            }
            Admission admission = admit(token, before == null ? null : dir.get().file());
            if (before != null) {
              dir.get().delete();
              dir.get().force();
            }
            FileOperation op = new FileOperation(FileOperation.Kind.DELETE, relative, admission, before != null);
            auditLog.append(op);
            return op;
          } finally {
            if (dir.isPresent()) {
              dir.get().close();
            }
          }
        });
  }

  /**
   * Reads a file and the token of the write that produced it. Reads take no lock: the atomic
   * rename guarantees a reader sees one complete version.
   *
   * @param path the relative path
   * @return the file, or empty if it does not exist
   * @throws IllegalArgumentException if the path is not acceptable, names a directory or a link
   * @throws ResourceAccessException if the file system fails
   */
  public Optional<StoredFile> read(String path) {
    String relative = checkPath(path);
    try {
      Path target = resolveExisting(relative);
      if (target == null) {
        return Optional.empty();
      }
      // Java cannot read an attribute through an open descriptor, so check that the path still
      // names the same file (writers never modify a file in place, they rename a new one over
      // it) before the attribute and after the content; retry if a writer got in between.
      for (int attempt = 0; ; attempt++) {
        Object before = fileKey(target);
        if (before == null) {
          return Optional.empty();
        }
        Optional<FencingToken> writer;
        byte[] content;
        try {
          writer = TokenAttributes.read(target);
          content = Files.readAllBytes(target);
        } catch (NoSuchFileException e) {
          return Optional.empty(); // deleted meanwhile
        }
        if (before.equals(fileKey(target))) {
          return Optional.of(new StoredFile(relative, content, writer));
        }
        if (attempt == 100) {
          throw new IOException(relative + " kept changing while it was read");
        }
      }
    } catch (IOException e) {
      throw new ResourceAccessException("could not read " + relative, e);
    }
  }

  /**
   * The highest fence admitted for a key, as persisted.
   *
   * @param key the lease key
   * @return the mark, or empty if no operation for the key was ever admitted
   * @throws ResourceAccessException if the file system fails
   */
  public OptionalLong highWaterMark(LeaseKey key) {
    if (key == null) {
      throw new IllegalArgumentException("key must not be null");
    }
    return locked(() -> marks.read(key));
  }

  /**
   * How many damaged audit-log lines {@link #auditLog()} skipped so far in this process.
   *
   * @return the count
   */
  public int damagedAuditLines() {
    return auditLog.damagedLines();
  }

  /**
   * The audit log: every admitted operation in admission order, across all processes. A damaged
   * line is skipped, logged and counted ({@link #damagedAuditLines()}), so one bad line does not
   * hide the rest.
   *
   * @return the entries
   * @throws IllegalStateException if the store was opened without an audit log
   * @throws ResourceAccessException if the file system fails
   */
  public List<FileOperation> auditLog() {
    if (!auditLog.enabled()) {
      throw new IllegalStateException("this store was opened without an audit log");
    }
    return locked(auditLog::read);
  }

  /**
   * Sets a key's high-water mark, for recovery after a forged token or a leaked key raised it
   * beyond the reach of honest runs (docs/security.md). Allowed only to operators the store's
   * {@link AdminPolicy} names; recorded, forced to disk, in {@code .leasehold/admin.log} (see
   * {@link #markResets()}) before the mark changes. From the shell: {@code
   * io.leasehold.adapters.admin.ResetMarkCommand}.
   *
   * @param key the key
   * @param newMark the new mark; 0 removes it (the next token of any fence is admitted)
   * @param operator who resets it
   * @param reason why
   * @return the recorded reset
   * @throws AdminDeniedException if the policy refuses the operator; nothing changed
   * @throws IllegalArgumentException if an argument is invalid; nothing changed
   * @throws ResourceAccessException if the file system fails
   */
  public MarkReset resetMark(LeaseKey key, long newMark, String operator, String reason) {
    MarkReset.checkRequest(adminPolicy, key, newMark, operator, reason);
    return locked(
        () -> {
          long previous;
          try {
            previous = marks.read(key).orElse(0);
          } catch (IOException damaged) {
            previous = 0; // the reset is the repair of a damaged mark; the log says so below
          }
          MarkReset reset = new MarkReset(key, previous, newMark, operator, reason, clock.instant());
          StateFiles.requireRegularFileOrAbsent(adminLog);
          DurableFiles.appendLine(adminLog, AdminLog.format(reset));
          if (newMark == 0) {
            marks.delete(key);
          } else {
            marks.write(new FencingToken(key, newMark, RESET_RUN));
          }
          return reset;
        });
  }

  /**
   * Every mark reset made on this store, oldest first, from {@code .leasehold/admin.log}.
   *
   * @return the resets
   * @throws ResourceAccessException if the file system fails or the log is damaged (the message
   *     names the line)
   */
  public List<MarkReset> markResets() {
    return locked(
        () -> {
          List<MarkReset> out = new ArrayList<>();
          if (!Files.exists(adminLog, LinkOption.NOFOLLOW_LINKS)) {
            return out;
          }
          StateFiles.requireRegularFileOrAbsent(adminLog);
          List<String> lines = Files.readAllLines(adminLog, StandardCharsets.US_ASCII);
          for (int i = 0; i < lines.size(); i++) {
            out.add(AdminLog.parse(lines.get(i), adminLog, i + 1));
          }
          return out;
        });
  }

  // ------------------------------------------------------------------ internals

  /** The run id recorded in a mark an operator set: no run ever has it. */
  private static final UUID RESET_RUN = new UUID(0, 0);

  private <T> T locked(CrossProcessLock.Action<T> action) {
    try {
      return lock.call(
          () -> {
            // Before anything is admitted: an audit log that cannot be appended to must not
            // leave a write done but unacknowledged.
            auditLog.checkAppendable();
            return action.run();
          });
    } catch (IOException e) {
      throw new ResourceAccessException("file store operation failed under " + root + ": " + e, e);
    } catch (UncheckedIOException e) {
      throw new ResourceAccessException("file store operation failed under " + root, e.getCause());
    }
  }

  /**
   * Checks and raises the key's mark; the caller holds the store lock. {@code existing} is the
   * operation's target if it exists: when the key has no mark at all but that file was written
   * by the key, the mark was lost, and the operation fails closed (CONTRACT C16).
   */
  private Admission admit(FencingToken token, Path existing) throws IOException {
    OptionalLong stored = marks.read(token.key());
    if (stored.isEmpty() && existing != null) {
      Optional<FencingToken> writer = TokenAttributes.readQuietly(existing);
      if (writer.isPresent() && writer.get().key().equals(token.key())) {
        throw new IOException(
            "the high-water mark of " + token.key() + " is missing, but " + existing + " was written"
                + " by fence " + writer.get().fence() + " of that key: the marks were lost or deleted."
                + " Every operation of the key is refused until an operator sets the mark again"
                + " (FencedFileStore.resetMark or ResetMarkCommand) to at least the highest fence the"
                + " key ever wrote; the lease table's current fence for the key is a safe choice");
      }
    }
    long mark = stored.orElse(0);
    if (token.fence() < mark) {
      throw new StaleFenceException(token, mark);
    }
    if (token.fence() > mark) {
      marks.write(token);
    }
    return new Admission(token, mark);
  }

  private static Object fileKey(Path file) throws IOException {
    try {
      return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /** The names of the store's own temporary files: nothing else in tmp is ever deleted. */
  private static final java.util.regex.Pattern OWN_TEMPORARY =
      java.util.regex.Pattern.compile("(probe-)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\\.tmp|\\.mark)?");

  /**
   * Temporary files of writers that crashed; safe to remove because we hold the lock. Only the
   * store's own names, only regular files, never through a link (tmp itself was checked to be a
   * real directory).
   */
  private void removeLeftoverTemporaryFiles() throws IOException {
    try (DirectoryStream<Path> s = Files.newDirectoryStream(tmp)) {
      for (Path p : s) {
        if (OWN_TEMPORARY.matcher(p.getFileName().toString()).matches()
            && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  static String checkPath(String path) {
    if (path == null) {
      throw new IllegalArgumentException("path must not be null");
    }
    if (path.isEmpty() || path.length() > MAX_PATH_LENGTH) {
      throw new IllegalArgumentException("path must have 1 to " + MAX_PATH_LENGTH + " characters");
    }
    if (path.startsWith("/") || path.endsWith("/")) {
      throw new IllegalArgumentException("path must be relative and name a file: " + path);
    }
    if (path.indexOf('\\') >= 0 || path.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException("path must not contain backslashes or control characters");
    }
    String[] segments = path.split("/", -1);
    for (String s : segments) {
      if (s.isEmpty() || s.equals(".") || s.equals("..")) {
        throw new IllegalArgumentException("path must not contain empty, '.' or '..' segments: " + path);
      }
      // Checked before anything is admitted: a name the file system refuses must not raise a mark.
      if (s.getBytes(StandardCharsets.UTF_8).length > MAX_SEGMENT_BYTES) {
        throw new IllegalArgumentException(
            "path segment longer than " + MAX_SEGMENT_BYTES + " bytes (UTF-8): " + s.substring(0, 16) + "...");
      }
    }
    io.leasehold.fencing.MarkReset.checkText("path", path); // well-formed UTF-16 too
    if (segments[0].equals(META_DIR)) {
      throw new IllegalArgumentException(META_DIR + " is reserved for the store itself");
    }
    return path;
  }

  /** The target if it exists as a regular file inside the root, null if it does not exist. */
  private Path resolveExisting(String relative) throws IOException {
    Path target = root.resolve(relative);
    checkNoLinkEscape(relative);
    if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    if (Files.isSymbolicLink(target)) {
      throw new IllegalArgumentException("path names a symbolic link: " + relative);
    }
    if (!Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
      throw new IllegalArgumentException("path does not name a regular file: " + relative);
    }
    if (!target.getParent().toRealPath().startsWith(root)) {
      throw new IllegalArgumentException("path leaves the store root through a link: " + relative);
    }
    return target;
  }

  /** Refuses a path whose existing directories include a symbolic link. */
  private void checkNoLinkEscape(String relative) {
    Path current = root;
    String[] segments = relative.split("/");
    for (int i = 0; i < segments.length - 1; i++) {
      current = current.resolve(segments[i]);
      if (Files.isSymbolicLink(current)) {
        throw new IllegalArgumentException("path goes through a symbolic link: " + relative);
      }
    }
  }

  /** Options of a {@link FencedFileStore}. Not thread-safe. */
  public static final class Builder {
    private final Path root;
    private TokenVerifier verifier;
    private boolean auditLog;
    private AdminPolicy adminPolicy = AdminPolicy.nobody();
    private Clock clock = Clock.systemUTC();

    private Builder(Path root) {
      this.root = root;
    }

    private GuardListener listener = GuardListener.NONE;

    /**
     * Who hears each decision (resource kind {@value FencedFileStore#RESOURCE}). Default {@link
     * GuardListener#NONE}.
     *
     * @param listener the listener
     * @return this builder
     */
    public Builder listener(GuardListener listener) {
      if (listener == null) {
        throw new IllegalArgumentException("listener must not be null");
      }
      this.listener = listener;
      return this;
    }

    /**
     * How tokens are verified (CONTRACT C15). Required.
     *
     * @param verifier the verifier
     * @return this builder
     */
    public Builder verifier(TokenVerifier verifier) {
      if (verifier == null) {
        throw new IllegalArgumentException("verifier must not be null");
      }
      this.verifier = verifier;
      return this;
    }

    /**
     * Whether to append every admitted operation to {@code .leasehold/audit.log} (forced to disk
     * before the operation is acknowledged), in admission order across all processes; see {@link
     * FencedFileStore#auditLog()}. Default false.
     *
     * @param auditLog true to keep the log
     * @return this builder
     */
    public Builder auditLog(boolean auditLog) {
      this.auditLog = auditLog;
      return this;
    }

    /**
     * Who may reset marks. Default {@link AdminPolicy#nobody()}.
     *
     * @param adminPolicy the policy
     * @return this builder
     */
    public Builder adminPolicy(AdminPolicy adminPolicy) {
      if (adminPolicy == null) {
        throw new IllegalArgumentException("adminPolicy must not be null");
      }
      this.adminPolicy = adminPolicy;
      return this;
    }

    /**
     * The clock that dates mark resets. Default the system clock (UTC).
     *
     * @param clock the clock
     * @return this builder
     */
    public Builder clock(Clock clock) {
      if (clock == null) {
        throw new IllegalArgumentException("clock must not be null");
      }
      this.clock = clock;
      return this;
    }

    /**
     * Opens (creating if needed) the store.
     *
     * @return the store
     * @throws IllegalStateException if no verifier was chosen
     * @throws ResourceAccessException if the directory cannot be prepared or lacks extended
     *     attributes
     */
    public FencedFileStore open() {
      if (verifier == null) {
        throw new IllegalStateException(
            "choose how tokens are verified: verifier(TokenVerifier.signedBy(keys)),"
                + " verifier(LeaseTableVerifier...), or verifier(TokenVerifier.trustEveryWriter())"
                + " if every writer is trusted code");
      }
      try {
        Files.createDirectories(root);
        return new FencedFileStore(root.toRealPath(), this);
      } catch (IOException e) {
        throw new ResourceAccessException(
            "could not open file store at " + root + ": " + describe(e)
                + " (the root must be a directory this process can create, write and set extended"
                + " attributes in)",
            e);
      }
    }
  }

  /** An I/O failure in words: what failed, on which file, and why (often hidden in the cause). */
  static String describe(IOException e) {
    if (e instanceof java.nio.file.FileSystemException f) {
      String what = e.getClass().getSimpleName();
      return what + " on " + f.getFile() + (f.getReason() == null ? "" : ": " + f.getReason());
    }
    return e.toString();
  }
}
