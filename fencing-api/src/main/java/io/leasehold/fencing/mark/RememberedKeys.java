package io.leasehold.fencing.mark;

import io.leasehold.fencing.LeaseKey;
import java.util.HashMap;
import java.util.Map;

/**
 * The bookkeeping behind {@link MemoryMarkStore}'s bounded memory: which keys it remembers, per
 * account in the order they were remembered, and which account remembers the most. Every operation
 * is O(1), or O(keys taken) for {@link #take}, so admitting a key into a full guard is O(1)
 * amortised (issue 46: the in-memory guard used to scan every account and every mark to forget
 * one).
 *
 * <p>Each account is a queue of its keys, linked through the keys' own {@link Node}s, so a key
 * costs no object beyond its mark. Accounts are filed by how many keys they hold, in buckets kept
 * in the order accounts entered them; the largest account is found from the highest bucket, which
 * only falls by the keys taken, so finding it is O(1) amortised too. An account leaves the
 * bookkeeping when its last key is taken: nothing here outlives the keys remembered.
 *
 * <p>Not thread-safe: the store calls it under one lock, and never waits for a key's lock while
 * holding that one.
 */
final class RememberedKeys {
  /** A remembered key, as its account's queue links it. */
  abstract static class Node {
    final LeaseKey key;

    /** The next key of the same account, remembered after this one. */
    private Node next;

    Node(LeaseKey key) {
      this.key = key;
    }

    /**
     * The next key of a chain handed out by {@link #take}.
     *
     * @return the next key, or null at the chain's end
     */
    final Node next() {
      return next;
    }
  }

  /** An account with keys remembered: its queue of keys and its place in its bucket. */
  private static final class Account {
    final String id;
    Node first;
    Node last;
    int keys;

    /** Neighbours in the bucket of accounts with as many keys. */
    Account before;

    Account after;

    Account(String id) {
      this.id = id;
    }
  }

  /** Accounts with the same number of keys, oldest entry first. */
  private static final class Bucket {
    Account first;
    Account last;
  }

  private final Map<String, Account> accounts = new HashMap<>();
  private final Map<Integer, Bucket> buckets = new HashMap<>();

  /** At least the key count of the largest account; lowered lazily by {@link #largest()}. */
  private int highest;

  /** Keys remembered plus keys taken whose forgetting is not yet {@link #settle settled}. */
  private int total;

  /**
   * Keys remembered, counting those taken but not yet settled.
   *
   * @return the count
   */
  int total() {
    return total;
  }

  /**
   * Files a newly remembered key at the end of its account's queue.
   *
   * @param node the key's node, not filed before
   */
  void add(Node node) {
    Account account = accounts.computeIfAbsent(node.key.accountId(), Account::new);
    if (account.keys > 0) {
      unfile(account);
    }
    node.next = null;
    if (account.last == null) {
      account.first = node;
    } else {
      account.last.next = node;
    }
    account.last = node;
    account.keys++;
    file(account);
    total++;
  }

  /**
   * Takes up to {@code most} keys to forget, the oldest first: of {@code account} if it has keys
   * remembered, otherwise of the account that has the most (the one that reached that count first).
   * They leave the bookkeeping but stay counted in {@link #total()} until {@link #settle(int)} is
   * called for them.
   *
   * @param account the account that needs room
   * @param most at least 1
   * @return the first key of the chain taken (follow {@link Node#next()}), or null if no key is
   *     remembered
   */
  Node take(String account, int most) {
    Account victim = accounts.get(account);
    if (victim == null) {
      victim = largest();
      if (victim == null) {
        return null;
      }
    }
    unfile(victim);
    Node first = victim.first;
    Node end = first;
    int taken = 1;
    while (taken < most && end.next != null) {
      end = end.next;
      taken++;
    }
    victim.first = end.next;
    end.next = null;
    victim.keys -= taken;
    if (victim.keys == 0) {
      victim.last = null;
      accounts.remove(victim.id);
    } else {
      file(victim);
    }
    return first;
  }

  /**
   * Counts keys taken by {@link #take} as forgotten.
   *
   * @param forgotten how many
   */
  void settle(int forgotten) {
    total -= forgotten;
  }

  /** The account with the most keys, or null if none. */
  private Account largest() {
    while (highest > 0 && !buckets.containsKey(highest)) {
      highest--;
    }
    Bucket bucket = buckets.get(highest);
    return bucket == null ? null : bucket.first;
  }

  private void file(Account account) {
    Bucket bucket = buckets.computeIfAbsent(account.keys, k -> new Bucket());
    account.before = bucket.last;
    account.after = null;
    if (bucket.last == null) {
      bucket.first = account;
    } else {
      bucket.last.after = account;
    }
    bucket.last = account;
    highest = Math.max(highest, account.keys);
  }

  private void unfile(Account account) {
    Bucket bucket = buckets.get(account.keys);
    if (account.before == null) {
      bucket.first = account.after;
    } else {
      account.before.after = account.after;
    }
    if (account.after == null) {
      bucket.last = account.before;
    } else {
      account.after.before = account.before;
    }
    account.before = null;
    account.after = null;
    if (bucket.first == null) {
      buckets.remove(account.keys);
    }
  }
}
