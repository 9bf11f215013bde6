package io.leasehold.reliability.ha;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Patroni's REST API as the {@link PatroniCluster} uses it: reading the {@code /cluster} document
 * from whichever node answers, judging leader and health from it, and asking for a switchover. The
 * cluster itself starts and kills the processes.
 */
final class PatroniRest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

  /** The {@code /cluster} document from the first of the REST ports that answers, or empty. */
  Optional<JsonNode> cluster(List<Integer> restPorts) {
    for (int port : restPorts) {
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/cluster"))
                    .timeout(Duration.ofSeconds(2))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return Optional.of(JSON.readTree(r.body()));
        }
      } catch (IOException e) {
        // that node is down; ask the next
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** The running leader named by a {@code /cluster} document, or empty while there is none. */
  static Optional<String> leader(JsonNode cluster) {
    return members(cluster).stream()
        .filter(
            m ->
                m.path("role").asText().equals("leader")
                    && m.path("state").asText().equals("running"))
        .map(m -> m.path("name").asText())
        .findFirst();
  }

  /** Whether every node runs, one leads, and (when synchronous) one is its synchronous standby. */
  static boolean healthy(JsonNode cluster, boolean synchronous) {
    List<JsonNode> members = members(cluster);
    long running =
        members.stream().filter(m -> m.path("state").asText().matches("running|streaming")).count();
    long leaders = members.stream().filter(m -> m.path("role").asText().equals("leader")).count();
    long syncs =
        members.stream().filter(m -> m.path("role").asText().equals("sync_standby")).count();
    return members.size() == 3 && running == 3 && leaders == 1 && (!synchronous || syncs >= 1);
  }

  /**
   * A running node other than the leader to switch over to; when synchronous, only its synchronous
   * standby, so that no acknowledged write is lost.
   */
  static String switchoverCandidate(JsonNode cluster, String from, boolean synchronous) {
    return members(cluster).stream()
        .filter(m -> !m.path("name").asText().equals(from))
        .filter(m -> m.path("state").asText().matches("running|streaming"))
        .filter(m -> !synchronous || m.path("role").asText().equals("sync_standby"))
        .map(m -> m.path("name").asText())
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no candidate for a switchover: " + cluster));
  }

  /** Asks the leader's Patroni, on its REST port, to hand the lead to {@code to}. */
  void switchover(int leaderRestPort, String from, String to) {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + leaderRestPort + "/switchover"))
                  .timeout(Duration.ofSeconds(30))
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"leader\":\"" + from + "\",\"candidate\":\"" + to + "\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IllegalStateException(
            "switchover " + from + " -> " + to + " refused: " + r.statusCode() + " " + r.body());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static List<JsonNode> members(JsonNode cluster) {
    List<JsonNode> out = new ArrayList<>();
    cluster.path("members").forEach(out::add);
    return out;
  }
}
