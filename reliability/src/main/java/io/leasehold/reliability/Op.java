package io.leasehold.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;

/**
 * One operation of the history: what a worker did, with which token, and what came back. Local
 * times are a process's monotonic nanoseconds (comparable only within one process); database times
 * are what the lease store's answers carried.
 *
 * @param process the process that ran it
 * @param worker the worker (thread) within the process
 * @param type what kind of operation
 * @param key the lease key, null for faults
 * @param token the token involved, null if none (a busy acquire, a fault)
 * @param outcome what came back
 * @param adapter the resource of a write: {@code file}, {@code tool} or {@code jdbc}
 * @param writeId a write's unique id, as stored in the resource
 * @param inFlight true for a write the run had sent before it stalled (presented as a bare token)
 * @param dbStart database time of an acquire (acquired_at)
 * @param dbExpires database expiry an acquire or renew granted
 * @param dbNow database time of the answer
 * @param invokeNanos local time the operation started
 * @param completeNanos local time it ended
 * @param detail free text: the fault, the error
 */
public record Op(
    String process,
    String worker,
    Type type,
    LeaseKey key,
    FencingToken token,
    Outcome outcome,
    String adapter,
    String writeId,
    boolean inFlight,
    Instant dbStart,
    Instant dbExpires,
    Instant dbNow,
    long invokeNanos,
    long completeNanos,
    String detail) {

  /** Kinds of operation. */
  public enum Type {
    ACQUIRE,
    RENEW,
    RELEASE,
    WRITE,
    /** The worker learned that its lease is lost. */
    LOSS_KNOWN,
    /** A fault the injector caused. */
    FAULT,
    /** An acquire after the faults stopped, to check liveness. */
    LIVENESS
  }

  /** What came back. */
  public enum Outcome {
    OK,
    /** Acquire: someone else holds the key. */
    BUSY,
    /** Renew or release: the run no longer held the lease. */
    NOT_HELD,
    /** Write: the resource refused a stale fence. */
    STALE,
    /** Write: refused locally, the lease was known lost. */
    LOCAL_REFUSED,
    /** An error: the outcome is unknown. */
    ERROR,
    /**
     * Recorded just before a release is sent: if the process dies before recording the outcome,
     * this line is all that is left, and the release may or may not have happened.
     */
    PENDING
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A worker's acquire, ending now, that the store granted with {@code grant}. */
  static Op acquired(
      String process, String worker, LeaseKey key, LeaseClient.Grant grant, long invokeNanos) {
    return new Op(
        process,
        worker,
        Type.ACQUIRE,
        key,
        grant.identity(),
        Outcome.OK,
        null,
        null,
        false,
        grant.acquiredAt(),
        grant.expiresAt(),
        grant.acquiredAt(),
        invokeNanos,
        System.nanoTime(),
        null);
  }

  /**
   * A worker's renew or release, ending now, with the store's answer {@code a}: held or not, the
   * database's time, and for a renew the expiry it granted.
   */
  static Op answered(
      String process,
      String worker,
      Type type,
      LeaseKey key,
      FencingToken token,
      LeaseClient.Answer a,
      long invokeNanos) {
    return new Op(
        process,
        worker,
        type,
        key,
        token,
        a.ok() ? Outcome.OK : Outcome.NOT_HELD,
        null,
        null,
        false,
        null,
        type == Type.RENEW ? a.expiresAt() : null,
        a.databaseNow(),
        invokeNanos,
        System.nanoTime(),
        null);
  }

  /**
   * An operation of the fault injector ({@code process} "injector"), ending now: a fault it caused
   * or a liveness check, with no token, write or database time.
   */
  static Op injected(
      String worker, Type type, LeaseKey key, Outcome outcome, long invokeNanos, String detail) {
    return new Op(
        "injector",
        worker,
        type,
        key,
        null,
        outcome,
        null,
        null,
        false,
        null,
        null,
        null,
        invokeNanos,
        System.nanoTime(),
        detail);
  }

  String toJson() {
    ObjectNode n = JSON.createObjectNode();
    n.put("process", process)
        .put("worker", worker)
        .put("type", type.name())
        .put("outcome", outcome.name());
    if (key != null) {
      n.put("account", key.accountId()).put("session", key.sessionId());
    }
    if (token != null) {
      n.put("token", token.toText());
    }
    putIfNotNull(n, "adapter", adapter);
    putIfNotNull(n, "writeId", writeId);
    n.put("inFlight", inFlight);
    putIfNotNull(n, "dbStart", dbStart == null ? null : dbStart.toString());
    putIfNotNull(n, "dbExpires", dbExpires == null ? null : dbExpires.toString());
    putIfNotNull(n, "dbNow", dbNow == null ? null : dbNow.toString());
    n.put("invokeNanos", invokeNanos).put("completeNanos", completeNanos);
    putIfNotNull(n, "detail", detail);
    try {
      return JSON.writeValueAsString(n);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Op fromJson(String line) {
    try {
      JsonNode n = JSON.readTree(line);
      return new Op(
          n.get("process").asText(),
          n.get("worker").asText(),
          Type.valueOf(n.get("type").asText()),
          n.has("account")
              ? LeaseKey.of(n.get("account").asText(), n.get("session").asText())
              : null,
          n.has("token") ? FencingToken.parse(n.get("token").asText()) : null,
          Outcome.valueOf(n.get("outcome").asText()),
          text(n, "adapter"),
          text(n, "writeId"),
          n.get("inFlight").asBoolean(),
          instant(n, "dbStart"),
          instant(n, "dbExpires"),
          instant(n, "dbNow"),
          n.get("invokeNanos").asLong(),
          n.get("completeNanos").asLong(),
          text(n, "detail"));
    } catch (IOException e) {
      throw new UncheckedIOException("bad history line: " + line, e);
    }
  }

  private static void putIfNotNull(ObjectNode n, String field, String value) {
    if (value != null) {
      n.put(field, value);
    }
  }

  private static String text(JsonNode n, String field) {
    return n.has(field) ? n.get(field).asText() : null;
  }

  private static Instant instant(JsonNode n, String field) {
    return n.has(field) ? Instant.parse(n.get(field).asText()) : null;
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    b.append(process)
        .append('/')
        .append(worker)
        .append(' ')
        .append(type)
        .append(' ')
        .append(outcome);
    if (key != null) {
      b.append(' ').append(key);
    }
    if (token != null) {
      b.append(" fence=")
          .append(token.fence())
          .append(" run=")
          .append(token.runId().toString(), 0, 8);
    }
    if (adapter != null) {
      b.append(' ').append(adapter).append(inFlight ? " (in flight)" : "");
    }
    if (dbStart != null) {
      b.append(" start=").append(dbStart);
    }
    if (dbExpires != null) {
      b.append(" expires=").append(dbExpires);
    }
    if (dbNow != null) {
      b.append(" dbNow=").append(dbNow);
    }
    if (detail != null) {
      b.append(" [").append(detail).append(']');
    }
    return b.toString();
  }
}
