// The starter's auto-configuration on the module path: a Spring Boot application module gets the
// LeaseStore bean through io.leasehold.spring.boot, takes a lease on PostgreSQL 17, and its access
// policy bean refuses another account; Leasehold's health indicator (an optional part) reports UP; the configuration's module is the declared one, not an
// automatic module.
def log = new File(basedir, 'build.log').text
assert log =~ /MODULAR SPRING OK: fence 1 from the auto-configured store, other account denied true, health UP, configured by module io\.leasehold\.spring\.boot \(declared\)/ : "the modular Spring Boot consumer did not run"
println "modular spring consumer build: ${log.readLines().find { it.contains('MODULAR SPRING OK') }}"
true
