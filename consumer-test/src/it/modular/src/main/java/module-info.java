module example {
  requires io.leasehold.lease;
  requires io.leasehold.devdb;
}
