package io.leasehold.lease;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The parts of one lease store, wired once from its validated options, so that {@link LeaseStore}
 * only checks arguments, asks the access policy and delegates. Every statement is built here from
 * the same {@link StatementSettings} and runs through the one {@link StatementRunner}.
 *
 * @param options the store's validated options (a copy no one else holds)
 * @param publisher null unless the store publishes its changes
 * @param gate the open check and access policy every operation passes; its closed flag is set once
 *     by {@link LeaseStore#close()}, and the leases and the grants read it
 */
record StoreParts(
    LeaseStoreBuilder options,
    LeaseTiming timing,
    ListenerList listeners,
    ReadStatements reads,
    FenceSource fenceSource,
    ChangePublisher publisher,
    AcquireWaits waits,
    LeaseReleases releases,
    LeaseGrants grants,
    ChunkedRenewal renewal,
    BackgroundRenewal background,
    OwnLeaseOperations own,
    LeaseAdmin admin,
    StoreGate gate) {

  /** Builds every part from options that {@link LeaseStoreBuilder#build()} validated. */
  static StoreParts assemble(LeaseStoreBuilder o) {
    LeaseTiming timing =
        new LeaseTiming(o.ttl, o.renewInterval, o.safetyMargin, o.statementTimeout);
    ListenerList listeners = new ListenerList();
    StoreGate gate = new StoreGate(o.accessPolicy, new AtomicBoolean());
    StatementSettings settings =
        new StatementSettings(o.schema, o.lockTimeout, o.statementTimeout, o.dedicatedPool);
    StatementRunner runner = new StatementRunner(o.dataSource, settings);
    ChangePublisher publisher =
        o.notifyChanges
            ? new ChangePublisher(runner, settings, o.statementTimeout.plusSeconds(1))
            : null;

    ReadStatements reads = new ReadStatements(runner, settings, o.takeoverDelay);
    FenceSource fenceSource = new FenceSource(runner, settings);
    AcquireWaits waits = new AcquireWaits(o.ticker, o.takeoverDelay, o.waitPollCeiling);
    LeaseReleases releases =
        new LeaseReleases(
            new ReleaseStatements(runner, settings, reads), publisher, waits, listeners, o.ticker);

    ChunkedRenewal renewal =
        new ChunkedRenewal(new RenewStatement(runner, settings), o.ticker, o.accessPolicy);
    BackgroundRenewal background = new BackgroundRenewal(renewal, o, listeners);
    TokenSigning signing = new TokenSigning(o.signingKey);
    HandedOutLeases handedOut = new HandedOutLeases();
    OwnLeaseOperations own =
        new OwnLeaseOperations(timing, background, renewal, releases, signing, handedOut, gate);
    LeaseGrants grants =
        new LeaseGrants(
            new AcquireStatements(runner, settings, reads, o.notifyChanges, o.takeoverDelay),
            reads,
            fenceSource,
            publisher,
            releases,
            listeners,
            o.ticker,
            signing,
            own,
            gate.closed()::get,
            handedOut);
    LeaseAdmin admin =
        new LeaseAdmin(reads, new SweepStatements(runner, settings, fenceSource), releases, gate);
    return new StoreParts(
        o,
        timing,
        listeners,
        reads,
        fenceSource,
        publisher,
        waits,
        releases,
        grants,
        renewal,
        background,
        own,
        admin,
        gate);
  }
}
