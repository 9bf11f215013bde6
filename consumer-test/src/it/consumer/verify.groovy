// What the consumer's build saw: its program ran on PostgreSQL 17, and Leasehold brought no
// test library into its compile or runtime class path.
def log = new File(basedir, 'build.log').text
assert log =~ /CONSUMER OK: fence 1 on PostgreSQL 17\./ : "the consumer did not run on PostgreSQL 17"
def tree = log.readLines().findAll { it.contains('[INFO] ') && (it.contains('+- ') || it.contains('\\- ')) }
assert !tree.isEmpty() : "no dependency tree in the log"
['junit', 'testcontainers', 'slf4j-simple', 'assertj'].each { lib ->
  def found = tree.findAll { it.contains(lib) }
  assert found.isEmpty() : "a test library reached the consumer: ${found}"
}
println "consumer build: ${log.readLines().find { it.contains('CONSUMER OK') }}"
true
