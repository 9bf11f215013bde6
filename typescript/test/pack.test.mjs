// npm pack gives a tarball with the built code and its types, and no runtime dependency but the optional pg.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

test('the packed tarball holds the ESM build with types, its README and LICENSE, and depends on nothing but an optional pg', () => {
  const dir = new URL('..', import.meta.url).pathname;
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--loglevel=error'], { cwd: dir, encoding: 'utf8' }));
  const files = packed.files.map((f) => f.path);
  for (const f of ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts', 'dist/verify.d.ts', 'dist/mcp.js']) {
    assert.ok(files.includes(f), `${f} missing from ${files}`);
  }
  assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('test/') || f.startsWith('node_modules/')));
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  assert.equal(pkg.dependencies, undefined);
  assert.deepEqual(Object.keys(pkg.peerDependencies), ['pg']);
  assert.equal(pkg.peerDependenciesMeta.pg.optional, true);
  assert.equal(pkg.type, 'module');
});

test('the package says it is ESM only, and require() is refused as the README says', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  assert.equal(pkg.exports['.'].require, undefined);
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  assert.match(readme, /ESM only/);
  assert.match(readme, /ERR_PACKAGE_PATH_NOT_EXPORTED/);
});
