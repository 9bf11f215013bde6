package io.leasehold.reliability;

import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.time.Instant;

/**
 * What a worker needs of a lease store. Two implementations: {@link RealClient} (the lease
 * store under test) and {@link BrokenClient} (a deliberately broken one, to prove the checker
 * catches breaks).
 */
interface LeaseClient extends AutoCloseable {
  /** A granted lease; null if someone else holds the key. Throws on database errors. */
  Held acquire(LeaseKey key);

  @Override
  void close();

  /** A held lease. */
  interface Held extends Fenced {
    FencingToken identity();

    Instant acquiredAt();

    Instant expiresAt();

    /** Throws on database errors. */
    Answer renew();

    /** Throws on database errors. */
    Answer release();

    boolean isLost();
  }

  /**
   * A renew or release answer.
   *
   * @param ok renewed, or released
   * @param expiresAt the new expiry of a renewal
   * @param databaseNow the database time of the answer, if it came from the database
   */
  record Answer(boolean ok, Instant expiresAt, Instant databaseNow) {}
}
