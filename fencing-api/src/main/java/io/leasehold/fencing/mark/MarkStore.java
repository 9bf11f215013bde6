package io.leasehold.fencing.mark;

import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;

/**
 * A durable high-water mark per lease key, kept in one medium (memory, files or SQL tables): the
 * half of every guard that decides, as opposed to the half that writes. A guard is its effect, its
 * scope and one of these; the tool journals keep theirs the same way.
 *
 * <p>Every rule that makes a guard fail closed (CONTRACT C16) about its marks lives in the medium's
 * implementation, once: a mark that cannot be read or trusted refuses the key's admissions with a
 * {@link MarkStoreException} that says how to repair, and changes nothing.
 *
 * <p>Each call runs inside a unit of work the guard opened and will close: the caller's open
 * transaction for SQL (so an admission commits or rolls back with the write it admits), the store's
 * cross-process lock for files, nothing in memory. The store never commits, opens or closes the
 * unit itself.
 *
 * @param <U> the unit of work: a {@link java.sql.Connection} with a transaction under way for SQL,
 *     the file store's locked operation for files, {@link Void} (pass null) in memory
 */
public interface MarkStore<U> {
  /**
   * Admits a verified token: if its fence is at least the key's mark, raises the mark to it and
   * returns the admission; the raise is durable once the unit of work ends normally (at once for
   * files, at the transaction's commit for SQL).
   *
   * @param unit the unit of work
   * @param token a token the guard has already verified and scoped
   * @return the admission, with the mark before it
   * @throws StaleFenceException if the fence is below the mark; nothing changed
   * @throws MarkStoreException if the mark cannot be read, trusted or raised; nothing changed
   */
  Admission admit(U unit, FencingToken token);

  /**
   * A key's mark.
   *
   * @param unit the unit of work
   * @param key the key
   * @return the mark, or empty if the key has none (never admitted, or reset to 0)
   * @throws MarkStoreException if the mark cannot be read
   */
  OptionalLong read(U unit, LeaseKey key);

  /**
   * Sets a key's mark and records the reset where the marks live, as one step (CONTRACT C17). The
   * caller has checked the operator and the arguments ({@code GuardOptions.checkReset}).
   *
   * @param unit the unit of work
   * @param key the key
   * @param newMark the new mark; 0 forgets the key's fence
   * @param operator who resets it
   * @param reason why
   * @param at when, by the guard's clock
   * @return the recorded reset, with the mark it replaced
   * @throws MarkStoreException if the medium fails; nothing changed
   */
  MarkReset reset(U unit, LeaseKey key, long newMark, String operator, String reason, Instant at);

  /**
   * Every recorded reset, oldest first.
   *
   * @param unit the unit of work
   * @return the resets
   * @throws MarkStoreException if the record cannot be read (a damaged one is named, not skipped)
   */
  List<MarkReset> resets(U unit);
}
