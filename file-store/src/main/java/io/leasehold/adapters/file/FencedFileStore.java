package io.leasehold.adapters.file;

import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.adapters.file.internal.CrossProcessLock;
import io.leasehold.adapters.file.internal.DurableFiles;
import io.leasehold.adapters.mark.FileMarkStore;
import io.leasehold.fencing.AdminDeniedException;
import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FenceGuard;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.GuardBuilder;
import io.leasehold.fencing.GuardListener;
import io.leasehold.fencing.GuardOptions;
import io.leasehold.fencing.GuardPipeline;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.fencing.internal.Arguments;
import io.leasehold.fencing.mark.MarkStoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Files under a root directory, written, replaced and deleted only by the newest run of each
 * session (CONTRACT C9-C11).
 *
 * <pre>{@code
 * FencedFileStore files = FencedFileStore.open(Path.of("/srv/agent-files"), TokenVerifier.signedBy(keys));
 * files.write(lease, "acct-7/chat-1/answer.md", bytes); // StaleFenceException if a newer run wrote
 * }</pre>
 *
 * <p>Every token is verified by the store's {@link TokenVerifier} before the mark is read (CONTRACT
 * C15); a token that fails changes nothing.
 *
 * <h2>How a write is made</h2>
 *
 * Every operation runs under one lock that holds across threads and processes (a JVM lock plus an
 * OS file lock on {@code .leasehold/lock}). Under it the store reads the key's high-water mark
 * (kept twice, in {@code .leasehold/marks/} and {@code .leasehold/marks-copy/}; the higher copy
 * counts, so deleting or lowering one copy never lowers a mark), refuses a lower fence, raises the
 * mark durably if the fence is higher (before touching the data, so the mark never lags an
 * acknowledged write), then writes the content to a temporary file, records the writer's token in
 * the file's {@code user.leasehold.token} extended attribute, forces it to disk, renames it over
 * the target atomically and forces the directory. A crash at any point leaves the old content or
 * the new, never a torn file. Files keep their plain content: other tools read them as usual.
 *
 * <h2>Paths</h2>
 *
 * Paths are relative, {@code /}-separated, without {@code .} or {@code ..} segments, and not under
 * {@code .leasehold}, at most {@value #MAX_PATH_LENGTH} characters with each name at most {@value
 * #MAX_SEGMENT_BYTES} UTF-8 bytes, and at most 4095 bytes with the root in front (Linux's PATH_MAX;
 * checked before anything is admitted); directories are created as needed. Writes and deletes open
 * the path's directories one by one from the root without following links and rename or delete
 * relative to that handle, so a path through a symbolic link is refused, even one swapped in while
 * the store works. The store's own directories must be real directories; {@link #open} refuses a
 * planted link, and only the store's own temporary names are ever deleted.
 *
 * <h2>Failing closed (CONTRACT C16)</h2>
 *
 * A mark file that cannot be read (damaged, not a regular file, larger than a mark), or a key whose
 * marks are gone while the operation's target was written by it, refuses every operation of the key
 * with {@link ResourceAccessException} naming the repair: {@link #resetMark} (or {@code
 * ResetMarkCommand}) to the key's true fence. A store opened on a root whose two mark directories
 * are both missing (restored without {@code .leasehold}, say) walks the root once and records every
 * key that wrote a file still there as lost, refused the same way, so that no key starts fresh; a
 * file whose token attribute cannot be read stops the open, naming the file. A key that only
 * deleted files, or whose files are all gone, leaves no evidence: restore {@code .leasehold} with
 * the data. The store's own files (marks, logs, lock) are created readable by their owner only.
 *
 * <h2>Limits</h2>
 *
 * Fencing orders the runs of one lease key. Two sessions writing the same path are not ordered
 * against each other, which is one reason each session gets its own directory by default ({@link
 * PathScope}); the other is that a valid token of one account must never touch another's files
 * (CONTRACT C19). The file system must support user extended attributes (ext4, XFS, Btrfs and tmpfs
 * on current kernels do); {@link #open} checks.
 *
 * <p>Thread-safe, and safe for several processes sharing the root.
 */
public final class FencedFileStore implements FenceGuard {
  /** The resource kind this guard reports to its {@link GuardListener}. */
  public static final String RESOURCE = "file";

  /**
   * Extended attribute that holds the writer's token in its unsigned text form: which run wrote the
   * file, never a signature someone who can read the file could replay (CONTRACT C20).
   */
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
  private final FileMarkStore marks;
  private final AuditLog auditLog;
  private final CrossProcessLock lock;
  private final GuardOptions options;

  /** Present, verify, check the path against the store's {@link PathScope}, step, report. */
  private final GuardPipeline<String> pipeline;

  /** The writes and deletes themselves, run under {@link #locked}. */
  private final FileEffects effects;

  private FencedFileStore(Path root, GuardOptions options, Builder b) throws IOException {
    this.root = root;
    this.options = options;
    PathScope scope = b.scope;
    this.pipeline =
        new GuardPipeline<>(
            options, (token, relative) -> StorePaths.inScope(scope, token, relative));
    Path meta = root.resolve(META_DIR);
    this.lockFile = meta.resolve("lock");
    this.tmp = meta.resolve("tmp");
    this.marks =
        new FileMarkStore(
            meta,
            tmp,
            "FencedFileStore.resetMark or ResetMarkCommand",
            TokenAttributes::readQuietly);
    this.auditLog = new AuditLog(meta, b.auditLog);
    // The store's own directories: real directories, never links (CONTRACT C16).
    DurableFiles.ownDirectory(meta);
    DurableFiles.ownDirectory(tmp);
    this.effects = new FileEffects(root, tmp, marks, auditLog, b.fileMode);
    this.lock = new CrossProcessLock(lockFile, b.lockTimeout);
    locked(() -> StoreOpening.prepare(root, meta, marks, tmp));
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
    Arguments.required(root, "root");
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
    Arguments.required(content, "content");
    return pipeline.run(
        fenced,
        StorePaths.check(root, path),
        call -> locked(() -> effects.write(call.token(), call.argument(), content)));
  }

  /**
   * Deletes a file, if the token's fence is at least the key's high-water mark. Deleting a missing
   * file is admitted too; it raises a mark the key has but creates none (C21), so call {@link
   * #admit(Fenced)} to shut older runs out before any write.
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
    return pipeline.run(
        fenced,
        StorePaths.check(root, path),
        call -> locked(() -> effects.delete(call.token(), call.argument())));
  }

  /**
   * Reads a file and the token of the write that produced it. Reads take no lock: the atomic rename
   * guarantees a reader sees one complete version.
   *
   * @param path the relative path
   * @return the file, or empty if it does not exist
   * @throws IllegalArgumentException if the path is not acceptable, names a directory or a link
   * @throws ResourceAccessException if the file system fails
   */
  public Optional<StoredFile> read(String path) {
    return StorePaths.read(root, StorePaths.check(root, path));
  }

  /**
   * Admits a token without touching a file: raises the key's mark to its fence, durably, so that
   * from now on no lower fence writes or deletes here. A new run can call it as it starts, to shut
   * out older runs before its first write.
   *
   * @param fenced the run's lease or token
   * @return the admission, with the mark before it
   * @throws StaleFenceException if a newer run has been admitted for the key; nothing changed
   * @throws io.leasehold.fencing.TokenVerificationException if the token fails verification;
   *     nothing changed
   * @throws io.leasehold.fencing.LeaseLostException if the lease is known lost; nothing changed
   * @throws ResourceAccessException if the file system fails or the key's mark is damaged
   */
  @Override
  public Admission admit(Fenced fenced) {
    return pipeline.runForKey(fenced, call -> locked(() -> marks.admit(null, call.token())));
  }

  /**
   * The highest fence admitted for a key, as persisted.
   *
   * @param key the lease key
   * @return the mark, or empty if no operation for the key was admitted since the store began or
   *     since an operator reset its mark to 0
   * @throws ResourceAccessException if the file system fails
   */
  @Override
  public OptionalLong highWaterMark(LeaseKey key) {
    Arguments.required(key, "key");
    return locked(() -> marks.read(null, key));
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
   * @param newMark the new mark; 0 forgets the key's fence: the next token of any fence is
   *     admitted, also on files the key wrote before. The mark files then hold a mark of 0 rather
   *     than being removed, so mark files deleted by anyone else still refuse the key's operations
   *     on its files (CONTRACT C16)
   * @param operator who resets it
   * @param reason why
   * @return the recorded reset
   * @throws AdminDeniedException if the policy refuses the operator; nothing changed
   * @throws IllegalArgumentException if an argument is invalid; nothing changed
   * @throws ResourceAccessException if the file system fails
   */
  @Override
  public MarkReset resetMark(LeaseKey key, long newMark, String operator, String reason) {
    options.checkReset(key, newMark, operator, reason);
    return locked(
        () -> marks.reset(null, key, newMark, operator, reason, options.clock().instant()));
  }

  /**
   * Every mark reset made on this store, oldest first, from {@code .leasehold/admin.log}.
   *
   * @return the resets
   * @throws ResourceAccessException if the file system fails or the log is damaged (the message
   *     names the line)
   */
  @Override
  public List<MarkReset> markResets() {
    return locked(() -> marks.resets(null));
  }

  // ------------------------------------------------------------------ internals

  private <T> T locked(CrossProcessLock.Action<T> action) {
    try {
      return lock.call(
          () -> {
            // Before anything is admitted: an audit log that cannot be appended to must not
            // leave a write done but unacknowledged.
            auditLog.checkAppendable();
            return action.run();
          });
    } catch (IOException | MarkStoreException e) {
      throw new ResourceAccessException("file store operation failed under " + root + ": " + e, e);
    } catch (UncheckedIOException e) {
      throw new ResourceAccessException("file store operation failed under " + root, e.getCause());
    }
  }

  /**
   * Options of a {@link FencedFileStore}: the shared ones of {@link GuardBuilder} (the listener
   * hears resource kind {@value FencedFileStore#RESOURCE}; the clock dates mark resets) and the
   * audit log. Not thread-safe.
   */
  public static final class Builder extends GuardBuilder<Builder> {
    private final Path root;
    private boolean auditLog;
    private java.time.Duration lockTimeout = CrossProcessLock.DEFAULT_TIMEOUT;
    private PathScope scope = PathScope.sessionDirectories();
    private Set<PosixFilePermission> fileMode = DurableFiles.OWNER_READ_WRITE;

    private Builder(Path root) {
      this.root = root;
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
     * How long an operation waits for the store's lock while another thread or process holds it
     * (CONTRACT C21); past it the operation fails with {@link ResourceAccessException} naming the
     * lock file and the holder's pid, and nothing changed. Default 30 s.
     *
     * @param lockTimeout from 1 ms to 1 h
     * @return this builder
     */
    public Builder lockTimeout(java.time.Duration lockTimeout) {
      this.lockTimeout = CrossProcessLock.checkTimeout(lockTimeout);
      return this;
    }

    /**
     * Which key may write and delete which paths (CONTRACT C19). Default {@link
     * PathScope#sessionDirectories()}: a session's files live under {@code <account id>/<session
     * id>/}, and a token of another key is refused there.
     *
     * @param scope the scope
     * @return this builder
     */
    public Builder pathScope(PathScope scope) {
      this.scope = Arguments.required(scope, "scope");
      return this;
    }

    /**
     * The permissions data files are given, whatever the process's umask. Default {@code
     * rw-------}: a data file carries who wrote it, and other local users need not read it.
     *
     * @param mode the permissions; must include the owner's read and write
     * @return this builder
     * @throws IllegalArgumentException if null or without owner read and write
     */
    public Builder dataFileMode(Set<PosixFilePermission> mode) {
      if (mode == null
          || !mode.contains(PosixFilePermission.OWNER_READ)
          || !mode.contains(PosixFilePermission.OWNER_WRITE)) {
        throw new IllegalArgumentException(
            "the data file mode must include owner read and write, was " + mode);
      }
      this.fileMode = Set.copyOf(mode);
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
      GuardOptions options = options(RESOURCE);
      try {
        Files.createDirectories(root);
        return new FencedFileStore(root.toRealPath(), options, this);
      } catch (IOException e) {
        throw new ResourceAccessException(
            "could not open file store at "
                + root
                + ": "
                + StorePaths.describe(e)
                + " (the root must be a directory this process can create, write and set extended"
                + " attributes in)",
            e);
      }
    }
  }
}
