import { MarkStoreError } from './errors.js';
import type { PgClient } from './postgres.js';

// The columns HighWaterSchema creates, each NOT NULL, as the catalog's format_type spells them.
const EXPECTED: ReadonlyArray<readonly [string, string]> = [
  ['account_id', 'text'],
  ['session_id', 'text'],
  ['fence', 'bigint'],
  ['run_id', 'uuid'],
  ['admitted_at', 'timestamp with time zone'],
];

// One catalog read of exactly the guard's schema-qualified table (to_regclass gives null, so no
// rows, if it does not exist): each column's type and nullability, and the primary key's columns.
// Every function and operator is named in pg_catalog, as the admission's are.
const COLUMNS_SQL =
  'SELECT a.attname AS name, pg_catalog.format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null, ' +
  '(SELECT pg_catalog.string_agg(k.attname::pg_catalog.text, \',\' ORDER BY k.attname) FROM pg_catalog.pg_index i ' +
  'JOIN pg_catalog.pg_attribute k ON k.attrelid OPERATOR(pg_catalog.=) i.indrelid ' +
  'AND k.attnum OPERATOR(pg_catalog.=) ANY (i.indkey) ' +
  'WHERE i.indrelid OPERATOR(pg_catalog.=) a.attrelid AND i.indisprimary) AS primary_key ' +
  'FROM pg_catalog.pg_attribute a WHERE a.attrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass($1::pg_catalog.text) ' +
  'AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped';

/**
 * Checks, once per guard, that the high-water table is the one the Java `HighWaterSchema` creates,
 * as the Java writer's table check does (CONTRACT C16): a `text` fence column compares as text
 * ("9" > "10") and would admit a stale writer, and a table without its primary key would let two
 * marks of one key coexist. A failure is checked again on the next write, after a repair.
 */
export class HighWaterTableCheck {
  readonly #name: string;
  readonly #quoted: string;
  #passed = false;

  /** `name` as messages show it (`schema.table`), `quoted` as `to_regclass` reads it. */
  constructor(name: string, quoted: string) {
    this.#name = name;
    this.#quoted = quoted;
  }

  /** Passes once and is then free; throws `MarkStoreError` naming the table and the repair. */
  async ensure(client: PgClient): Promise<void> {
    if (this.#passed) return;
    const { rows } = await client.query(COLUMNS_SQL, [this.#quoted]);
    if (rows.length === 0) {
      throw new MarkStoreError(this.#name, `the high-water table ${this.#name} does not exist: run HighWaterSchema.apply(dataSource) ` +
        '(or its sqlScript()) on the resource database, or name the table\'s schema with the guard\'s schema option');
    }
    const columns = new Map(rows.map((r) => [String(r['name']), r]));
    const problems: string[] = [];
    for (const r of rows) {
      if (EXPECTED.some(([name]) => name === r['name']) && r['not_null'] !== true) problems.push(`${String(r['name'])} may be null`);
    }
    for (const [name, type] of EXPECTED) {
      const actual = columns.get(name)?.['type'];
      if (actual !== type) problems.push(`${name} is ${actual === undefined ? 'missing' : String(actual)}, expected ${type}`);
    }
    const primaryKey = rows[0]!['primary_key'];
    if (primaryKey !== 'account_id,session_id') {
      problems.push(`its primary key is (${primaryKey === null ? 'null' : String(primaryKey)}), expected (account_id, session_id)`);
    }
    if (problems.length > 0) {
      throw new MarkStoreError(this.#name, `the high-water table ${this.#name} is not the one HighWaterSchema creates ` +
        `(${problems.join('; ')}): every write is refused until it is. Move it aside and run HighWaterSchema.apply, ` +
        'then restore its marks into the new table');
    }
    this.#passed = true;
  }
}
