package io.leasehold.adapters.file;

import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testkit.GuardHarness;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The file store as a register: one file per key, and the store's audit log. */
public final class FileHarness implements GuardHarness {
  private final FencedFileStore store;
  private final TokenVerifier verifier;
  private final boolean sessionDirectories;
  private final java.time.Duration lockTimeout;

  /**
   * A store on {@code root} that trusts every token and takes any path; the caller adds the rest.
   */
  public static FencedFileStore.Builder anyPathStore(Path root) {
    return FencedFileStore.builder(root)
        .verifier(TokenVerifier.trustEveryWriter())
        .pathScope(PathScope.anyPath());
  }

  public FileHarness(Path root, TokenVerifier verifier) {
    this(root, verifier, false, java.time.Duration.ofSeconds(30));
  }

  private FileHarness(
      Path root,
      TokenVerifier verifier,
      boolean sessionDirectories,
      java.time.Duration lockTimeout) {
    this.verifier = verifier;
    this.sessionDirectories = sessionDirectories;
    this.lockTimeout = lockTimeout;
    this.store =
        FencedFileStore.builder(root)
            .verifier(verifier)
            // A scope of its own: the harness names each key's directory by a digest of the key,
            // unless it runs the default layout (plain keys only).
            .pathScope(
                sessionDirectories
                    ? PathScope.sessionDirectories()
                    : (key, path) -> path.equals(path(key)))
            .lockTimeout(lockTimeout)
            .auditLog(true)
            .adminPolicy(AdminPolicy.operators(Set.of("ops")))
            .open();
  }

  /**
   * The store with its default layout, {@code <account>/<session>/register.txt}: for plain keys.
   */
  public static FileHarness sessionDirectories(Path root) {
    return new FileHarness(
        root, TokenVerifier.trustEveryWriter(), true, java.time.Duration.ofSeconds(30));
  }

  /** A store whose lock waits end after {@code lockTimeout}. */
  public static FileHarness waitingAtMost(Path root, java.time.Duration lockTimeout) {
    return new FileHarness(root, TokenVerifier.trustEveryWriter(), false, lockTimeout);
  }

  private String pathOf(LeaseKey key) {
    return sessionDirectories
        ? key.accountId() + "/" + key.sessionId() + "/register.txt"
        : path(key);
  }

  public FileHarness(Path root) {
    this(root, TokenVerifier.trustEveryWriter());
  }

  /** One directory per key, named by a digest: key text may be anything a path may not. */
  /** The store's root. */
  public Path root() {
    return store.root();
  }

  static String path(LeaseKey key) {
    try {
      byte[] d =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(
                  (key.accountId() + '\u0000' + key.sessionId()).getBytes(StandardCharsets.UTF_8));
      return java.util.HexFormat.of().formatHex(d) + "/register.txt";
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public io.leasehold.fencing.FenceGuard guard() {
    return store;
  }

  @Override
  public void write(LeaseKey key, Fenced fenced, String value) {
    store.write(fenced, pathOf(key), value.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public Optional<String> value(LeaseKey key) {
    return store.read(pathOf(key)).map(f -> new String(f.content(), StandardCharsets.UTF_8));
  }

  @Override
  public GuardHarness reopen() {
    return new FileHarness(store.root(), verifier, sessionDirectories, lockTimeout);
  }

  @Override
  public List<Long> admittedFences(LeaseKey key) {
    return store.auditLog().stream()
        .filter(op -> op.admission().token().key().equals(key))
        .map(op -> op.admission().token().fence())
        .toList();
  }
}
