package io.leasehold.adapters.file;

import io.leasehold.adapters.CrossProcessLock;
import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.fencing.AdminDeniedException;
import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.Admission;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerifier;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
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
 * from {@code .leasehold/marks/}, refuses a lower fence, raises the mark durably if the fence is
 * higher (before touching the data, so the mark never lags an acknowledged write), then writes the
 * content to a temporary file, records the writer's token in the file's {@code
 * user.leasehold.token} extended attribute, forces it to disk, renames it over the target
 * atomically and forces the directory. A crash at any point leaves the old content or the new,
 * never a torn file. Files keep their plain content: other tools read them as usual.
 *
 * <h2>Paths</h2>
 *
 * Paths are relative, {@code /}-separated, without {@code .} or {@code ..} segments, and not
 * under {@code .leasehold}; directories are created as needed. A path whose directories lead out
 * of the root through a symbolic link is refused, and so is reading or deleting a symbolic link.
 * The root itself is trusted: someone who can replace directories inside it while the store runs
 * can defeat the check.
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
  /** Extended attribute that holds the text form of the writer's token. */
  public static final String TOKEN_ATTRIBUTE = "leasehold.token";
  /** The store's own directory inside the root. */
  public static final String META_DIR = ".leasehold";
  /** Longest accepted relative path, in characters. */
  public static final int MAX_PATH_LENGTH = 1024;

  private final Path root;
  private final Path lockFile;
  private final Path marks;
  private final Path tmp;
  private final Path auditLog;
  private final Path adminLog;
  private final boolean audit;
  private final CrossProcessLock lock;
  private final TokenVerifier verifier;
  private final AdminPolicy adminPolicy;
  private final Clock clock;

  private FencedFileStore(Path root, Builder b) throws IOException {
    this.root = root;
    this.verifier = b.verifier;
    this.adminPolicy = b.adminPolicy;
    this.clock = b.clock;
    Path meta = root.resolve(META_DIR);
    this.lockFile = meta.resolve("lock");
    this.marks = meta.resolve("marks");
    this.tmp = meta.resolve("tmp");
    this.auditLog = meta.resolve("audit.log");
    this.adminLog = meta.resolve("admin.log");
    this.audit = b.auditLog;
    this.lock = new CrossProcessLock(lockFile);
    Files.createDirectories(marks);
    Files.createDirectories(tmp);
    if (!Files.exists(lockFile)) {
      try {
        Files.createFile(lockFile);
      } catch (java.nio.file.FileAlreadyExistsException e) {
        // another process created it first
      }
    }
    locked(
        () -> {
          removeLeftoverTemporaryFiles();
          probeExtendedAttributes();
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
    if (content == null) {
      throw new IllegalArgumentException("content must not be null");
    }
    String relative = checkPath(path);
    FencingToken token = TokenVerifier.presentVerified(fenced, verifier);
    return locked(
        () -> {
          Path target = resolveForWrite(relative);
          Admission admission = admit(token);
          boolean existed = Files.exists(target, LinkOption.NOFOLLOW_LINKS);
          Path temp = tmp.resolve(UUID.randomUUID() + ".tmp");
          try {
            try (FileChannel ch =
                FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
              ByteBuffer buf = ByteBuffer.wrap(content);
              while (buf.hasRemaining()) {
                ch.write(buf);
              }
              Files.getFileAttributeView(temp, UserDefinedFileAttributeView.class)
                  .write(TOKEN_ATTRIBUTE, StandardCharsets.US_ASCII.encode(token.toText()));
              ch.force(true);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
          } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temp);
            throw e;
          }
          forceDirectory(target.getParent());
          FileOperation op = new FileOperation(FileOperation.Kind.WRITE, relative, admission, existed);
          appendAudit(op);
          return op;
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
    String relative = checkPath(path);
    FencingToken token = TokenVerifier.presentVerified(fenced, verifier);
    return locked(
        () -> {
          Path target = resolveExisting(relative);
          Admission admission = admit(token);
          boolean existed = target != null && Files.deleteIfExists(target);
          if (existed) {
            forceDirectory(target.getParent());
          }
          FileOperation op =
              new FileOperation(FileOperation.Kind.DELETE, relative, admission, existed);
          appendAudit(op);
          return op;
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
          writer = readTokenAttribute(target);
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
    long mark = locked(() -> readMark(key));
    return mark == 0 ? OptionalLong.empty() : OptionalLong.of(mark);
  }

  /**
   * The audit log: every admitted operation in admission order, across all processes.
   *
   * @return the entries
   * @throws IllegalStateException if the store was opened without an audit log
   * @throws ResourceAccessException if the file system fails
   */
  public List<FileOperation> auditLog() {
    if (!audit) {
      throw new IllegalStateException("this store was opened without an audit log");
    }
    return locked(
        () -> {
          List<FileOperation> ops = new ArrayList<>();
          if (!Files.exists(auditLog)) {
            return ops;
          }
          for (String line : Files.readAllLines(auditLog, StandardCharsets.US_ASCII)) {
            String[] f = line.split(" ");
            FencingToken token = FencingToken.parse(f[1]);
            ops.add(
                new FileOperation(
                    FileOperation.Kind.valueOf(f[0]),
                    new String(Base64.getUrlDecoder().decode(f[2]), StandardCharsets.UTF_8),
                    new Admission(token, Long.parseLong(f[3])),
                    Boolean.parseBoolean(f[4])));
          }
          return ops;
        });
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
    if (key == null) {
      throw new IllegalArgumentException("key must not be null");
    }
    if (newMark < 0) {
      throw new IllegalArgumentException("newMark must be 0 (none) or a fence, was " + newMark);
    }
    MarkReset.checkText("operator", operator);
    MarkReset.checkText("reason", reason);
    if (!adminPolicy.mayResetMark(operator, key)) {
      throw new AdminDeniedException(operator, "reset the mark of " + key);
    }
    return locked(
        () -> {
          MarkReset reset = new MarkReset(key, readMark(key), newMark, operator, reason, clock.instant());
          appendLine(adminLog, AdminLog.format(reset));
          if (newMark == 0) {
            Files.deleteIfExists(markFile(key));
            forceDirectory(marks);
          } else {
            writeMark(new FencingToken(key, newMark, RESET_RUN));
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
      return lock.call(action);
    } catch (IOException e) {
      throw new ResourceAccessException("file store operation failed under " + root + ": " + e, e);
    } catch (UncheckedIOException e) {
      throw new ResourceAccessException("file store operation failed under " + root, e.getCause());
    }
  }

  /** Checks and raises the key's mark; the caller holds the store lock. */
  private Admission admit(FencingToken token) throws IOException {
    long mark = readMark(token.key());
    if (token.fence() < mark) {
      throw new StaleFenceException(token, mark);
    }
    if (token.fence() > mark) {
      writeMark(token);
    }
    return new Admission(token, mark);
  }

  private Path markFile(LeaseKey key) {
    return marks.resolve(sha256(key.accountId() + '\u0000' + key.sessionId()));
  }

  private long readMark(LeaseKey key) throws IOException {
    Path file = markFile(key);
    String text;
    try {
      text = Files.readString(file, StandardCharsets.US_ASCII).strip();
    } catch (NoSuchFileException e) {
      return 0;
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
      return fence;
    } catch (IllegalArgumentException e) {
      // Fail closed (CONTRACT C16): a mark that cannot be read is never taken for "no mark".
      throw new IOException(
          "damaged high-water mark file " + file + " for " + key + " (" + e.getMessage() + "):"
              + " every operation of this key is refused until an operator sets the mark again"
              + " with resetMark (ResetMarkCommand) to at least the highest fence this key ever"
              + " wrote", e);
    }
  }

  private void writeMark(FencingToken token) throws IOException {
    Path temp = tmp.resolve(UUID.randomUUID() + ".mark");
    byte[] bytes = (token.fence() + " " + token.toText() + "\n").getBytes(StandardCharsets.US_ASCII);
    try (FileChannel ch =
        FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(bytes));
      ch.force(true);
    }
    try {
      Files.move(temp, markFile(token.key()), StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
    forceDirectory(marks);
  }

  private void appendAudit(FileOperation op) throws IOException {
    if (!audit) {
      return;
    }
    String line =
        op.kind()
            + " "
            + op.admission().token().toText()
            + " "
            + Base64.getUrlEncoder().withoutPadding().encodeToString(op.path().getBytes(StandardCharsets.UTF_8))
            + " "
            + op.admission().previousMark()
            + " "
            + op.existed()
            + "\n";
    appendLine(auditLog, line);
  }

  private static void appendLine(Path log, String line) throws IOException {
    try (FileChannel ch =
        FileChannel.open(
            log, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      ByteBuffer buf = ByteBuffer.wrap(line.getBytes(StandardCharsets.US_ASCII));
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(false);
    }
  }

  private static void forceDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  private static Object fileKey(Path file) throws IOException {
    try {
      return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  private Optional<FencingToken> readTokenAttribute(Path file) throws IOException {
    UserDefinedFileAttributeView view =
        Files.getFileAttributeView(file, UserDefinedFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    if (!view.list().contains(TOKEN_ATTRIBUTE)) {
      return Optional.empty();
    }
    ByteBuffer buf = ByteBuffer.allocate(view.size(TOKEN_ATTRIBUTE));
    view.read(TOKEN_ATTRIBUTE, buf);
    buf.flip();
    return Optional.of(FencingToken.parse(StandardCharsets.US_ASCII.decode(buf).toString()));
  }

  private void probeExtendedAttributes() throws IOException {
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

  /** Temporary files of writers that crashed; safe to remove because we hold the lock. */
  private void removeLeftoverTemporaryFiles() throws IOException {
    try (DirectoryStream<Path> s = Files.newDirectoryStream(tmp)) {
      for (Path p : s) {
        Files.deleteIfExists(p);
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
    }
    if (segments[0].equals(META_DIR)) {
      throw new IllegalArgumentException(META_DIR + " is reserved for the store itself");
    }
    return path;
  }

  /** Creates the parent directories and checks that they resolve inside the root. */
  private Path resolveForWrite(String relative) throws IOException {
    Path target = root.resolve(relative);
    Path parent = target.getParent();
    checkNoLinkEscape(relative);
    Files.createDirectories(parent);
    if (!parent.toRealPath().startsWith(root)) {
      throw new IllegalArgumentException("path leaves the store root through a link: " + relative);
    }
    if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
      throw new IllegalArgumentException("path names a directory: " + relative);
    }
    return target;
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

  private static String sha256(String s) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
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
        throw new ResourceAccessException("could not open file store at " + root + ": " + e, e);
      }
    }
  }
}
