// The file store alone on the module path: no pgjdbc, no Liquibase, no Jackson, the internal packages closed.
def log = new File(basedir, 'build.log').text
assert log =~ /MODULAR FILES OK: fence 5 wrote 'five', fence 3 refused \(StaleFenceException\)/ : "the file-store module build did not run"
// The build's first goal is dependency:tree: what a user who depends on leasehold-file-store resolves.
def tree = log.readLines().findAll { it =~ /^\[INFO\] ([|+\\ -]+)?[\w.-]+:[\w.-]+:jar:/ }
assert tree.any { it.contains('io.leasehold:leasehold-file-store:jar') } : "no dependency tree in the build log"
def unwanted = ['org.postgresql', 'com.fasterxml.jackson', 'org.liquibase', 'leasehold-schema-support', 'leasehold-resource-adapters']
def found = tree.findAll { line -> unwanted.any { line.contains(it) } }
assert found.isEmpty() : "leasehold-file-store brings ${found}"
println "modular files build: ${log.readLines().find { it.contains('MODULAR FILES OK') }}"
println "modular files dependencies: ${tree.collect { it.replaceAll(/^\[INFO\] [|+\\ -]*/, '') }}"
true
