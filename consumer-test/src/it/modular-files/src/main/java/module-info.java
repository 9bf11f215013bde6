module example.files {
  requires io.leasehold.adapters.file;
}
