module example {
  requires io.leasehold.lease;
  requires io.leasehold.devdb;
  requires io.leasehold.micrometer;
}
