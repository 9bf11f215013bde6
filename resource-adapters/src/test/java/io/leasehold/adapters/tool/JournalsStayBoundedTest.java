package io.leasehold.adapters.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 27, finding 7 (CONTRACT C21): a journal's file, memory and opening time follow its live
 * state, not its history. Before: a 2 GiB journal threw OutOfMemoryError at open, 100,000 calls
 * took 4.9 s to open and 8.7 ms per idempotent call (a scan of every call), and the file grew until
 * someone called {@code compact()}.
 */
class JournalsStayBoundedTest {
  private static final LeaseKey KEY = LeaseKey.of("acct", "chat-1");
  private static final FencingToken RUN = new FencingToken(KEY, 3, UUID.randomUUID());
  @TempDir Path dir;

  private static ToolCall intent(String tool, JsonNode args, Optional<String> idempotencyKey) {
    return TestTools.intent(UUID.randomUUID(), tool, RUN, args, idempotencyKey);
  }

  private static void callOnce(ToolJournal journal, JsonNode args, Optional<String> idem) {
    ToolCall call = intent("echo", args, idem);
    journal.intended(call);
    journal.admitAndStart(RUN, call.callId());
    journal.finished(call.callId(), JsonNodeFactory.instance.textNode("ok"));
  }

  @Test
  void aLongRunningFileJournalCompactsItselfSoTheFileFollowsTheLiveState() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    FileToolJournal journal =
        FileToolJournal.builder(file).compactAbove(16 * 1024).maxBytes(16 * 1024).build();
    JsonNode args = JsonNodeFactory.instance.objectNode().put("text", "x".repeat(200));
    long largest = 0;
    for (int i = 0; i < 400; i++) {
      callOnce(journal, args, Optional.empty());
      largest = Math.max(largest, Files.size(file));
    }
    // 400 calls write about 150 KiB of lines; the file never holds much more than its threshold.
    assertThat(largest).isLessThan(16 * 1024 + 2 * 1024);
    // And a journal with a small maxBytes still opens it: the file is under it.
    FileToolJournal reopened =
        FileToolJournal.builder(file).compactAbove(16 * 1024).maxBytes(16 * 1024).build();
    assertThat(reopened.highWaterMark(KEY)).hasValue(3);
  }

  @Test
  void anOversizedJournalIsRefusedAtOpenWithTheRepairAndLeftAsItWas() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    FileToolJournal journal =
        FileToolJournal.builder(file).compactAbove(1 << 20).maxBytes(1 << 20).build();
    JsonNode args = JsonNodeFactory.instance.objectNode().put("text", "x".repeat(200));
    for (int i = 0; i < 40; i++) {
      callOnce(journal, args, Optional.empty());
    }
    byte[] before = Files.readAllBytes(file);
    assertThat(before.length).isGreaterThan(8192);

    assertThatThrownBy(
            () -> FileToolJournal.builder(file).compactAbove(4096).maxBytes(8192).build())
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("over this journal's maxBytes of 8192")
        .hasMessageContaining("FileToolJournal.builder(file).maxBytes(...)");
    assertThat(Files.readAllBytes(file)).isEqualTo(before);

    // The repair the error gives: open once with a larger maxBytes; that compacts it.
    FileToolJournal.builder(file).compactAbove(4096).maxBytes(1 << 20).build();
    assertThat(Files.size(file)).isLessThan(8192);
    assertThat(
            FileToolJournal.builder(file)
                .compactAbove(4096)
                .maxBytes(8192)
                .build()
                .highWaterMark(KEY))
        .hasValue(3);
  }

  @Test
  void aLineLongerThanTheLimitIsDamageNotAnOutOfMemoryError() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    byte[] huge = new byte[FileToolJournal.MAX_LINE_BYTES + 1];
    Arrays.fill(huge, (byte) 'a');
    Files.write(file, huge); // no newline anywhere: the reader must not buffer it all
    assertThatThrownBy(() -> FileToolJournal.open(file))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("line 1 is damaged")
        .hasMessageContaining("longer than " + FileToolJournal.MAX_LINE_BYTES);
    assertThat(Files.size(file)).isEqualTo(huge.length); // not cut as if it were a torn line
  }

  @Test
  void anOverlongLineInAnOlderJournalsMarksFileIsDamageToo() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    Files.writeString(
        dir.resolve("tools.jsonl.marks"),
        "raise YQ Yg 3\n"); // the layout before the mark directory
    byte[] huge = new byte[FileToolJournal.MAX_LINE_BYTES + 1];
    Arrays.fill(huge, (byte) 'b');
    Files.write(dir.resolve("tools.jsonl.marks"), huge, java.nio.file.StandardOpenOption.APPEND);
    assertThatThrownBy(() -> FileToolJournal.open(file))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("tools.jsonl.marks line 2 is damaged");
  }

  @Test
  void argumentsTooLargeForOneLineAreRefusedBeforeAnythingIsWritten() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    FileToolJournal journal = FileToolJournal.open(file);
    journal.admit(RUN);
    long size = Files.size(file);
    JsonNode big = JsonNodeFactory.instance.textNode("y".repeat(FileToolJournal.MAX_LINE_BYTES));
    ToolCall call = intent("echo", big, Optional.empty());
    assertThatThrownBy(() -> journal.intended(call))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nothing was recorded")
        .hasMessageContaining("by reference");
    assertThat(Files.size(file)).isEqualTo(size);
    assertThat(journal.calls(KEY)).isEmpty();
  }

  @Test
  void settledCallsAreKeptOnlyUpToTheCapWhileCallsInDoubtAndIdempotentResultsStay() {
    MemoryToolJournal journal = new MemoryToolJournal();
    JsonNode args = JsonNodeFactory.instance.objectNode();
    callOnce(journal, args, Optional.of("invoice-1"));
    ToolCall inDoubt = intent("echo", args, Optional.empty());
    journal.intended(inDoubt);
    journal.admitAndStart(RUN, inDoubt.callId());
    for (int i = 0; i < JournalState.SETTLED_KEPT + 500; i++) {
      callOnce(journal, args, Optional.empty());
    }
    assertThat(journal.calls(KEY)).hasSize(JournalState.SETTLED_KEPT + 2);
    assertThat(journal.calls(KEY)).anyMatch(c -> c.callId().equals(inDoubt.callId()));
    assertThat(journal.finishedResult(KEY, "echo", "invoice-1"))
        .hasValue(JsonNodeFactory.instance.textNode("ok"));
  }

  @Test
  void theInFlightIndexFollowsEachCallFromStartedToFinished() {
    MemoryToolJournal journal = new MemoryToolJournal();
    JsonNode args = JsonNodeFactory.instance.objectNode();
    for (int i = 0; i < 2000; i++) {
      callOnce(journal, args, Optional.of("k-" + i));
    }
    ToolCall first = intent("echo", args, Optional.of("same"));
    journal.intended(first);
    journal.admitAndStart(RUN, first.callId());
    ToolCall second = intent("echo", args, Optional.of("same"));
    journal.intended(second);
    assertThatThrownBy(() -> journal.admitAndStart(RUN, second.callId()))
        .isInstanceOf(DuplicateCallException.class)
        .hasMessageContaining(first.callId().toString());
    journal.finished(first.callId(), JsonNodeFactory.instance.textNode("done"));
    // Once the first finished, it is no longer in flight: a third call starts.
    ToolCall third = intent("echo", args, Optional.of("same"));
    journal.intended(third);
    assertThat(journal.admitAndStart(RUN, third.callId()).token()).isEqualTo(RUN);
  }

  @Test
  void theFileJournalReadsItsFilesAsBytesSoMultiByteTextKeepsItsPosition() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    FileToolJournal journal = FileToolJournal.open(file);
    callOnce(
        journal, JsonNodeFactory.instance.objectNode().put("text", "grüße, 日本"), Optional.empty());
    FileToolJournal other = FileToolJournal.open(file);
    callOnce(other, JsonNodeFactory.instance.objectNode().put("text", "€"), Optional.empty());
    assertThat(journal.calls(KEY)).hasSize(2); // caught up from the exact byte offset
    assertThat(new String(Files.readAllBytes(file), StandardCharsets.UTF_8)).contains("日本");
  }
}
