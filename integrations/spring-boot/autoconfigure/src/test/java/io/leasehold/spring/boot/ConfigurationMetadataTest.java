package io.leasehold.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/** IDEs complete the properties from the metadata the build writes; every property is in it. */
class ConfigurationMetadataTest {
  @Test
  void everyPropertyIsDescribed() throws Exception {
    String json;
    try (InputStream in =
        Objects.requireNonNull(
            LeaseholdProperties.class.getResourceAsStream(
                "/META-INF/spring-configuration-metadata.json"),
            "no configuration metadata: is spring-boot-configuration-processor on the processor path?")) {
      json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(json)
        .contains(
            "\"leasehold.ttl\"",
            "\"leasehold.renew-interval\"",
            "\"leasehold.safety-margin\"",
            "\"leasehold.takeover-delay\"",
            "\"leasehold.notify-changes\"",
            "\"leasehold.schema.apply\"",
            "\"leasehold.datasource.url\"",
            "\"leasehold.tokens.verification\"",
            "\"leasehold.guards.file-store-root\"",
            "\"leasehold.health.max-keeper-lag\"",
            "\"leasehold.admin.force-release-enabled\"")
        .contains("How long a lease lasts without renewal");
  }
}
