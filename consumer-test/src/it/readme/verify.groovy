// The README's program ran: it acquired the session's lease and wrote through the file store.
def log = new File(basedir, 'build.log').text
assert log =~ /written with fence \d+/ : "the README's Main did not write with a fence"
assert log =~ /tool ran with fence \d+: queued for ada@example.org/ : "the README's ToolMain did not run its tool under a fence"
assert !log.contains('SLF4J(W)') : "the README's project warns about SLF4J"
println "readme build: ${log.readLines().find { it.contains('written with fence') }}"
true
