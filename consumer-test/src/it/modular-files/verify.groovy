// The file store alone on the module path: no pgjdbc, no Liquibase, no Jackson, the internal package closed.
def log = new File(basedir, 'build.log').text
assert log =~ /MODULAR FILES OK: fence 5 wrote 'five', fence 3 refused \(StaleFenceException\)/ : "the file-store module build did not run"
println "modular files build: ${log.readLines().find { it.contains('MODULAR FILES OK') }}"
true
