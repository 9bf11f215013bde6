package io.leasehold.adapters.tool;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testkit.GuardHarness;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import javax.sql.DataSource;

/** The tool executor on the PostgreSQL journal, as a register; admissions in admission order. */
final class JdbcToolHarness extends RegisterToolHarness {
  private final DataSource ds;
  private final Map<String, String> register;
  private final TokenVerifier verifier;
  private final JdbcToolJournal journal;

  JdbcToolHarness(DataSource ds, Map<String, String> register, TokenVerifier verifier) {
    this(ds, register, verifier, ToolScope.anyCall(), JdbcToolJournal.DEFAULT_LOCK_TIMEOUT);
  }

  JdbcToolHarness(
      DataSource ds,
      Map<String, String> register,
      TokenVerifier verifier,
      ToolScope scope,
      Duration lockTimeout) {
    this(
        ds,
        register,
        verifier,
        scope,
        JdbcToolJournal.create(ds, ToolJournalSchema.defaults(), lockTimeout));
  }

  private JdbcToolHarness(
      DataSource ds,
      Map<String, String> register,
      TokenVerifier verifier,
      ToolScope scope,
      JdbcToolJournal journal) {
    super(register, verifier, scope, journal);
    this.ds = ds;
    this.register = register;
    this.verifier = verifier;
    this.journal = journal;
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
  public List<MarkReset> markResets() {
    return journal.markResets();
  }
}
