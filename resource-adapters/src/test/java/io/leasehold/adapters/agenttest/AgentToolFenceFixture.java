package io.leasehold.adapters.agenttest;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.agent.RunStop;
import io.leasehold.adapters.agent.SessionLeases;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.JdbcToolJournal;
import io.leasehold.adapters.tool.TestTools;
import io.leasehold.adapters.tool.ToolCall;
import io.leasehold.adapters.tool.ToolJournalSchema;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabaseExtension;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What an agent-framework module's tests stand on, on real PostgreSQL (leases and the tool
 * journal): one session, the world its tools act on, and an {@link #agentFence} whose stops land in
 * {@link #stops}. It runs no test itself: {@link AgentToolFenceScenarios} adds the scenarios every
 * framework runs, so that a module's other test classes can share this fixture without running
 * those scenarios again.
 */
@Timeout(60)
public abstract class AgentToolFenceFixture {
  protected final List<RunStop> stops = new CopyOnWriteArrayList<>();
  protected final ToolWorld world = new ToolWorld();

  /** The runs registered by session, for fences that resolve a call's session. */
  protected final SessionLeases sessions = new SessionLeases();

  protected final LeaseKey key = LeaseKey.of("acct-7", "chat-" + UUID.randomUUID());
  protected LeaseStore store;
  protected JdbcToolJournal journal;
  protected AgentToolFence agentFence;

  /** The leases and the tool journal, in one database per test class. */
  @RegisterExtension
  protected static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate(
          "agent_tools",
          ds -> {
            LeaseSchema.defaults().apply(ds);
            ToolJournalSchema.defaults().apply(ds);
          });

  @BeforeEach
  void openStoreAndJournal() {
    store =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(administeredBy("ops"))
            .ttl(Duration.ofSeconds(30))
            .build();
    journal = JdbcToolJournal.create(db.dataSource());
    FencedToolExecutor executor = TestTools.trustingExecutor(journal).build();
    agentFence = AgentToolFence.builder(executor).listener(stops::add).build();
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  /**
   * An access policy that allows everyone and names one administrator.
   *
   * @param administrator the administrator
   * @return the policy
   */
  protected static AccessPolicy administeredBy(String administrator) {
    return AccessPolicy.allowAll().withAdministrators(Set.of(administrator));
  }

  /** Nothing reached the world and nothing was journaled for the session. */
  protected void assertNothingRan() {
    assertThat(world.effects).isEmpty();
    assertThat(journal.calls(key)).isEmpty();
  }

  /**
   * Acquires the scenario's session for a device.
   *
   * @param device the holder's name
   * @return the lease
   */
  protected Lease acquire(String device) {
    AcquireResult r = store.tryAcquire(AcquireRequest.of(key, "acct-7").withHolder(device));
    assertThat(r).isInstanceOf(AcquireResult.Acquired.class);
    return ((AcquireResult.Acquired) r).lease();
  }

  /**
   * The browser takes the session over: the desktop's lease is ended and a newer run starts.
   *
   * @return the browser's lease
   */
  protected Lease takeOver() {
    store.admin().forceRelease(key, "ops", "the browser took over");
    Lease browser = acquire("browser");
    agentFence.startRun(browser);
    return browser;
  }

  /**
   * The desktop acquires the session, then the browser takes it over.
   *
   * @return the desktop's lease, superseded
   */
  protected Lease supersededDesktop() {
    Lease desktop = acquire("desktop");
    takeOver();
    return desktop;
  }

  /**
   * The journal's records of one run's calls.
   *
   * @param lease the run
   * @return its calls
   */
  protected List<ToolCall> callsOf(Lease lease) {
    return journal.calls(key).stream()
        .filter(c -> c.token().runId().equals(lease.runId()))
        .toList();
  }
}
