/**
 * Fencing tokens and the guard contract that resources use to refuse stale writers.
 *
 * <p>A {@link io.leasehold.fencing.FencingToken} names a lease key, the fence number the lease
 * store assigned when the run acquired, and the run's id. A resource that must refuse writers who
 * have lost their lease keeps, per lease key, the highest fence it has admitted (its high-water
 * mark) and admits a token only if its fence is at least that mark; see {@link
 * io.leasehold.fencing.FenceGuard}.
 *
 * <p>This package depends on nothing but the JDK, so a resource owner can check tokens without
 * taking the lease machinery.
 */
package io.leasehold.fencing;
