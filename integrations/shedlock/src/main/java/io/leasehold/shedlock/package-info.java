/**
 * ShedLock on Leasehold: {@link io.leasehold.shedlock.LeaseholdLockProvider}, whose locks are
 * one-shot leases in database time with a fencing token ({@link io.leasehold.shedlock.FencedLock}).
 */
package io.leasehold.shedlock;
