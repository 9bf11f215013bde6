package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.adapters.Harness;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The tool executor as a register: a tool that sets a value in a map, and the journal's STARTED
 * records as the admission log.
 */
public final class ToolHarness implements Harness {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Path journalFile;
  private final Map<String, String> register;
  private final FencedToolExecutor executor;

  public ToolHarness(Path journalFile, Map<String, String> register) {
    this.journalFile = journalFile;
    this.register = register;
    this.executor =
        FencedToolExecutor.builder()
            .journal(FileToolJournal.open(journalFile))
            .tool(new RegisterTool(register))
            .build();
  }

  @Override
  public void write(LeaseKey key, Fenced fenced, String value) {
    ObjectNode args = JSON.createObjectNode().put("key", key.toString()).put("value", value);
    executor.call(fenced, "set", args);
  }

  @Override
  public Optional<String> value(LeaseKey key) {
    return Optional.ofNullable(register.get(key.toString()));
  }

  @Override
  public OptionalLong mark(LeaseKey key) {
    return FileToolJournal.open(journalFile).highWaterMark(key);
  }

  @Override
  public Harness reopen() {
    return new ToolHarness(journalFile, register);
  }

  /** The journal's STARTED records, in file order: the admission order. */
  @Override
  public List<Long> admittedFences(LeaseKey key) {
    List<Long> out = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(journalFile)) {
        JsonNode n = JSON.readTree(line);
        if (n.get("event").asText().equals("started")) {
          FencingToken t = FencingToken.parse(n.get("token").asText());
          if (t.key().equals(key)) {
            out.add(t.fence());
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  @Override
  public boolean finalValueFollowsHighestFence() {
    return false; // an admitted older call may finish after a newer one (CONTRACT C12)
  }
}
