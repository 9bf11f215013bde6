package io.leasehold.adapters.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenVerificationException;
import io.leasehold.fencing.TokenVerifier;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 27, findings 1 and 2 at the file store (CONTRACT C19, C20): mallory's own valid signed
 * token wrote and deleted {@code victim/notes.md}, and every data file carried its writer's full
 * signed token, readable by anyone, which {@code writtenBy()} then {@code write(...)} replayed.
 */
class TokensActOnlyForTheirOwnKeyTest {
  @TempDir Path root;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @EnumSource(SignatureScheme.class)
  void anotherAccountsValidTokenNeitherWritesNorDeletesItsFiles(SignatureScheme scheme) {
    SigningKey signing = SigningKey.generate(scheme, "store-1");
    FencedFileStore store =
        FencedFileStore.open(
            root, TokenVerifier.signedBy(TokenKeySet.of(signing.verificationKey())));
    FencingToken victim = sign(signing, LeaseKey.of("victim", "chat"), 3);
    FencingToken mallory = sign(signing, LeaseKey.of("mallory", "own"), 50);
    store.write(victim, "victim/chat/notes.md", bytes("mine"));

    for (String path :
        new String[] {"victim/chat/notes.md", "victim/other/x.md", "notes.md", "mallory/x.md"}) {
      assertThatThrownBy(() -> store.write(mallory, path, bytes("overwritten")))
          .isInstanceOfSatisfying(
              TokenVerificationException.class,
              e -> assertThat(e.reason()).isEqualTo(TokenVerificationException.Reason.OUT_OF_SCOPE))
          .hasMessageContaining("mallory/own")
          .hasMessageContaining(path);
      assertThatThrownBy(() -> store.delete(mallory, path))
          .isInstanceOf(TokenVerificationException.class);
    }
    assertThatThrownBy(() -> store.write(mallory, "victim/chat/notes.md", bytes("x")))
        .hasMessageContaining("belongs to session victim/chat");
    assertThat(store.read("victim/chat/notes.md").orElseThrow().content()).isEqualTo(bytes("mine"));
    // Refused before any mark was touched: mallory's key has none, the victim's is unchanged.
    assertThat(store.highWaterMark(mallory.key())).isEmpty();
    assertThat(store.highWaterMark(victim.key())).hasValue(3);
    // Her own directory is hers.
    store.write(mallory, "mallory/own/x.md", bytes("fine"));
  }

  @Test
  void accountDirectoriesShareAnAccountsDirectoryAmongItsSessions() {
    FencedFileStore store =
        FencedFileStore.builder(root)
            .verifier(TokenVerifier.trustEveryWriter())
            .pathScope(PathScope.accountDirectories())
            .open();
    store.write(
        new FencingToken(LeaseKey.of("acct", "desktop"), 1, UUID.randomUUID()),
        "acct/plan.md",
        bytes("a"));
    store.write(
        new FencingToken(LeaseKey.of("acct", "browser"), 1, UUID.randomUUID()),
        "acct/plan.md",
        bytes("b"));
    assertThatThrownBy(
            () ->
                store.write(
                    new FencingToken(LeaseKey.of("other", "s"), 9, UUID.randomUUID()),
                    "acct/plan.md",
                    bytes("c")))
        .hasMessageContaining("belongs to account acct");
  }

  @Test
  void keysWhoseIdsCannotNameADirectoryOwnNoPath() {
    FencedFileStore store = FencedFileStore.open(root, TokenVerifier.trustEveryWriter());
    FencingToken slashed = new FencingToken(LeaseKey.of("a/b", "c"), 1, UUID.randomUUID());
    // "a/b/c/f" starts with "a/b/c/", but the account id "a/b" is not a directory name.
    assertThatThrownBy(() -> store.write(slashed, "a/b/c/f", bytes("x")))
        .isInstanceOf(TokenVerificationException.class);
  }

  @Test
  void dataFilesCarryNoSignatureAndAreOwnerOnly() throws Exception {
    SigningKey signing = SigningKey.generate(SignatureScheme.ED25519, "store-1");
    FencedFileStore store =
        FencedFileStore.builder(root)
            .verifier(TokenVerifier.signedBy(TokenKeySet.of(signing.verificationKey())))
            .auditLog(true)
            .open();
    FencingToken token = sign(signing, LeaseKey.of("acct", "chat"), 4);
    store.write(token, "acct/chat/a.md", bytes("a"));
    Path file = root.resolve("acct/chat/a.md");

    String attribute = attribute(file);
    assertThat(attribute).isEqualTo(token.unsigned().toText());
    assertThat(attribute).doesNotContain(token.signature().orElseThrow().value());
    FencingToken read = store.read("acct/chat/a.md").orElseThrow().writtenBy().orElseThrow();
    assertThat(read.isSigned()).isFalse();
    // What a reader of the file can copy is refused as a credential.
    assertThatThrownBy(() -> store.write(read, "acct/chat/a.md", bytes("replayed")))
        .isInstanceOfSatisfying(
            TokenVerificationException.class,
            e -> assertThat(e.reason()).isEqualTo(TokenVerificationException.Reason.UNSIGNED));
    assertThat(Files.readString(root.resolve(".leasehold/audit.log")))
        .doesNotContain(token.signature().orElseThrow().value());
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
  }

  @Test
  void theDataFileModeIsConfigurableButKeepsTheOwnersRights() throws Exception {
    FencedFileStore store =
        FencedFileStore.builder(root)
            .verifier(TokenVerifier.trustEveryWriter())
            .dataFileMode(PosixFilePermissions.fromString("rw-r-----"))
            .open();
    store.write(new FencingToken(LeaseKey.of("a", "s"), 1, UUID.randomUUID()), "a/s/f", bytes("x"));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve("a/s/f"))))
        .isEqualTo("rw-r-----");
    assertThatThrownBy(
            () ->
                FencedFileStore.builder(root)
                    .dataFileMode(PosixFilePermissions.fromString("r--------")))
        .hasMessageContaining("owner read and write");
  }

  private static FencingToken sign(SigningKey signing, LeaseKey key, long fence) {
    return signing.sign(
        new FencingToken(key, fence, UUID.randomUUID()), Clock.systemUTC(), Duration.ofMinutes(5));
  }

  private static String attribute(Path file) throws Exception {
    UserDefinedFileAttributeView view =
        Files.getFileAttributeView(
            file, UserDefinedFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    ByteBuffer buf = ByteBuffer.allocate(view.size(FencedFileStore.TOKEN_ATTRIBUTE));
    view.read(FencedFileStore.TOKEN_ATTRIBUTE, buf);
    buf.flip();
    return StandardCharsets.US_ASCII.decode(buf).toString();
  }
}
