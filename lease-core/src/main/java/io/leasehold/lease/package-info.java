/**
 * The lease store: which run of a session may act right now, decided by PostgreSQL.
 *
 * <p>Start with {@link io.leasehold.lease.LeaseStore}; create the schema with {@link
 * io.leasehold.lease.LeaseSchema}. A {@link io.leasehold.lease.Lease} is the run's handle: it
 * presents the fencing token to resources and refuses once the lease is lost.
 */
// For maintainers, the rooms behind the one entry point: LeaseStore checks arguments, asks the
// access policy and owns the store's lifecycle; LeaseAdmin has the operator's operations;
// LeaseTiming checks lease lengths and places local deadlines; StoreControl is the store as a
// lease sees it (LeaseControl), and holds the grants; LeaseGrants makes one authorized acquire (token,
// local deadline, late answers) and tracks the handles it gave out; LeaseReleases releases and
// wakes waiters; LeaseStoreBuilder holds the options; LeaseSql has every statement with its
// reasoning; StatementRunner runs one as a short pipelined transaction; LeaseRows binds each
// one-shot statement and reads its row; BatchRenewer renews in chunks of BatchRenewer.CHUNK, and
// Keeper runs it every renew interval (both get the runner and a listener, nothing of the
// store); AcquireWaits paces blocking acquires; ExclusiveRun is runExclusive; ExitHook closes the
// store at JVM exit. A Lease reaches its store only through LeaseControl.
package io.leasehold.lease;
