package io.leasehold.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.InMemoryFenceGuard;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testing.TestDatabaseExtension;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The resource owners' samples run, not only compile. */
class ResourceOwnerExamplesTest {
  @RegisterExtension static final TestDatabaseExtension db = TestDatabaseExtension.empty();
  @TempDir Path dir;

  private final FencingToken token =
      new FencingToken(LeaseKey.of("acct-7", "chat-1"), 42, UUID.randomUUID());

  @Test
  void samplesRun() throws Exception {
    assertThat(ResourceOwnerExamples.postNote(token)).isEqualTo("hello");
    InMemoryFenceGuard guard = InMemoryFenceGuard.create(TokenVerifier.trustEveryWriter());
    assertThat(ResourceOwnerExamples.handleRequest(token.toText(), guard)).isEqualTo(200);
    FencingToken older = new FencingToken(token.key(), 41, UUID.randomUUID());
    assertThat(ResourceOwnerExamples.handleRequest(older.toText(), guard)).isEqualTo(409);
    assertThat(ResourceOwnerExamples.handleRequest("lh2.x", guard)).isEqualTo(400);
    assertThat(ResourceOwnerExamples.fileStore(token, dir.resolve("files"))).isEqualTo(token);
    assertThat(ResourceOwnerExamples.toolExecutor(token, dir.resolve("tools.jsonl"))).isEmpty();
    db.database().execute("CREATE TABLE messages (session_id text, fence bigint, body text)");
    assertThat(ResourceOwnerExamples.jdbcWriter(token, db.dataSource())).isEqualTo(1);
    assertThat(ResourceOwnerExamples.tokenForms(token)).isEqualTo(token);
  }
}
