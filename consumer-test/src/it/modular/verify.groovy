// Leasehold's module descriptors on the module path: the application module requires
// io.leasehold.lease, io.leasehold.devdb and io.leasehold.micrometer, starts PostgreSQL 17, applies
// the schema as plain SQL, takes a lease and meters it.
def log = new File(basedir, 'build.log').text
assert log =~ /MODULAR CONSUMER OK: fence 1 on PostgreSQL 17\.\d+, acquires metered 1/ : "the modular consumer did not run"
println "modular consumer build: ${log.readLines().find { it.contains('MODULAR CONSUMER OK') }}"
true
