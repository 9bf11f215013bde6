package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testkit.GuardHarness;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import javax.sql.DataSource;

/** The tool executor on the PostgreSQL journal, as a register; admissions in admission order. */
final class JdbcToolHarness implements GuardHarness {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final DataSource ds;
  private final Map<String, String> register;
  private final TokenVerifier verifier;
  private final JdbcToolJournal journal;
  private final FencedToolExecutor executor;

  JdbcToolHarness(DataSource ds, Map<String, String> register, TokenVerifier verifier) {
    this(ds, register, verifier, ToolScope.anyCall(), JdbcToolJournal.DEFAULT_LOCK_TIMEOUT);
  }

  JdbcToolHarness(DataSource ds, Map<String, String> register, TokenVerifier verifier, ToolScope scope, java.time.Duration lockTimeout) {
    this.ds = ds;
    this.register = register;
    this.verifier = verifier;
    this.journal = JdbcToolJournal.create(ds, ToolJournalSchema.defaults(), lockTimeout);
    this.executor =
        FencedToolExecutor.builder()
            .verifier(verifier)
            .scope(scope)
            .adminPolicy(AdminPolicy.operators(Set.of("ops")))
            .journal(journal)
            .tool(new RegisterTool(register))
            .tool(FencedTool.of("throw", a -> {
              throw io.leasehold.adapters.Sneaky.raise(toThrow);
            }))
            .build();
  }

  private static String name(LeaseKey key) {
    return key.accountId() + "\u0000" + key.sessionId();
  }

  @Override
  public io.leasehold.fencing.FenceGuard guard() {
    return executor;
  }

  @Override
  public void write(LeaseKey key, Fenced fenced, String value) {
    ObjectNode args = JSON.createObjectNode().put("key", name(key)).put("value", value);
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
    return Optional.ofNullable(register.get(name(key)));
  }

  @Override
  public OptionalLong mark(LeaseKey key) {
    return journal.highWaterMark(key);
  }

  @Override
  public GuardHarness reopen() {
    return new JdbcToolHarness(ds, register, verifier);
  }

  @Override
  public List<Long> admittedFences(LeaseKey key) {
    return journal.admittedFences(key);
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
    return journal.markResets();
  }
}
