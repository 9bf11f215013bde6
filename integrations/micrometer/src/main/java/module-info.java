/**
 * Micrometer meters and observations for Leasehold's lease store and guards, without Spring.
 * Micrometer's jars are automatic modules with stable names of their own.
 */
module io.leasehold.micrometer {
  requires transitive io.leasehold.lease;
  requires transitive io.leasehold.fencing;
  requires transitive micrometer.core;
  requires transitive micrometer.observation;

  exports io.leasehold.micrometer;
}
