package io.leasehold.examples.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenTransport;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.Lease;
import io.leasehold.testing.TestDatabaseExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The web demo's remote resource service (CONTRACT C15 over HTTP): a signed token of the current
 * run is admitted; a missing, malformed, unsigned or forged one gets the status its refusal maps
 * to; a superseded run gets 409.
 */
class RemoteNotesTest {
  @RegisterExtension static final TestDatabaseExtension db = TestDatabaseExtension.empty();
  @RegisterExtension static final RunningWebDemo web = new RunningWebDemo(db);
  private static final HttpClient http = HttpClient.newHttpClient();

  private static int put(String note, Optional<String> header) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + web.demo().port() + "/api/notes/" + note))
            .PUT(HttpRequest.BodyPublishers.ofString("hello"));
    header.ifPresent(h -> b.header(TokenTransport.HTTP_HEADER, h));
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString()).statusCode();
  }

  /** The lease of the demo's session, taken by {@code device}'s store. */
  private Lease acquire(String device) {
    return web.demo()
        .store(device)
        .tryAcquire(AcquireRequest.of(WebDemo.SESSION, "acct-7"))
        .acquiredLease()
        .orElseThrow();
  }

  @Test
  void onlyTheCurrentRunsSignedTokenWrites() throws Exception {
    Lease desktop = acquire("desktop");
    FencingToken token = desktop.token();
    assertThat(put("plan", Optional.of(token.toText()))).isEqualTo(204);

    assertThat(put("plan", Optional.empty())).isEqualTo(401);
    assertThat(put("plan", Optional.of("lh2.garbage"))).isEqualTo(400);
    assertThat(put("plan", Optional.of(token.unsigned().toText()))).isEqualTo(401);
    FencingToken forged =
        new FencingToken(token.key(), Long.MAX_VALUE, token.runId(), token.signature());
    assertThat(put("plan", Optional.of(forged.toText()))).isEqualTo(401);
    FencingToken otherKey =
        SigningKey.generate(SignatureScheme.ED25519, "web-demo-1")
            .sign(forged.unsigned(), Clock.systemUTC(), Duration.ofMinutes(5));
    assertThat(put("plan", Optional.of(otherKey.toText()))).isEqualTo(401);

    desktop.release();
    Lease browser = acquire("browser");
    assertThat(put("plan", Optional.of(browser.token().toText()))).isEqualTo(204);
    assertThat(put("plan", Optional.of(token.toText()))).isEqualTo(409); // the superseded run
    browser.release();
  }
}
