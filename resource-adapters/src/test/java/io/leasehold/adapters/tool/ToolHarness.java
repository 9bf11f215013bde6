package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testkit.GuardHarness;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The tool executor on the file journal, as a register; the journal's STARTED records as the
 * admission log.
 */
public final class ToolHarness extends RegisterToolHarness {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Path journalFile;
  private final Map<String, String> register;
  private final TokenVerifier verifier;
  private final ToolScope scope;
  private final Duration lockTimeout;

  public ToolHarness(Path journalFile, Map<String, String> register) {
    this(journalFile, register, TokenVerifier.trustEveryWriter());
  }

  public ToolHarness(Path journalFile, Map<String, String> register, TokenVerifier verifier) {
    this(journalFile, register, verifier, ToolScope.anyCall(), Duration.ofSeconds(30));
  }

  public ToolHarness(
      Path journalFile,
      Map<String, String> register,
      TokenVerifier verifier,
      ToolScope scope,
      Duration lockTimeout) {
    super(
        register,
        verifier,
        scope,
        FileToolJournal.builder(journalFile).lockTimeout(lockTimeout).build());
    this.journalFile = journalFile;
    this.register = register;
    this.verifier = verifier;
    this.scope = scope;
    this.lockTimeout = lockTimeout;
  }

  /** The journal file. */
  public Path journalFile() {
    return journalFile;
  }

  @Override
  public OptionalLong mark(LeaseKey key) {
    return FileToolJournal.open(journalFile).highWaterMark(key);
  }

  @Override
  public GuardHarness reopen() {
    return new ToolHarness(journalFile, register, verifier, scope, lockTimeout);
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
  public List<MarkReset> markResets() {
    return FileToolJournal.open(journalFile).markResets();
  }
}
