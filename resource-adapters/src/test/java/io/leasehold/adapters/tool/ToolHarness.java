package io.leasehold.adapters.tool;

import io.leasehold.fencing.TokenVerifier;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.testkit.GuardHarness;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.MarkReset;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The tool executor as a register: a tool that sets a value in a map, and the journal's STARTED
 * records as the admission log.
 */
public final class ToolHarness implements GuardHarness {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Path journalFile;
  private final Map<String, String> register;
  private final FencedToolExecutor executor;

  private final TokenVerifier verifier;

  public ToolHarness(Path journalFile, Map<String, String> register) {
    this(journalFile, register, TokenVerifier.trustEveryWriter());
  }

  public ToolHarness(Path journalFile, Map<String, String> register, TokenVerifier verifier) {
    this(journalFile, register, verifier, ToolScope.anyCall(), java.time.Duration.ofSeconds(30));
  }

  /**
   * The scope of CONTRACT C19 for the register tool: its {@code key} argument must be the token's
   * own key.
   */
  public static final ToolScope OWN_REGISTER =
      new ToolScope() {
        @Override
        public boolean permits(LeaseKey key, String tool, JsonNode arguments) {
          return !tool.equals("set") || arguments.path("key").asText().equals(key.accountId() + "\u0000" + key.sessionId());
        }

        @Override
        public String ownerOf(String tool, JsonNode arguments) {
          return "register " + arguments.path("key").asText().replace('\u0000', '/');
        }
      };

  private final ToolScope scope;
  private final java.time.Duration lockTimeout;

  public ToolHarness(Path journalFile, Map<String, String> register, TokenVerifier verifier, ToolScope scope, java.time.Duration lockTimeout) {
    this.journalFile = journalFile;
    this.register = register;
    this.verifier = verifier;
    this.scope = scope;
    this.lockTimeout = lockTimeout;
    this.executor =
        FencedToolExecutor.builder()
            .verifier(verifier)
            .scope(scope)
            .adminPolicy(AdminPolicy.operators(Set.of("ops")))
            .journal(FileToolJournal.builder(journalFile).lockTimeout(lockTimeout).build())
            .tool(new RegisterTool(register))
            .tool(FencedTool.of("throw", a -> {
              throw io.leasehold.adapters.Sneaky.raise(toThrow);
            }))
            .build();
  }

  /** The journal file. */
  public Path journalFile() {
    return journalFile;
  }

  @Override
  public io.leasehold.fencing.FenceGuard guard() {
    return executor;
  }

  @Override
  public void write(LeaseKey key, Fenced fenced, String value) {
    ObjectNode args = JSON.createObjectNode().put("key", key.accountId() + "\u0000" + key.sessionId()).put("value", value);
    executor.call(fenced, "set", args);
  }

  private volatile Throwable toThrow;

  /** A call of a tool that throws {@code thrown} before it changes anything. */
  public void writeThrowing(LeaseKey key, io.leasehold.fencing.FencingToken token, Throwable thrown) {
    toThrow = thrown;
    executor.call(token, "throw", JSON.createObjectNode().put("key", key.accountId()));
  }

  @Override
  public Optional<String> value(LeaseKey key) {
    return Optional.ofNullable(register.get(key.accountId() + "\u0000" + key.sessionId()));
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
  public boolean finalValueFollowsHighestFence() {
    return false; // an admitted older call may finish after a newer one (CONTRACT C12)
  }

  @Override
  public MarkReset resetMark(LeaseKey key, long newMark, String operator, String reason) {
    return executor.resetMark(key, newMark, operator, reason);
  }

  @Override
  public List<MarkReset> markResets() {
    return FileToolJournal.open(journalFile).markResets();
  }
}
