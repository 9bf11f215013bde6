// PostgresFenceGuard's names: only lower-case identifiers reach SQL (the guard against a live
// PostgreSQL runs in integrations/mcp, CrossLanguageTest, which has the database).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PostgresFenceGuard, trustEveryWriter } from '../dist/index.js';

const pool = { connect: async () => { throw new Error('not used'); } };
const guard = (options) => new PostgresFenceGuard({ pool, verifier: trustEveryWriter(), ...options });

test('table and schema names are validated before any SQL is built', () => {
  guard({});
  guard({ schema: 'tenant_1' });
  guard({ table: 'other_schema.marks' });
  for (const bad of [{ schema: 'Public' }, { schema: 'a"; DROP TABLE x; --' }, { schema: '' }, { table: 'a.b.c' },
    { table: '"x"' }, { table: 'x'.repeat(41) }, { schema: 7 }, { table: 'public.' }]) {
    assert.throws(() => guard(bad), /must be/, JSON.stringify(bad));
  }
});
