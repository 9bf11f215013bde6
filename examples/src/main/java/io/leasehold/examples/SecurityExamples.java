package io.leasehold.examples;

import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.adapters.jdbc.FencedJdbcWriter;
import io.leasehold.adapters.jdbc.LeaseTableVerifier;
import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.ReleaseResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * The samples of docs/security.md, compiled and run on every build (see {@code
 * SecurityExamplesTest}).
 */
public final class SecurityExamples {
  private SecurityExamples() {}

  /**
   * Makes a key pair: the secret for the lease store, the public half for resources.
   *
   * @param dir where the two files go
   * @throws IOException if they cannot be written
   */
  public static void generateKeys(Path dir) throws IOException {
    // region generate-keys
    SigningKey key = SigningKey.generate(SignatureScheme.ED25519, "2026-12");
    Path secret = dir.resolve("signing.key");
    Files.createFile(
        secret, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(secret, key.toText()); // the lease store's service only
    Files.writeString(dir.resolve("verify.keys"), key.verificationKey().toText() + "\n"); // public
    // endregion
  }

  /**
   * A lease store that signs what it issues.
   *
   * @param dataSource the lease database
   * @param dir where {@link #generateKeys} wrote
   * @return the store
   * @throws IOException if the key cannot be read
   */
  public static LeaseStore signingStore(DataSource dataSource, Path dir) throws IOException {
    // region signing-store
    SigningKey key = SigningKey.parse(Files.readString(dir.resolve("signing.key")));
    LeaseStore store =
        LeaseStore.builder(dataSource)
            .accessPolicy(AccessPolicy.callerOwnsAccount())
            .tokenSigningKey(key) // every token carries key id "2026-12" and a signature
            .build();
    // endregion
    return store;
  }

  /**
   * A resource that admits only signed tokens.
   *
   * @param root the store's root
   * @param dir where {@link #generateKeys} wrote
   * @return the file store
   * @throws IOException if the keys cannot be read
   */
  public static FencedFileStore verifyingResource(Path root, Path dir) throws IOException {
    // region verifying-resource
    TokenKeySet keys = TokenKeySet.parse(Files.readString(dir.resolve("verify.keys")));
    FencedFileStore files =
        FencedFileStore.builder(root)
            .verifier(TokenVerifier.signedBy(keys)) // forged, unsigned, unknown key: refused
            .adminPolicy(AdminPolicy.operators(Set.of("oncall"))) // who may reset marks
            .open();
    // endregion
    return files;
  }

  /**
   * Online verification, for resources that reach the lease database.
   *
   * @param leaseDatabase the lease database
   * @param root a file store root
   * @return the file store and, on the lease database, a writer
   */
  public static Object[] onlineResources(DataSource leaseDatabase, Path root) {
    // region online
    // A resource that can read the lease table: one primary-key read per write.
    FencedFileStore files =
        FencedFileStore.open(root, LeaseTableVerifier.of(leaseDatabase, "leasehold_lease"));
    // A writer on the lease database itself: the check is part of its admission statement.
    FencedJdbcWriter writer =
        FencedJdbcWriter.builder(leaseDatabase).verifyAgainstLeaseTable("leasehold_lease").build();
    // endregion
    return new Object[] {files, writer};
  }

  /**
   * Rotation in a running resource.
   *
   * @param current the key set in force
   * @param next the new key
   * @param retiredKeyId the key to retire
   * @return the verifier, and the set after the rotation
   */
  public static Object[] rotate(TokenKeySet current, SigningKey next, String retiredKeyId) {
    // region rotation
    AtomicReference<TokenKeySet> keys = new AtomicReference<>(current);
    TokenVerifier verifier = TokenVerifier.signedBy(keys::get); // re-read at every verification
    // Step 1, on every resource: accept the new key as well.
    keys.set(keys.get().with(next.verificationKey()));
    // Step 2: restart the lease stores with tokenSigningKey(next). Step 3, once no lease acquired
    // before step 2 is still held: retire the old key.
    keys.set(keys.get().without(retiredKeyId));
    // endregion
    return new Object[] {verifier, keys.get()};
  }

  /**
   * The recovery after a forged token raised a mark.
   *
   * @param files the file store
   * @param session the key
   * @param trueFence the highest fence the lease table issued for it
   * @return the recorded reset
   */
  public static MarkReset recover(FencedFileStore files, LeaseKey session, long trueFence) {
    // region reset
    MarkReset reset =
        files.resetMark(session, trueFence, "oncall", "forged token, incident 2026-12-02");
    // reset.previousMark() is what the forger set; .leasehold/admin.log now records who, when, why
    // endregion
    return reset;
  }

  /**
   * An operator ends a stuck run.
   *
   * @param dataSource the lease database
   * @param session the key
   * @return what the release did
   */
  public static ReleaseResult forceRelease(DataSource dataSource, LeaseKey session) {
    // region force-release
    AccessPolicy policy = AccessPolicy.callerOwnsAccount().withAdministrators(Set.of("oncall"));
    try (LeaseStore store = LeaseStore.builder(dataSource).accessPolicy(policy).build()) {
      return store.admin().forceRelease(session, "oncall", "run stuck since 09:14, ticket 4711");
    } // audited in leasehold_lease_audit; a caller who is not an administrator changes nothing
    // endregion
  }
}
