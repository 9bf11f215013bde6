package io.leasehold.examples.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.testing.TestDatabaseExtension;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 46, item 12: pressing "Wake it up" right after a takeover sometimes listed a woken late
 * write as admitted, once below the new run's admitted write to the same resource, so the page
 * could not tell a stale write admitted (a CONTRACT C9 violation) from a list in the wrong order.
 * It was the list: each resource admits the late write only while the new run has not written to
 * it, and the log was appended after the write returned, in any order. This drives the demo's own
 * HTTP API through many takeovers, each woken at once, and checks every resource's own record (no
 * fence admitted below one admitted before) against what the page is sent (the same admissions, in
 * the same order, by the number the page sorts by).
 */
class WebDemoLateWritesTest {
  private static final int TAKEOVERS = 8;
  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension static final TestDatabaseExtension db = TestDatabaseExtension.empty();
  @RegisterExtension static final RunningWebDemo web = new RunningWebDemo(db);

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @Test
  @Timeout(180)
  void noResourceAdmitsAStaleFenceAndThePageShowsEachResourcesOrder() throws Exception {
    WebResources resources = web.demo().resources();
    String runner = "desktop";
    String other = "browser";
    awaitAcquired(runner);
    await("the first run writes", () -> admittedBy(resources, "desktop") > 0);
    for (int i = 0; i < TAKEOVERS; i++) {
      post("/api/freeze", runner);
      awaitAcquired(other); // the takeover, as soon as the frozen run's lease has expired
      String woken = runner;
      long before = resources.entries().stream().filter(w -> w.device().equals(woken)).count();
      post("/api/wake", woken); // right after the takeover
      // The woken run delivers its three late writes, then its next step is refused locally.
      await(
          "the woken run's writes",
          () ->
              resources.entries().stream().filter(w -> w.device().equals(woken)).count()
                  >= before + 4);
      runner = other;
      other = woken;
    }

    List<JsonNode> page = pageWrites(resources.entries().size());
    Map<String, List<Long>> recorded = resources.admittedByResource();
    for (String adapter : WebResources.ADAPTERS) {
      List<Long> own = recorded.get(adapter);
      // CONTRACT C9, from the resource's own record: never a fence below one admitted before.
      for (int i = 1; i < own.size(); i++) {
        assertThat(own.get(i))
            .as("%s admission %d of %s", adapter, i, own)
            .isGreaterThanOrEqualTo(own.get(i - 1));
      }
      // The page, sorted by its numbers, lists the resource's admissions in the resource's order.
      List<Long> shown = new ArrayList<>();
      for (JsonNode w : page) {
        if (w.get("adapter").asText().equals(adapter) && w.get("admitted").asBoolean()) {
          shown.add(w.get("fence").asLong());
          assertThat(w.get("highestBefore").asLong())
              .as("an admitted write's highest before: %s", w)
              .isLessThanOrEqualTo(w.get("fence").asLong());
        }
      }
      assertThat(shown).as("%s as the page shows it", adapter).hasSizeGreaterThan(TAKEOVERS);
      assertThat(own.subList(0, shown.size())).as("%s's own order", adapter).isEqualTo(shown);
    }
    // Each late write the page calls admitted says why: the new run had not written there yet.
    for (JsonNode w : page) {
      if (w.get("late").asBoolean() && w.get("admitted").asBoolean()) {
        assertThat(w.get("outcome").asText()).contains("has not written to it yet");
      }
    }
    long lateAdmitted =
        page.stream()
            .filter(w -> w.get("late").asBoolean() && w.get("admitted").asBoolean())
            .count();
    System.out.println(
        "late writes admitted by a resource the new run had not written to yet: "
            + lateAdmitted
            + " in "
            + TAKEOVERS
            + " takeovers");
  }

  private static long admittedBy(WebResources resources, String device) {
    return resources.entries().stream()
        .filter(w -> w.device().equals(device) && w.admitted())
        .count();
  }

  /** Presses Run until the device acquires the lease (it is busy until the other's expires). */
  private void awaitAcquired(String device) throws Exception {
    Instant deadline = Instant.now().plusSeconds(30);
    while (true) {
      HttpResponse<String> r = post("/api/run", device);
      if (r.statusCode() == 200 && JSON.readTree(r.body()).get("acquired").asBoolean()) {
        return;
      }
      assertThat(Instant.now())
          .as("%s acquires: %s %s", device, r.statusCode(), r.body())
          .isBefore(deadline);
      Thread.sleep(5); // polling the lease status, like a page's button
    }
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    Instant deadline = Instant.now().plusSeconds(30);
    while (!condition.getAsBoolean()) {
      assertThat(Instant.now()).as(what).isBefore(deadline);
      Thread.sleep(5);
    }
  }

  private HttpResponse<String> post(String path, String device) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://localhost:" + web.demo().port() + path))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString("device=" + device + "&account=acct-7"))
            .timeout(Duration.ofSeconds(30))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The first {@code count} write events a page opened now is sent, sorted as it sorts them. */
  private List<JsonNode> pageWrites(int count) throws Exception {
    HttpResponse<InputStream> response =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://localhost:" + web.demo().port() + "/api/events"))
                .header("Accept", "text/event-stream")
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
    Map<Long, JsonNode> writes = new LinkedHashMap<>();
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
      String event = null;
      for (String line; writes.size() < count && (line = in.readLine()) != null; ) {
        if (line.startsWith("event:")) {
          event = line.substring("event:".length()).trim();
        } else if (line.startsWith("data:") && "write".equals(event)) {
          JsonNode w = JSON.readTree(line.substring("data:".length()).trim());
          if (w.get("seq").asLong() <= count) { // later ones may come before one of these
            writes.put(w.get("seq").asLong(), w);
          }
        }
      }
    }
    List<JsonNode> sorted = new ArrayList<>(writes.values());
    sorted.sort(Comparator.comparingLong(w -> w.get("seq").asLong()));
    return sorted;
  }
}
