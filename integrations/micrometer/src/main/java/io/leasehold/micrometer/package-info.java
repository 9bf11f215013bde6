/** Micrometer meters for Leasehold: {@link io.leasehold.micrometer.LeaseholdMetrics}. */
package io.leasehold.micrometer;
