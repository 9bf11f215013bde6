// Leasehold's module descriptors on the module path: the application module requires
// io.leasehold.lease and io.leasehold.devdb, starts PostgreSQL 17, applies the schema as plain SQL
// and takes a lease.
def log = new File(basedir, 'build.log').text
assert log =~ /MODULAR CONSUMER OK: fence 1 on PostgreSQL 17\./ : "the modular consumer did not run"
println "modular consumer build: ${log.readLines().find { it.contains('MODULAR CONSUMER OK') }}"
true
