package io.leasehold.adapters;

/**
 * Throws any throwable, checked ones included, without declaring it: what misbehaving code does.
 */
public final class Sneaky {
  private Sneaky() {}

  @SuppressWarnings("unchecked")
  public static <E extends Throwable> RuntimeException raise(Throwable t) throws E {
    throw (E) t;
  }
}
