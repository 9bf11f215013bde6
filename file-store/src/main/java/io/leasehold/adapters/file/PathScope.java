package io.leasehold.adapters.file;

import io.leasehold.fencing.LeaseKey;

/**
 * Which lease key may write and delete which paths of a {@link FencedFileStore} (CONTRACT C19). A
 * valid token proves which run of which session may write, not what: the store's owner says what
 * each key owns, and the store refuses a token for a path outside its key's share with {@link
 * io.leasehold.fencing.TokenVerificationException.Reason#OUT_OF_SCOPE}, naming both keys, before
 * any mark is read or raised.
 *
 * <p>The default, {@link #sessionDirectories()}, gives each session the directory {@code <account
 * id>/<session id>/}. A key whose account or session id cannot be a directory name (it holds a
 * {@code /}, is {@code .} or {@code ..}, or is longer than a name may be) owns no path under these
 * layouts; write a scope of your own for such ids.
 *
 * <p>Implementations must be thread-safe, quick and free of side effects: they run on every write
 * and delete.
 */
@FunctionalInterface
public interface PathScope {
  /**
   * Whether a token of {@code key} may write or delete {@code path}.
   *
   * @param key the token's key, verified
   * @param path the checked relative path ({@code /}-separated, no {@code .} or {@code ..})
   * @return true to go on to the key's mark
   */
  boolean permits(LeaseKey key, String path);

  /**
   * Whom a refused path belongs to, in words for the refusal message.
   *
   * @param path the path
   * @return a description, such as {@code "account victim"}
   */
  default String ownerOf(String path) {
    return "another key, by this store's path scope";
  }

  /**
   * The default: each session writes only under {@code <account id>/<session id>/}.
   *
   * @return the scope
   */
  static PathScope sessionDirectories() {
    return Layouts.SESSION_DIRECTORIES;
  }

  /**
   * Each account writes only under {@code <account id>/}: the sessions of one account share its
   * directory (each session's runs are still ordered by their own marks).
   *
   * @return the scope
   */
  static PathScope accountDirectories() {
    return Layouts.ACCOUNT_DIRECTORIES;
  }

  /**
   * The opt-out: any key may write any path. Only for a store whose writers are all trusted to stay
   * in their own files; a valid token of one account can then overwrite another's.
   *
   * @return the scope
   */
  static PathScope anyPath() {
    return Layouts.ANY_PATH;
  }
}

/** The named layouts. */
enum Layouts implements PathScope {
  SESSION_DIRECTORIES {
    @Override
    public boolean permits(LeaseKey key, String path) {
      return path.startsWith(key.accountId() + '/' + key.sessionId() + '/')
          && directoryName(key.accountId())
          && directoryName(key.sessionId());
    }

    @Override
    public String ownerOf(String path) {
      String[] parts = path.split("/", 3);
      return parts.length < 3
          ? "no session (under PathScope.sessionDirectories() a session's files live under"
              + " <account id>/<session id>/)"
          : "session " + parts[0] + "/" + parts[1];
    }
  },
  ACCOUNT_DIRECTORIES {
    @Override
    public boolean permits(LeaseKey key, String path) {
      return path.startsWith(key.accountId() + '/') && directoryName(key.accountId());
    }

    @Override
    public String ownerOf(String path) {
      int slash = path.indexOf('/');
      return slash < 0
          ? "no account (under PathScope.accountDirectories() an account's files live under"
              + " <account id>/)"
          : "account " + path.substring(0, slash);
    }
  },
  ANY_PATH {
    @Override
    public boolean permits(LeaseKey key, String path) {
      return true;
    }
  };

  /** Whether an id can be one path segment as {@link StorePaths} accepts it. */
  static boolean directoryName(String id) {
    return !id.contains("/")
        && !id.equals(".")
        && !id.equals("..")
        && !id.equals(FencedFileStore.META_DIR)
        && id.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
            <= FencedFileStore.MAX_SEGMENT_BYTES;
  }

  @Override
  public String toString() {
    return switch (this) {
      case SESSION_DIRECTORIES -> "PathScope.sessionDirectories()";
      case ACCOUNT_DIRECTORIES -> "PathScope.accountDirectories()";
      case ANY_PATH -> "PathScope.anyPath()";
    };
  }
}
