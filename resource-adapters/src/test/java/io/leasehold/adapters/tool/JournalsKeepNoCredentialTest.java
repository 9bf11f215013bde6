package io.leasehold.adapters.tool;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testing.TestDatabaseExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 27, finding 2 (CONTRACT C20): the journals held every call's full signed token, so whoever
 * could read a journal file or table held a credential to replay. They now keep the run's unsigned
 * token: fence, run and key, never the signature.
 */
class JournalsKeepNoCredentialTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate(
          "tool_journal_credential", ds -> ToolJournalSchema.defaults().apply(ds));

  @TempDir Path dir;
  private final SigningKey signing = SigningKey.generate(SignatureScheme.ED25519, "store-1");
  private final FencingToken token =
      signing.sign(
          new FencingToken(LeaseKey.of("acct", "chat-" + UUID.randomUUID()), 7, UUID.randomUUID()),
          Clock.systemUTC(),
          Duration.ofMinutes(5));

  private FencedToolExecutor executor(ToolJournal journal) {
    return FencedToolExecutor.builder()
        .verifier(TokenVerifier.signedBy(TokenKeySet.of(signing.verificationKey())))
        .journal(journal)
        .tool(FencedTool.of("send", args -> JsonNodeFactory.instance.textNode("sent")))
        .build();
  }

  @Test
  void theFileJournalKeepsNoSignature() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    FencedToolExecutor tools = executor(FileToolJournal.open(file));
    tools.call(token, "send", JsonNodeFactory.instance.objectNode());
    String signature = token.signature().orElseThrow().value();
    assertThat(Files.readString(file))
        .contains(token.unsigned().toText())
        .doesNotContain(signature);
    assertThat(FileToolJournal.open(file).calls(token.key()).get(0).token().isSigned()).isFalse();
  }

  @Test
  void thePostgresJournalKeepsNoSignature() throws Exception {
    FencedToolExecutor tools = executor(JdbcToolJournal.create(db.dataSource()));
    tools.call(token, "send", JsonNodeFactory.instance.objectNode());
    try (Connection c = db.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT token FROM leasehold_tool_call WHERE session_id = '"
                    + token.key().sessionId()
                    + "'")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo(token.unsigned().toText());
    }
    assertThat(tools.calls(token.key()).get(0).token().isSigned()).isFalse();
  }
}
