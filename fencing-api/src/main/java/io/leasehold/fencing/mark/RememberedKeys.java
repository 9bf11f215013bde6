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
 * costs no object beyond its mark. Accounts are filed by how many keys they hold, in buckets:
 * queues of accounts in the order they entered them, linked the same way. The largest account is
 * found from the highest bucket, which only falls by the keys taken, so finding it is O(1)
 * amortised too. An account leaves the bookkeeping when its last key is taken: nothing here
 * outlives the keys remembered.
 *
 * <p>Not thread-safe: the store calls it under one lock, and never waits for a key's lock while
 * holding that one.
 */
final class RememberedKeys {
  /**
   * An element of a {@link Queue}, which links it to its neighbours.
   *
   * @param <L> the element type
   */
  abstract static class Link<L extends Link<L>> {
    /** The neighbour queued before this one, or null at the front. */
    L before;

    /** The neighbour queued after this one, or null at the end. */
    L after;
  }

  /**
   * A queue linked through its elements, oldest first: O(1) to append, to remove any element, and
   * to cut off its front. A queue is a link itself, so that an {@link Account}, the queue of its
   * keys, stands in its bucket's queue with no object beyond itself.
   *
   * @param <L> the element type
   */
  private static class Queue<L extends Link<L>> extends Link<Queue<L>> {
    L first;
    L last;

    void append(L element) {
      element.before = last;
      element.after = null;
      if (last == null) {
        first = element;
      } else {
        last.after = element;
      }
      last = element;
    }

    void remove(L element) {
      if (element.before == null) {
        first = element.after;
      } else {
        element.before.after = element.after;
      }
      if (element.after == null) {
        last = element.before;
      } else {
        element.after.before = element.before;
      }
      element.before = null;
      element.after = null;
    }

    /**
     * Removes the elements from the first through {@code end}.
     *
     * @param end an element of this queue
     * @return the first element removed; the others follow it through {@link Link#after}
     */
    L cutThrough(L end) {
      L front = first;
      first = end.after;
      if (first == null) {
        last = null;
      } else {
        first.before = null;
      }
      end.after = null;
      return front;
    }
  }

  /** A remembered key, as its account's queue links it. */
  abstract static class Node extends Link<Node> {
    final LeaseKey key;

    Node(LeaseKey key) {
      this.key = key;
    }

    /**
     * The next key of a chain handed out by {@link #take}.
     *
     * @return the next key, or null at the chain's end
     */
    final Node next() {
      return after;
    }
  }

  /** An account with keys remembered: the queue of its keys, in the order they were remembered. */
  private static final class Account extends Queue<Node> {
    final String id;

    /** How many keys it holds. */
    int keys;

    Account(String id) {
      this.id = id;
    }
  }

  private final Map<String, Account> accounts = new HashMap<>();

  /** Accounts by their number of keys; each bucket's oldest entry first, and only accounts. */
  private final Map<Integer, Queue<Queue<Node>>> buckets = new HashMap<>();

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
    account.append(node);
    account.keys++;
    file(account);
    total++;
  }

  /**
   * Takes keys to forget, the oldest of an account first: up to {@code most} of {@code account} if
   * it has keys remembered, otherwise of the account that has the most (the one that reached that
   * count first); then, while fewer than {@code least} were taken, more of the accounts that have
   * the most. They leave the bookkeeping but stay counted in {@link #total()} until {@link
   * #settle(int)} is called for them.
   *
   * @param account the account that needs room, or null for none
   * @param most how many to take of the first account, at least 1
   * @param least how many to take in all if there are that many
   * @return the first key of the chain taken (follow {@link Node#next()}), or null if none
   */
  Node take(String account, int most, int least) {
    Account victim = account == null ? null : accounts.get(account);
    Node first = cut(victim != null ? victim : largest(), most);
    int taken = 0;
    Node end = null;
    for (Node n = first; n != null; n = n.after) {
      end = n;
      taken++;
    }
    while (taken < least) {
      Node more = cut(largest(), least - taken);
      if (more == null) {
        break;
      }
      if (end == null) {
        first = more;
      } else {
        end.after = more;
        more.before = end;
      }
      for (end = more, taken++; end.after != null; end = end.after) {
        taken++;
      }
    }
    return first;
  }

  /** Takes up to {@code most} of the account's oldest keys; null if the account is null. */
  private Node cut(Account victim, int most) {
    if (victim == null) {
      return null;
    }
    unfile(victim);
    Node end = victim.first;
    int taken = 1;
    while (taken < most && end.after != null) {
      end = end.after;
      taken++;
    }
    Node first = victim.cutThrough(end);
    victim.keys -= taken;
    if (victim.keys == 0) {
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
    Queue<Queue<Node>> bucket = buckets.get(highest);
    return bucket == null ? null : (Account) bucket.first;
  }

  private void file(Account account) {
    buckets.computeIfAbsent(account.keys, k -> new Queue<>()).append(account);
    highest = Math.max(highest, account.keys);
  }

  private void unfile(Account account) {
    Queue<Queue<Node>> bucket = buckets.get(account.keys);
    bucket.remove(account);
    if (bucket.first == null) {
      buckets.remove(account.keys);
    }
  }
}
