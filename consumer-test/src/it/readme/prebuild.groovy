// Writes the files README.md's "Usage" section shows, each marked
// <!-- consumer-test: PATH -->, into this project: the build then uses exactly those.
def readme = new File(basedir, '../../../../README.md').canonicalFile
assert readme.isFile() : "no README.md at ${readme}"
def blocks = (readme.text =~ /(?s)<!-- consumer-test: ([\w\/.]+) -->\s*\n```\w+\n(.*?)```/)
def written = []
blocks.each { all, path, text ->
  def target = new File(basedir, path)
  target.parentFile.mkdirs()
  target.text = text
  written << path
}
assert written.contains('pom.xml') : "README.md shows no pom.xml marked for consumer-test"
assert written.any { it.endsWith('.java') } : "README.md shows no Java file marked for consumer-test"
println "README files: ${written}"
true
