package io.leasehold.examples.web;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenTransport;
import io.leasehold.fencing.TokenVerificationException;
import io.leasehold.fencing.TokenVerifier;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * A remote resource owner's service, as a team that does not run the lease store would write it: it
 * receives writes over HTTP with the writer's token in the {@code Leasehold-Token} header, verifies
 * the token against the lease store's public keys, and lets its own fenced file store refuse stale
 * writers. The guard is the few lines of {@link #put}.
 */
final class RemoteNotes {
  private static final Pattern NAME = Pattern.compile("[a-z0-9-]{1,40}");
  private final TokenVerifier verifier;
  private final FencedFileStore notes;

  RemoteNotes(Path dir, TokenVerifier verifier) {
    this.verifier = verifier;
    this.notes = FencedFileStore.open(dir, verifier);
  }

  void route(Javalin app) {
    app.put("/api/notes/{name}", this::put);
  }

  // region remote-guard
  private void put(Context ctx) {
    String name = ctx.pathParam("name");
    if (!NAME.matcher(name).matches()) {
      ctx.status(400).result("note names are 1 to 40 of a-z 0-9 -");
      return;
    }
    try {
      FencingToken token =
          TokenTransport.verifyHeader(ctx.header(TokenTransport.HTTP_HEADER), verifier);
      // The path is built from the verified key, so a token only ever names its own session's
      // files.
      notes.write(
          token,
          token.key().accountId() + "/" + token.key().sessionId() + "/" + name,
          ctx.bodyAsBytes());
      ctx.status(204);
    } catch (TokenVerificationException e) {
      ctx.status(e.httpStatus()).result(e.getMessage()); // 400 malformed, 401 unsigned or forged
    } catch (StaleFenceException e) {
      ctx.status(409).result(e.getMessage()); // a newer run of the session has written
    }
  }
  // endregion
}
