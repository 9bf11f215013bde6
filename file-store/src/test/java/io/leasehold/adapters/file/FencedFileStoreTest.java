package io.leasehold.adapters.file;

import static io.leasehold.adapters.file.FileHarness.anyPathStore;
import static io.leasehold.fencing.Refusal.Reason.FORGED;
import static io.leasehold.fencing.Refusal.Reason.SUPERSEDED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.GuardListener;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.Refusal;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerificationException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file store's own behaviour beyond the guard contract: paths, deletes, attribution. */
class FencedFileStoreTest {
  @TempDir Path dir;

  private final LeaseKey key = LeaseKey.of("acct", "chat");

  private FencingToken token(long fence) {
    return new FencingToken(key, fence, UUID.randomUUID());
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void readersSeeWhichFenceWroteAFileAndFilesKeepPlainContent() throws Exception {
    FencedFileStore store = anyPathStore(dir.resolve("root")).open();
    FencingToken t = token(3);
    FileOperation op = store.write(t, "chat/answer.md", bytes("# hello"));
    assertThat(op.existed()).isFalse();
    assertThat(op.admission().raisedMark()).isTrue();
    StoredFile file = store.read("chat/answer.md").orElseThrow();
    assertThat(file.writtenBy()).contains(t);
    assertThat(new String(file.content(), StandardCharsets.UTF_8)).isEqualTo("# hello");
    assertThat(Files.readString(store.root().resolve("chat/answer.md"))).isEqualTo("# hello");
    assertThat(store.write(t, "chat/answer.md", bytes("v2")).existed()).isTrue();
  }

  @Test
  void deleteIsFencedToo() {
    FencedFileStore store = anyPathStore(dir.resolve("root")).open();
    store.write(token(2), "f.txt", bytes("x"));
    store.write(token(5), "g.txt", bytes("y"));
    assertThatThrownBy(() -> store.delete(token(4), "f.txt"))
        .isInstanceOf(StaleFenceException.class);
    assertThat(store.read("f.txt")).isPresent();
    assertThat(store.delete(token(5), "f.txt").existed()).isTrue();
    assertThat(store.read("f.txt")).isEmpty();
    assertThat(store.delete(token(6), "f.txt").existed()).isFalse();
    assertThat(store.highWaterMark(key)).hasValue(6);
  }

  @Test
  void pathsThatLeaveTheRootAreRefusedAndNothingIsWritten() throws Exception {
    Path root = dir.resolve("root");
    Path outside = Files.createDirectories(dir.resolve("outside"));
    FencedFileStore store = anyPathStore(root).open();
    Files.createSymbolicLink(root.resolve("escape"), outside);
    Files.writeString(outside.resolve("secret.txt"), "secret");
    Files.createSymbolicLink(root.resolve("link.txt"), outside.resolve("secret.txt"));

    for (String bad :
        List.of(
            "../x.txt",
            "/etc/passwd",
            "a/../../x.txt",
            "a/./b.txt",
            "a//b.txt",
            "a\\b.txt",
            "dir/",
            "",
            ".leasehold/marks/evil",
            "nul\u0000byte",
            "escape/secret.txt",
            "escape/new.txt")) {
      assertThatThrownBy(() -> store.write(token(9), bad, bytes("pwned")))
          .as("path %s", bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> store.read("link.txt")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.delete(token(9), "link.txt"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.read("escape/secret.txt"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.write(token(9), "a", null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.write(token(9), null, bytes("x")))
        .isInstanceOf(IllegalArgumentException.class);

    try (Stream<Path> files = Files.list(outside)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("secret.txt");
    }
    assertThat(Files.readString(outside.resolve("secret.txt"))).isEqualTo("secret");
    assertThat(store.highWaterMark(key)).as("refused input raised no mark").isEmpty();
  }

  /**
   * Red team 47, B2 and B3: a listener that throws Errors never turns a done write into a failure
   * nor a refusal into its own error, and it hears each refusal with the key and fence read.
   */
  @Test
  void aListenerThatThrowsErrorsChangesNoOutcomeAndHearsTheKeyOfEachRefusal() {
    List<Refusal> heard = new ArrayList<>();
    GuardListener broken =
        new GuardListener() {
          @Override
          public void decided(String resource, Decision decision) {
            throw new StackOverflowError("listener recursion");
          }

          @Override
          public void refused(String resource, Refusal refusal) {
            heard.add(refusal);
            throw new AssertionError("listener assertion");
          }
        };
    FencedFileStore store = anyPathStore(dir.resolve("root")).listener(broken).open();
    assertThat(store.write(token(5), "f.txt", bytes("five")).existed()).isFalse();
    assertThatThrownBy(() -> store.write(token(4), "f.txt", bytes("four")))
        .isInstanceOf(StaleFenceException.class)
        .satisfies(e -> assertThat(e.getSuppressed()).hasSize(2));
    FencedFileStore refusing =
        anyPathStore(dir.resolve("root"))
            .listener(broken)
            .verifier(
                t -> {
                  throw new TokenVerificationException(
                      TokenVerificationException.Reason.BAD_SIGNATURE, "not ours");
                })
            .open();
    assertThatThrownBy(() -> refusing.write(token(6), "f.txt", bytes("six")))
        .isInstanceOf(TokenVerificationException.class);
    assertThat(store.read("f.txt").orElseThrow().content()).isEqualTo(bytes("five"));
    assertThat(heard).extracting(Refusal::reason).containsExactly(SUPERSEDED, FORGED);
    assertThat(heard).allSatisfy(r -> assertThat(r.key()).contains(key));
    assertThat(heard).extracting(r -> r.fence().getAsLong()).containsExactly(4L, 6L);
  }

  @Test
  void malformedTokenTextNeverReachesTheStore() {
    FencedFileStore store = anyPathStore(dir.resolve("root")).open();
    assertThatThrownBy(
            () -> store.write(FencingToken.parse("lh2.7.not-a-uuid.YQ.cw"), "x", bytes("x")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store.read("x")).isEmpty();
  }

  @Test
  void twoInstancesOnOneRootShareTheMark() {
    FencedFileStore a = anyPathStore(dir.resolve("root")).open();
    FencedFileStore b = anyPathStore(dir.resolve("root")).open();
    a.write(token(10), "f", bytes("a"));
    assertThatThrownBy(() -> b.write(token(9), "f", bytes("b")))
        .isInstanceOf(StaleFenceException.class);
    assertThat(b.highWaterMark(key)).hasValue(10);
  }

  @Test
  void aRootThatCannotBeUsedSaysWhyAndANullLeaseIsNamed() throws Exception {
    // A regular file where the root should be: the reason must be in the message, not only in
    // the cause.
    java.nio.file.Path file = java.nio.file.Files.writeString(dir.resolve("a-file"), "x");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> anyPathStore(file.resolve("root")).open())
        .isInstanceOf(io.leasehold.adapters.ResourceAccessException.class)
        .hasMessageContaining("Exception on " + file)
        .hasMessageContaining("root must be a directory");

    FencedFileStore store = anyPathStore(dir.resolve("root")).open();
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> store.write(null, "f.txt", new byte[] {1}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lease (or token) presented must not be null");
  }
}
