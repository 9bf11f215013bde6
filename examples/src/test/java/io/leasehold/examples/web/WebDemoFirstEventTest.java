package io.leasehold.examples.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.testing.TestDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 31, item 6: the web demo's event stream sent nothing on a quiet session until something
 * changed, so a page opened then showed "connecting..." for good. Every stream now starts with the
 * current status, read when the page connects (not a copy kept from the server's start).
 */
class WebDemoFirstEventTest {
  @RegisterExtension static final TestDatabaseExtension db = TestDatabaseExtension.empty();

  @Test
  @Timeout(60)
  void theFirstEventOfEveryStreamIsTheStatusAsOfTheConnection() throws Exception {
    TestDatabase d = db.database();
    try (WebDemo demo = RunningWebDemo.startOn(d)) {
      // A first page: its stream must start with a status.
      JsonNode first = firstStatus(demo);
      assertThat(first.get("state").asText()).isEqualTo("FREE");
      // A second page, later: its first status is read at its connection, not the one kept
      // since the first page (or the server's start), on this quiet session.
      Instant before;
      try (Connection c = db.dataSource().getConnection();
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT clock_timestamp()")) {
        rs.next();
        before = rs.getTimestamp(1).toInstant().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
      }
      JsonNode second = firstStatus(demo);
      assertThat(Instant.ofEpochMilli(second.get("databaseNow").asLong())).isAfterOrEqualTo(before);
    }
  }

  /** Connects a stream like a page does and returns its first event, which must be a status. */
  private static JsonNode firstStatus(WebDemo demo) throws Exception {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpResponse<InputStream> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://localhost:" + demo.port() + "/api/events"))
                .header("Accept", "text/event-stream") // as EventSource sends it
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
      String event = null;
      String data = null;
      for (String line; data == null && (line = in.readLine()) != null; ) {
        if (line.startsWith("event:")) {
          event = line.substring("event:".length()).trim();
        } else if (line.startsWith("data:")) {
          data = line.substring("data:".length()).trim();
        }
      }
      assertThat(event).as("the stream's first event").isEqualTo("status");
      return new ObjectMapper().readTree(data);
    }
  }
}
