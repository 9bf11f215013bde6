/**
 * Leasehold's Spring Boot auto-configuration.
 *
 * <p>Spring Boot's and Spring Framework's jars are automatic modules with stable names of their
 * own. What the configuration uses only when the application has it (the guards, Micrometer, the
 * actuator, Boot's JDBC support) is required {@code static}: Spring's class conditions decide at
 * run time, and they read class names without loading them.
 *
 * <p>The package is exported, and open to Spring alone: Spring creates the nested configuration
 * classes through constructors it makes accessible by reflection. The consumer project that runs a
 * Spring Boot application on the module path (consumer-test/src/it/modular-spring) fails without
 * it.
 */
module io.leasehold.spring.boot {
  requires transitive io.leasehold.lease;
  requires transitive io.leasehold.fencing;
  requires transitive java.sql;
  // Spring's annotations and types appear on this module's public classes, so a module that
  // reads this one reads them too.
  requires transitive com.zaxxer.hikari;
  requires transitive spring.core;
  requires transitive spring.beans;
  requires transitive spring.context;
  requires transitive spring.boot;
  requires transitive spring.boot.autoconfigure;
  requires static io.leasehold.adapters;
  requires static io.leasehold.micrometer;
  requires static micrometer.core;
  requires static micrometer.observation;
  requires static spring.boot.jdbc;
  requires static spring.boot.health;
  requires static spring.boot.actuator;
  requires static spring.boot.actuator.autoconfigure;

  exports io.leasehold.spring.boot;

  opens io.leasehold.spring.boot to
      spring.core,
      spring.beans,
      spring.context,
      spring.boot;
}
