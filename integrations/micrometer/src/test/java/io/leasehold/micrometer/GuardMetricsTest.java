package io.leasehold.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.adapters.jdbc.FencedJdbcWriter;
import io.leasehold.adapters.tool.FencedTool;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.MemoryToolJournal;
import io.leasehold.adapters.tool.ToolCallFailedException;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.GuardListener;
import io.leasehold.fencing.InMemoryFenceGuard;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenVerificationException;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testing.TestDatabaseExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Guard decisions, counted by resource and reason, from real guards. */
class GuardMetricsTest {
  @RegisterExtension
  static final TestDatabaseExtension db = TestDatabaseExtension.withTemplate("plain", ds -> {});

  private static final LeaseKey KEY = LeaseKey.of("acct", "guarded");
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final GuardListener listener = LeaseholdMetrics.guardListener(registry);

  private double admitted(String resource) {
    var c = registry.find("leasehold.guard.admissions").tag("resource", resource).counter();
    return c == null ? 0 : c.count();
  }

  private double rejected(String resource, String reason) {
    var c =
        registry
            .find("leasehold.guard.rejections")
            .tags("resource", resource, "reason", reason)
            .counter();
    return c == null ? 0 : c.count();
  }

  /** The action is refused with {@code type}, counted once as {@code reason}, and none admitted. */
  private void assertRefusedAndCounted(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable action,
      Class<? extends Throwable> type,
      String resource,
      String reason) {
    assertThatThrownBy(action).isInstanceOf(type);
    assertThat(rejected(resource, reason)).isEqualTo(1.0);
    assertThat(admitted(resource)).isZero();
  }

  @Test
  void fileStoreAdmissionsAndStaleWrites(@TempDir Path root) {
    FencedFileStore files =
        FencedFileStore.builder(root)
            .verifier(TokenVerifier.trustEveryWriter())
            .listener(listener)
            .open();
    FencingToken older = new FencingToken(KEY, 1, UUID.randomUUID());
    FencingToken newer = new FencingToken(KEY, 2, UUID.randomUUID());
    files.write(older, "acct/guarded/a.txt", "1".getBytes(StandardCharsets.UTF_8));
    files.write(newer, "acct/guarded/a.txt", "2".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(
            () -> files.write(older, "acct/guarded/a.txt", "x".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(StaleFenceException.class);
    // The caller's own error is not a decision.
    assertThatThrownBy(() -> files.write(newer, "../escape", new byte[0]))
        .isInstanceOf(IllegalArgumentException.class);

    assertThat(admitted("file")).isEqualTo(2.0);
    assertThat(rejected("file", "stale")).isEqualTo(1.0);
    assertThat(registry.find("leasehold.guard.rejections").counters()).hasSize(1);
  }

  @Test
  void anUnsignedTokenIsCountedAsUnverified() {
    SigningKey key = SigningKey.generate(SignatureScheme.values()[0], "k1");
    InMemoryFenceGuard guard =
        InMemoryFenceGuard.builder()
            .verifier(TokenVerifier.signedBy(TokenKeySet.of(key.verificationKey())))
            .listener(listener)
            .build();
    assertRefusedAndCounted(
        () -> guard.admit(new FencingToken(KEY, 5, UUID.randomUUID())),
        TokenVerificationException.class,
        "memory",
        "unverified");
  }

  @Test
  void aToolThatThrowsWasAdmittedAndAMissingTableFailsClosed() {
    FencedToolExecutor tools =
        FencedToolExecutor.builder()
            .verifier(TokenVerifier.trustEveryWriter())
            .journal(new MemoryToolJournal())
            .tool(
                FencedTool.of(
                    "boom",
                    args -> {
                      throw new IllegalStateException("the tool's own failure");
                    }))
            .listener(listener)
            .build();
    assertThatThrownBy(
            () ->
                tools.call(
                    new FencingToken(KEY, 3, UUID.randomUUID()),
                    "boom",
                    JsonNodeFactory.instance.objectNode()))
        .isInstanceOf(ToolCallFailedException.class);
    assertThat(admitted("tool")).isEqualTo(1.0);

    // No high-water table in this database: the writer cannot prove the write safe.
    FencedJdbcWriter writer =
        FencedJdbcWriter.builder(db.dataSource())
            .verifier(TokenVerifier.trustEveryWriter())
            .listener(listener)
            .build();
    assertRefusedAndCounted(
        () -> writer.write(new FencingToken(KEY, 3, UUID.randomUUID()), (c, t) -> 1),
        ResourceAccessException.class,
        "jdbc",
        "fail_closed");
  }

  @Test
  void aListenerThatThrowsChangesNoDecision() {
    GuardListener broken =
        (resource, decision) -> {
          throw new IllegalStateException("broken listener");
        };
    InMemoryFenceGuard guard =
        InMemoryFenceGuard.builder()
            .verifier(TokenVerifier.trustEveryWriter())
            .listener(broken)
            .build();
    assertThat(guard.runFenced(new FencingToken(KEY, 7, UUID.randomUUID()), () -> "written"))
        .isEqualTo("written");
    assertThatThrownBy(() -> guard.admit(new FencingToken(KEY, 6, UUID.randomUUID())))
        .isInstanceOf(StaleFenceException.class);
    assertThat(guard.highWaterMark(KEY)).hasValue(7);
  }
}
