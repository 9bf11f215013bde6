// The database writer on the module path, on PostgreSQL 17.
def log = new File(basedir, 'build.log').text
assert log =~ /MODULAR JDBC OK: fence 5 wrote 'five', fence 3 refused \(StaleFenceException\), mark 5/ : "the JDBC writer module build did not run"
println "modular jdbc build: ${log.readLines().find { it.contains('MODULAR JDBC OK') }}"
true
