// A Spring Boot application module: it reads Leasehold's auto-configuration module, and opens
// its own package to Spring, which creates its beans by reflection.
module example.boot {
  requires io.leasehold.spring.boot;
  requires io.leasehold.devdb;
  requires spring.boot;
  requires spring.boot.autoconfigure;
  requires spring.context;
  requires spring.boot.health;

  opens example.boot;
}
