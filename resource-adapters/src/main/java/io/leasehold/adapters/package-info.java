/**
 * Resources that refuse stale writers: a {@linkplain io.leasehold.adapters.file.FencedFileStore
 * file store}, a {@linkplain io.leasehold.adapters.tool.FencedToolExecutor tool executor} and a
 * {@linkplain io.leasehold.adapters.jdbc.FencedJdbcWriter database writer}. Each admits an
 * operation only if its token's fence is at least the highest it has admitted for the lease key, as
 * one step with the operation itself (CONTRACT C9, C10), and keeps that mark where several
 * processes see it (C11).
 *
 * <p>What fencing cannot do (C12): it protects only resources that check tokens. A side effect on a
 * system that never sees the token is protected only by the run stopping when its lease is lost.
 */
package io.leasehold.adapters;
