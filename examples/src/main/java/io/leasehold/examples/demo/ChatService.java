package io.leasehold.examples.demo;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.InMemoryFenceGuard;
import io.leasehold.fencing.TokenTransport;
import io.leasehold.fencing.TokenVerifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A stand-in for a downstream chat service that a tool posts to. It receives the token in the
 * {@code Leasehold-Token} header and checks it with its own guard, as a remote resource owner
 * would.
 */
final class ChatService {
  /** A posted message. */
  record Message(String text, FencingToken writer) {}

  private final InMemoryFenceGuard guard =
      InMemoryFenceGuard.create(TokenVerifier.trustEveryWriter());
  private final List<Message> messages = Collections.synchronizedList(new ArrayList<>());

  /** Handles "POST /messages" with the given header; throws StaleFenceException for a stale run. */
  void post(String tokenHeader, String text) {
    FencingToken token = TokenTransport.fromHeader(tokenHeader);
    guard.runFenced(token, () -> messages.add(new Message(text, token)));
  }

  List<Message> messages() {
    synchronized (messages) {
      return List.copyOf(messages);
    }
  }
}
