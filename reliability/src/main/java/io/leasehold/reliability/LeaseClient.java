package io.leasehold.reliability;

import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.time.Instant;

/**
 * What a worker needs of a lease store. Two implementations: {@link RealClient} (the lease store
 * under test) and {@link BrokenClient} (a deliberately broken one, to prove the checker catches
 * breaks).
 */
interface LeaseClient extends AutoCloseable {
  /** A granted lease; null if someone else holds the key. Throws on database errors. */
  Held acquire(LeaseKey key);

  @Override
  void close();

  /** A held lease. */
  interface Held extends Fenced {
    /** What the database answered at the acquisition. */
    Grant grant();

    /** Throws on database errors. */
    Answer renew();

    /** Throws on database errors. */
    Answer release();

    boolean isLost();
  }

  /**
   * A lease as granted.
   *
   * @param identity the run's token, whether or not the lease is still held
   * @param acquiredAt database time of the acquisition
   * @param expiresAt the expiry the acquisition granted
   */
  record Grant(FencingToken identity, Instant acquiredAt, Instant expiresAt) {}

  /**
   * A renew or release answer.
   *
   * @param ok renewed, or released
   * @param expiresAt the new expiry of a renewal
   * @param databaseNow the database time of the answer, if it came from the database
   */
  record Answer(boolean ok, Instant expiresAt, Instant databaseNow) {}
}
