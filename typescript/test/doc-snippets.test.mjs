// Every TypeScript and JavaScript sample in README.md and docs/ is a region of a file the build
// checks: examples/*.ts (type-checked by `npm run typecheck` in the build) or a fixture the tests
// run. A sample is marked `<!-- snippet: typescript/PATH#region -->` on the line before it, and
// must equal the lines between `// region NAME` and `// endregion` there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const repo = new URL('../..', import.meta.url).pathname;
const docs = ['README.md', ...readdirSync(join(repo, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f))];
const block = /(?:<!-- snippet: (typescript\/[\w/.-]+)#([\w-]+) -->\s*\n)?```(ts|js|typescript|javascript)\n([\s\S]*?)```/g;

function region(file, name) {
  const lines = readFileSync(join(repo, file), 'utf8').split('\n');
  const start = lines.findIndex((l) => l.trim() === `// region ${name}`);
  const end = lines.findIndex((l, i) => i > start && l.trim() === '// endregion');
  assert.ok(start >= 0 && end > start, `${file} has no region ${name}`);
  const body = lines.slice(start + 1, end);
  const indent = Math.min(...body.filter((l) => l.trim()).map((l) => l.match(/^ */)[0].length));
  return body.map((l) => l.slice(indent)).join('\n').trim();
}

test('every TypeScript and JavaScript sample in the docs is a region of checked code', () => {
  let checked = 0;
  for (const doc of docs) {
    const text = readFileSync(join(repo, doc), 'utf8');
    for (const m of text.matchAll(block)) {
      assert.ok(m[1], `${doc}: a ${m[3]} block without a <!-- snippet: typescript/PATH#region --> marker:\n${m[4]}`);
      assert.equal(m[4].trim(), region(m[1], m[2]), `${doc} quotes ${m[1]}#${m[2]}`);
      checked++;
    }
  }
  assert.ok(checked >= 3, `only ${checked} samples found`);
});
