package io.leasehold.examples.web;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.adapters.file.FileOperation;
import io.leasehold.adapters.tool.FencedTool;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.MemoryToolJournal;
import io.leasehold.adapters.tool.ToolCall;
import io.leasehold.examples.demo.MessageTable;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerificationException;
import io.leasehold.fencing.TokenVerifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * The web demo's three fenced resources, and the log of every write attempt the pages show.
 *
 * <p>Issue 46: the log used to be appended after a write returned, so two devices' entries could be
 * listed in another order than the one a resource admitted them in, and a late write a resource
 * rightly admitted (the new run had not written there yet) looked like a stale write admitted after
 * a newer one. Each attempt is now presented and numbered under a lock of its resource: the number
 * ({@link WriteLog#seq()}) is the order in which the resources decided, and the page sorts by it.
 */
final class WebResources {
  static final List<String> ADAPTERS = List.of("file store", "tool", "database");
  static final String FILE = "acct-7/chat-1/answer.md";

  /**
   * One write attempt, as the pages show it.
   *
   * @param seq the order of the decision among all the resources' decisions (each resource decides
   *     one attempt at a time, so within a resource this is its admission order)
   * @param device who wrote
   * @param adapter which resource
   * @param fence the fence presented
   * @param admitted whether the resource admitted it
   * @param late whether it was a frozen run's request delivered after waking
   * @param highestBefore the highest fence the resource had admitted for the session before this
   *     decision (0 if none)
   * @param outcome the words the page shows
   */
  record WriteLog(
      long seq,
      String device,
      String adapter,
      long fence,
      boolean admitted,
      boolean late,
      long highestBefore,
      String outcome) {}

  private final FencedFileStore files;
  private final MemoryToolJournal journal = new MemoryToolJournal();
  private final FencedToolExecutor tools;
  private final MessageTable messages;
  private final List<WriteLog> log = new ArrayList<>();
  private final Consumer<WriteLog> onLog;

  /** Per resource: its lock, and the highest fence it admitted (guarded by that lock). */
  private final Map<String, long[]> highest =
      Map.of("file store", new long[1], "tool", new long[1], "database", new long[1]);

  private long seq;

  WebResources(Path dir, DataSource ds, TokenVerifier verifier, Consumer<WriteLog> onLog) {
    this.onLog = onLog;
    // The audit log is the file store's own record of its admissions, in order.
    this.files =
        FencedFileStore.builder(dir.resolve("files")).verifier(verifier).auditLog(true).open();
    FencedTool post =
        FencedTool.of("post_message", args -> JsonNodeFactory.instance.textNode("posted"));
    this.tools =
        FencedToolExecutor.builder().verifier(verifier).journal(journal).tool(post).build();
    this.messages =
        new MessageTable(
            ds,
            verifier,
            "CREATE TABLE IF NOT EXISTS web_messages (id bigserial PRIMARY KEY, device text, fence bigint, body text)");
    // A database kept from an earlier start of the demo may hold a mark already.
    highest.get("database")[0] = messages.writer().highWaterMark(WebDemo.SESSION).orElse(0);
  }

  /**
   * Presents one write to a resource and records the resource's decision. The resource decides
   * under its lock here, so the log's numbers follow each resource's own admission order.
   *
   * @param fence the fence {@code fenced} carries, for the log
   * @return the entry
   */
  WriteLog attempt(
      String adapter, Fenced fenced, long fence, String device, String text, boolean late) {
    WriteLog entry;
    long[] mark = highest.get(adapter);
    synchronized (mark) {
      long before = mark[0];
      boolean admitted = false;
      String outcome;
      try {
        write(adapter, fenced, device, text);
        admitted = true;
        mark[0] = Math.max(before, fence);
        outcome =
            !late
                ? "admitted"
                : "late write admitted: the "
                    + adapter
                    + " had admitted no newer fence (highest "
                    + before
                    + "), because the new run has not written to it yet";
      } catch (StaleFenceException e) {
        outcome =
            "REFUSED: presented fence " + e.presentedFence() + " < highest " + e.highestFence();
      } catch (LeaseLostException e) {
        outcome = "REFUSED locally: the lease is known lost";
      } catch (TokenVerificationException e) {
        // A late token can also have outlived its validity window (a run's first token, held
        // frozen for longer than the TTL and the allowed clock skew).
        outcome =
            "REFUSED: token "
                + e.reason().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
      } catch (RuntimeException e) {
        outcome = "failed: " + e.getMessage();
      }
      synchronized (log) {
        entry = new WriteLog(++seq, device, adapter, fence, admitted, late, before, outcome);
        log.add(entry);
      }
    }
    onLog.accept(entry);
    return entry;
  }

  private void write(String adapter, Fenced fenced, String device, String text) {
    switch (adapter) {
      case "file store" -> files.write(fenced, FILE, text.getBytes(StandardCharsets.UTF_8));
      case "tool" ->
          tools.call(
              fenced, "post_message", JsonNodeFactory.instance.objectNode().put("text", text));
      default ->
          messages.insert(
              fenced,
              "INSERT INTO web_messages (device, fence, body) VALUES (?, ?, ?)",
              token -> List.of(device, token.fence(), text));
    }
  }

  /** Every attempt so far, in the order the resources decided. */
  List<WriteLog> entries() {
    synchronized (log) {
      List<WriteLog> sorted = new ArrayList<>(log);
      sorted.sort(Comparator.comparingLong(WriteLog::seq));
      return sorted;
    }
  }

  /**
   * The fences each resource admitted, in its own order, from its own records: the file store's
   * audit log (appended under the store's lock), the tool journal's admitted calls (listed in the
   * order they were recorded, which is their admission order because this class presents one call
   * at a time), the database rows by their sequence number (taken inside the admitted transaction,
   * which holds the mark's row lock). For tests.
   */
  Map<String, List<Long>> admittedByResource() {
    List<Long> file = new ArrayList<>();
    for (FileOperation op : files.auditLog()) {
      file.add(op.admission().token().fence());
    }
    List<Long> tool = new ArrayList<>();
    for (ToolCall call : journal.calls(WebDemo.SESSION)) {
      if (call.state() != ToolCall.State.REFUSED && call.state() != ToolCall.State.INTENDED) {
        tool.add(call.token().fence());
      }
    }
    List<Long> rows =
        messages.query("SELECT fence FROM web_messages ORDER BY id", rs -> rs.getLong(1));
    return Map.of("file store", file, "tool", tool, "database", rows);
  }
}
