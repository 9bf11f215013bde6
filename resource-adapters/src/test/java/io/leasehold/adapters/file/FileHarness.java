package io.leasehold.adapters.file;

import io.leasehold.adapters.Harness;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.LeaseKey;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/** The file store as a register: one file per key, and the store's audit log. */
public final class FileHarness implements Harness {
  private final FencedFileStore store;

  public FileHarness(FencedFileStore store) {
    this.store = store;
  }

  static String path(LeaseKey key) {
    return key.sessionId() + "/register.txt";
  }

  @Override
  public void write(LeaseKey key, Fenced fenced, String value) {
    store.write(fenced, path(key), value.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public Optional<String> value(LeaseKey key) {
    return store.read(path(key)).map(f -> new String(f.content(), StandardCharsets.UTF_8));
  }

  @Override
  public OptionalLong mark(LeaseKey key) {
    return store.highWaterMark(key);
  }

  @Override
  public Harness reopen() {
    return new FileHarness(FencedFileStore.open(store.root(), true));
  }

  @Override
  public List<Long> admittedFences(LeaseKey key) {
    return store.auditLog().stream()
        .filter(op -> op.admission().token().key().equals(key))
        .map(op -> op.admission().token().fence())
        .toList();
  }

  @Override
  public boolean finalValueFollowsHighestFence() {
    return true;
  }
}
