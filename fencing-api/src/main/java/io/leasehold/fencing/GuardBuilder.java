package io.leasehold.fencing;

import io.leasehold.fencing.internal.Arguments;
import java.time.Clock;

/**
 * The options every guard shares, for a guard's builder to extend: how tokens are verified, who
 * hears each decision, who may reset marks, and the clock that dates the guard's own records. A new
 * guard gets all four, with their checks and defaults, by extending this class; its own options go
 * on its subclass.
 *
 * <pre>{@code
 * public static final class Builder extends GuardBuilder<Builder> {
 *   public MyGuard build() {
 *     return new MyGuard(options(MyGuard.RESOURCE), ...); // the guard makes its GuardPipeline
 *   }
 * }
 * }</pre>
 *
 * <p>Not thread-safe; {@link #options} copies what was set, so later calls do not change a guard
 * already built.
 *
 * @param <S> the subclass, returned by every setter
 */
public abstract class GuardBuilder<S extends GuardBuilder<S>> {
  private TokenVerifier verifier;
  private GuardListener listener = GuardListener.NONE;
  private AdminPolicy adminPolicy = AdminPolicy.nobody();
  private Clock clock = Clock.systemUTC();

  /** For subclasses. */
  protected GuardBuilder() {}

  /**
   * This builder as its own type, for the setters' return values. A subclass declared as {@code
   * Builder extends GuardBuilder<Builder>} need not override it.
   *
   * @return {@code this}
   */
  @SuppressWarnings("unchecked") // S is the subclass, by the bound every subclass declares
  protected S self() {
    return (S) this;
  }

  /**
   * How tokens are verified (CONTRACT C15): {@link TokenVerifier#signedBy}, an online check against
   * the lease table, or the named opt-out {@link TokenVerifier#trustEveryWriter()}. Required,
   * unless the guard offers a verification of its own.
   *
   * @param verifier the verifier
   * @return this builder
   */
  public S verifier(TokenVerifier verifier) {
    this.verifier = Arguments.required(verifier, "verifier");
    return self();
  }

  /**
   * Who hears each decision. Default {@link GuardListener#NONE}.
   *
   * @param listener the listener
   * @return this builder
   */
  public S listener(GuardListener listener) {
    this.listener = Arguments.required(listener, "listener");
    return self();
  }

  /**
   * Who may reset marks. Default {@link AdminPolicy#nobody()}.
   *
   * @param adminPolicy the policy
   * @return this builder
   */
  public S adminPolicy(AdminPolicy adminPolicy) {
    this.adminPolicy = Arguments.required(adminPolicy, "adminPolicy");
    return self();
  }

  /**
   * The clock that dates the records a guard keeps itself (mark resets in memory or in files). A
   * guard whose records live in a database dates them by the database's clock instead, and says so.
   * Default the system clock (UTC).
   *
   * @param clock the clock
   * @return this builder
   */
  public S clock(Clock clock) {
    this.clock = Arguments.required(clock, "clock");
    return self();
  }

  /**
   * Whether {@link #verifier} was called: for a guard with a verification of its own, to reject a
   * choice of both.
   *
   * @return true if a verifier was chosen
   */
  protected final boolean hasVerifier() {
    return verifier != null;
  }

  /**
   * The options as set, for {@code build()}.
   *
   * @param resource the guard's resource kind, as its listener hears it ({@code "file"})
   * @return the options
   * @throws IllegalStateException if no verifier was chosen, with the choices in its message
   */
  protected final GuardOptions options(String resource) {
    if (verifier == null) {
      throw new IllegalStateException(
          "choose how tokens are verified: verifier(TokenVerifier.signedBy(keys)), an online"
              + " check against the lease table, or verifier(TokenVerifier.trustEveryWriter()) if"
              + " every writer is trusted code in this process");
    }
    return new GuardOptions(resource, verifier, listener, adminPolicy, clock);
  }

  /**
   * The options, for a guard that verifies tokens in its own way (a database writer that checks the
   * lease table inside its admission statement) when no verifier was chosen.
   *
   * @param resource the guard's resource kind
   * @param ownVerification the guard's own verification, used when no verifier was chosen
   * @return the options
   */
  protected final GuardOptions options(String resource, TokenVerifier ownVerification) {
    Arguments.required(ownVerification, "ownVerification");
    return new GuardOptions(
        resource, verifier == null ? ownVerification : verifier, listener, adminPolicy, clock);
  }
}
