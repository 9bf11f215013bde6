// mvn exec:java ran a main that started a LocalPostgres and never closed it. When that build's
// JVM exited, the server must have stopped and its temporary directory gone (issue 16: it was
// left running after 3 of 5 runs, when the exit hook lived in exec:java's thread group).
def log = new File(basedir, 'build.log').text
def m = log =~ /UNCLOSED STARTED port=(\d+) data=(\S+)/
assert m.find() : "the application did not start its server"
def port = m.group(1)
def data = m.group(2)
def deadline = System.currentTimeMillis() + 30_000
def running = { ['ps', '-eo', 'args'].execute().text.readLines().findAll { it.contains('postgres') && it.contains(" -p ${port} ") } }
while (!running().isEmpty() && System.currentTimeMillis() < deadline) {
  Thread.sleep(200)
}
assert running().isEmpty() : "the server on port ${port} outlived the JVM that started it: ${running()}"
assert !new File(data).exists() : "its data directory ${data} is still there"
println "unclosed consumer: the server on port ${port} stopped with its JVM"
true
