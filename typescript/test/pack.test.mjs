// npm pack gives a tarball with the built code and its types, and no runtime dependency: pg and the
// agent SDKs are optional peers, and importing the core never imports an SDK.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

test('the packed tarball holds the ESM build with types, its README and LICENSE, and depends on nothing but optional peers', () => {
  const dir = new URL('..', import.meta.url).pathname;
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--loglevel=error'], { cwd: dir, encoding: 'utf8' }));
  const files = packed.files.map((f) => f.path);
  for (const f of ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts', 'dist/verify.d.ts', 'dist/mcp.js',
    'dist/openai-agents.js', 'dist/openai-agents.d.ts', 'dist/ai-sdk.js', 'dist/ai-sdk.d.ts', 'dist/testkit.js', 'dist/testkit.d.ts']) {
    assert.ok(files.includes(f), `${f} missing from ${files}`);
  }
  assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('test/') || f.startsWith('node_modules/')));
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  assert.equal(pkg.dependencies, undefined);
  assert.deepEqual(Object.keys(pkg.peerDependencies).sort(), ['@openai/agents', 'ai', 'pg']);
  for (const peer of Object.keys(pkg.peerDependencies)) assert.equal(pkg.peerDependenciesMeta[peer].optional, true, peer);
  assert.deepEqual(Object.keys(pkg.exports).sort(), ['.', './ai-sdk', './openai-agents', './testkit']);
  assert.equal(pkg.type, 'module');
});

test('the package says it is ESM only, and require() is refused as the README says', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  assert.equal(pkg.exports['.'].require, undefined);
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  assert.match(readme, /ESM only/);
  assert.match(readme, /ERR_PACKAGE_PATH_NOT_EXPORTED/);
});

// Every module the built package loads, from an entry point through its relative imports.
function loadedFrom(entry, seen = new Map()) {
  const file = new URL(entry, new URL('../dist/', import.meta.url));
  if (seen.has(file.href)) return seen;
  const imports = [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)\b[^'"]*?from\s+'([^']+)'|^import\s+'([^']+)'/gm)]
    .map((m) => m[1] ?? m[2]);
  seen.set(file.href, imports);
  for (const i of imports.filter((i) => i.startsWith('./'))) loadedFrom(i.slice(2), seen);
  return seen;
}

test('no entry point loads an agent SDK or pg at run time: the SDK entry points use their types only', () => {
  for (const entry of ['index.js', 'openai-agents.js', 'ai-sdk.js', 'testkit.js']) {
    const bare = [...loadedFrom(entry).values()].flat().filter((i) => !i.startsWith('./') && !i.startsWith('node:'));
    assert.deepEqual(bare, [], `${entry} loads ${bare}`);
  }
  const core = [...loadedFrom('index.js').keys()].map((f) => f.split('/').pop());
  for (const sdk of ['openai-agents.js', 'ai-sdk.js', 'testkit.js']) assert.ok(!core.includes(sdk), `the core loads ${sdk}`);
});
