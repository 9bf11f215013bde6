/**
 * Resources that refuse stale writers: a {@linkplain io.leasehold.adapters.file.FencedFileStore
 * file store} (artifact {@code leasehold-file-store}), a tool executor ({@code
 * io.leasehold.adapters.tool.FencedToolExecutor}) and a database writer ({@code
 * io.leasehold.adapters.jdbc.FencedJdbcWriter}), both in {@code leasehold-resource-adapters}. This
 * package, {@link io.leasehold.adapters.ResourceAccessException} with it, ships with the file
 * store, which every other adapter builds on. Each admits an operation only if its token's fence is
 * at least the highest it has admitted for the lease key, as one step with the operation itself
 * (CONTRACT C9, C10), and keeps that mark where several processes see it (C11).
 *
 * <p>What fencing cannot do (C12): it protects only resources that check tokens. A side effect on a
 * system that never sees the token is protected only by the run stopping when its lease is lost.
 */
package io.leasehold.adapters;
