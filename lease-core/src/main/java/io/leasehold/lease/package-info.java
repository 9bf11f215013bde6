/**
 * The lease store: which run of a session may act right now, decided by PostgreSQL.
 *
 * <p>Start with {@link io.leasehold.lease.LeaseStore}; create the schema with {@link
 * io.leasehold.lease.LeaseSchema}. A {@link io.leasehold.lease.Lease} is the run's handle: it
 * presents the fencing token to resources and refuses once the lease is lost.
 */
// For maintainers, the rooms behind the one entry point (docs/architecture.md draws them):
// LeaseStore checks arguments, asks the access policy and delegates to the parts StoreParts wires
// from the builder's options. Each statement family keeps its SQL, binding and row reading in one
// class: AcquireStatements, ReleaseStatements, RenewStatement, SweepStatements, ReadStatements
// (FenceSource and ChangePublisher hold their own), all built from StatementSettings and run by
// StatementRunner; SqlTime writes their time arithmetic so that Citus can run it. LeaseGrants and
// LeaseReleases are an authorized acquire and release;
// ChunkedRenewal renews in chunks and BackgroundRenewal runs it every renew interval;
// OwnLeaseOperations is the store as a lease sees it (LeaseControl); HandedOutLeases is what
// close() ends; AcquireWaits paces blocking acquires; ExitHook closes the store at JVM exit.
package io.leasehold.lease;
