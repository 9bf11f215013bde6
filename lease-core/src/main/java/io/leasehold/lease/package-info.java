/**
 * The lease store: which run of a session may act right now, decided by PostgreSQL.
 *
 * <p>Start with {@link io.leasehold.lease.LeaseStore}; create the schema with {@link
 * io.leasehold.lease.LeaseSchema}. A {@link io.leasehold.lease.Lease} is the run's handle: it
 * presents the fencing token to resources and refuses once the lease is lost.
 */
// For maintainers, the rooms behind the one entry point: LeaseStore checks arguments, asks the
// access policy, tells listeners and owns the handles' lifecycle; LeaseStoreBuilder holds the
// options; LeaseSql has every statement with its reasoning; StatementRunner runs one as a short
// pipelined transaction; LeaseRows binds each one-shot statement and reads its row; BatchRenewer
// and Keeper renew kept leases; AcquireWaits paces blocking acquires; ExclusiveRun is
// runExclusive; Lease and Keeper reach the store only through LeaseControl.
package io.leasehold.lease;
