/**
 * The lease store: which run of a session may act right now, decided by PostgreSQL.
 *
 * <p>Start with {@link io.leasehold.lease.LeaseStore}; create the schema with {@link
 * io.leasehold.lease.LeaseSchema}. A {@link io.leasehold.lease.Lease} is the run's handle: it
 * presents the fencing token to resources and refuses once the lease is lost.
 */
package io.leasehold.lease;
