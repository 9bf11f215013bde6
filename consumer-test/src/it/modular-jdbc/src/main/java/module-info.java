module example.jdbc {
  requires io.leasehold.adapters;
  requires io.leasehold.devdb;
}
