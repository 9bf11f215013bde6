package io.leasehold.adapters.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.adapters.file.FileHarness;
import io.leasehold.adapters.jdbc.FencedJdbcWriter;
import io.leasehold.adapters.jdbc.JdbcTestSchema;
import io.leasehold.adapters.tool.FencedTool;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.FileToolJournal;
import io.leasehold.adapters.tool.TestTools;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testing.TestDatabaseExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The shell command of the recovery procedure (docs/security.md), on each persistent guard. */
class ResetMarkCommandTest {
  @RegisterExtension static final TestDatabaseExtension db = JdbcTestSchema.extension();
  private static final LeaseKey KEY = LeaseKey.of("acct-7", "chat-1");

  @TempDir Path dir;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(List<String> args) {
    return ResetMarkCommand.run(
        args.toArray(String[]::new),
        "alice",
        Map.of("LEASEHOLD_JDBC_PASSWORD", db.database().server().password()),
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  /**
   * Issue 27, finding 10: the command recorded the {@code user.name} property, which {@code
   * -Duser.name=...} sets to anyone. The operator now comes from the operating system's account of
   * the process.
   */
  @Test
  void theOperatorIsTheOperatingSystemsUserNotAClaimedName() {
    String before = System.getProperty("user.name");
    try {
      System.setProperty("user.name", "someone-else");
      String user = ResetMarkCommand.operatingSystemUser().orElseThrow();
      assertThat(user).isNotEqualTo("someone-else").isNotBlank();
      assertThat(user).isEqualTo(ProcessHandle.current().info().user().orElseThrow());
    } finally {
      System.setProperty("user.name", before);
    }
  }

  /** The same through the real command line: {@code -Duser.name=mallory} is not recorded. */
  @Test
  void theShellCommandRecordsTheRealUserWhateverUserNameClaims() throws Exception {
    Path root = dir.resolve("claimed");
    FencedFileStore files = storeWithAForgedMark(root);
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Duser.name=mallory",
                "-cp",
                System.getProperty("java.class.path"),
                ResetMarkCommand.class.getName()));
    command.addAll(resetArgs("12", "incident 8", "--file-store", root.toString()));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(output).isZero();
    assertThat(files.markResets())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.operator()).isNotEqualTo("mallory");
              assertThat(r.operator())
                  .isEqualTo(ProcessHandle.current().info().user().orElseThrow());
            });
  }

  private static FencingToken forged() {
    return new FencingToken(KEY, Long.MAX_VALUE, UUID.randomUUID());
  }

  /** A file store at {@code root} that admitted a forged token with the highest fence there is. */
  private static FencedFileStore storeWithAForgedMark(Path root) {
    FencedFileStore files = FileHarness.anyPathStore(root).open();
    files.write(forged(), "chat-1/a.md", new byte[] {1});
    return files;
  }

  /** After {@code target}: the options naming {@link #KEY}, its new mark and (unless null) why. */
  private static List<String> resetArgs(String mark, String reason, String... target) {
    List<String> args = new ArrayList<>(List.of(target));
    args.addAll(List.of("--account", "acct-7", "--session", "chat-1", "--mark", mark));
    if (reason != null) {
      args.addAll(List.of("--reason", reason));
    }
    return args;
  }

  @Test
  void resetsAFileStoreMark() {
    Path root = dir.resolve("files");
    FencedFileStore files = storeWithAForgedMark(root);
    assertThat(run(resetArgs("12", "forged token, incident 7", "--file-store", root.toString())))
        .isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("from 9223372036854775807 to 12 by alice");
    assertThat(files.highWaterMark(KEY)).hasValue(12);
    List<MarkReset> resets = files.markResets();
    assertThat(resets)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.operator()).isEqualTo("alice");
              assertThat(r.reason()).isEqualTo("forged token, incident 7");
            });
  }

  @Test
  void resetsAToolJournalMark() {
    Path journal = dir.resolve("tools.jsonl");
    FencedToolExecutor tools =
        TestTools.trustingExecutor(FileToolJournal.open(journal))
            .tool(FencedTool.of("echo", a -> a))
            .build();
    tools.call(forged(), "echo", com.fasterxml.jackson.databind.node.NullNode.getInstance());
    assertThat(run(resetArgs("0", "leaked key", "--tool-journal", journal.toString()))).isZero();
    assertThat(FileToolJournal.open(journal).highWaterMark(KEY)).isEmpty();
    assertThat(FileToolJournal.open(journal).markResets())
        .singleElement()
        .satisfies(r -> assertThat(r.previousMark()).isEqualTo(Long.MAX_VALUE));
  }

  @Test
  void resetsADatabaseWriterMark() {
    FencedJdbcWriter writer =
        FencedJdbcWriter.builder(db.dataSource())
            .verifier(TokenVerifier.trustEveryWriter())
            .build();
    writer.write(forged(), (c, t) -> null);
    assertThat(
            run(
                resetArgs(
                    "5",
                    "forged",
                    "--jdbc-url",
                    db.database().jdbcUrl(),
                    "--jdbc-user",
                    db.database().server().user())))
        .isZero();
    assertThat(writer.highWaterMark(KEY)).hasValue(5);
  }

  @Test
  void badArgumentsChangeNothingAndSayHow() {
    Path root = dir.resolve("files");
    FencedFileStore files = storeWithAForgedMark(root);
    assertThat(run(resetArgs("12", null, "--file-store", root.toString()))).isEqualTo(2);
    assertThat(run(resetArgs("12", "r", "--file-store", root.toString(), "--tool-journal", "x")))
        .isEqualTo(2);
    assertThat(run(resetArgs("-3", "r", "--file-store", root.toString()))).isEqualTo(1);
    assertThat(run(List.of("--frobnicate", "1"))).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("usage: ResetMarkCommand", "reason must not be blank");
    assertThat(files.highWaterMark(KEY)).hasValue(Long.MAX_VALUE);
    assertThat(files.markResets()).isEmpty();
  }
}
