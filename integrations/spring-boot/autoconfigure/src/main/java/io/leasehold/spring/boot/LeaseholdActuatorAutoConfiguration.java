package io.leasehold.spring.boot;

import io.leasehold.lease.LeaseStore;
import java.time.Duration;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Actuator support: the {@code leasehold} health indicator, the {@code leasehold} endpoint that
 * lists held leases, and (only with {@code leasehold.admin.force-release-enabled=true}) the {@code
 * leaseholdadmin} endpoint for force release. Each follows actuator's usual switches ({@code
 * management.health.leasehold.enabled}, {@code management.endpoints.web.exposure.include}).
 */
@AutoConfiguration(after = LeaseholdAutoConfiguration.class)
@ConditionalOnBean(LeaseStore.class)
public class LeaseholdActuatorAutoConfiguration {
  /** Creates the configuration; Spring calls it. */
  public LeaseholdActuatorAutoConfiguration() {}

  /** The health indicator, when Spring Boot's health module is present. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
  @ConditionalOnEnabledHealthIndicator("leasehold")
  static class HealthConfiguration {
    @Bean
    @ConditionalOnMissingBean(name = "leaseholdHealthIndicator")
    LeaseholdHealthIndicator leaseholdHealthIndicator(
        LeaseStore store, LeaseholdProperties properties) {
      Duration max = properties.getHealth().getMaxKeeperLag();
      return new LeaseholdHealthIndicator(
          store, max != null ? max : store.renewInterval().multipliedBy(2));
    }
  }

  /** The endpoints, when actuator is present. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
  static class Endpoints {
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    LeaseholdEndpoint leaseholdEndpoint(LeaseStore store) {
      return new LeaseholdEndpoint(store);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    @ConditionalOnBooleanProperty(name = "leasehold.admin.force-release-enabled")
    LeaseholdAdminEndpoint leaseholdAdminEndpoint(LeaseStore store) {
      return new LeaseholdAdminEndpoint(store);
    }
  }
}
