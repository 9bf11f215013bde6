import { MarkStoreError, StaleFenceError } from './errors.js';
import { type Admission, type FenceGuard, type Scope, verifyInScope } from './guard.js';
import { HighWaterTableCheck } from './high-water-table.js';
import { type FencingToken, type LeaseKey, keyName } from './token.js';
import type { TokenVerifier } from './verify.js';

/** The part of a `pg` client this guard uses (a `PoolClient` from `pg`). */
export interface PgClient {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  release(): void;
}

/** The part of a `pg` pool this guard uses. */
export interface PgPool {
  connect(): Promise<PgClient>;
}

export interface PostgresGuardOptions {
  readonly pool: PgPool;
  readonly verifier: TokenVerifier;
  /**
   * The high-water table the Java FencedJdbcWriter uses; default `leasehold_high_water`. A plain
   * name is looked up in `schema`; `schema.table` names both.
   */
  readonly table?: string;
  /**
   * The PostgreSQL schema of the table, as the Java writer's `databaseSchema`; default `public`.
   * Every statement names it, so a table of the same name earlier on the connection's
   * `search_path` (a schema named after the database user comes first by default) is never used.
   */
  readonly schema?: string;
  /** How long an admission waits for another writer's row lock, in ms; default 5000. */
  readonly lockTimeoutMillis?: number;
}

// The Java adapters' rule (SqlNames): lower-case identifiers of at most 40 characters.
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,39}$/;

/**
 * The table's schema-qualified name as messages show it, and quoted, from validated parts: names
 * cannot be bind parameters, so only lower-case identifiers are ever spliced into SQL, and quoting
 * them keeps a reserved word a name.
 */
function qualifiedTable(table: string, schema: string): { name: string; quoted: string } {
  const parts = table.split('.');
  const [s, t] = parts.length === 2 ? [parts[0]!, parts[1]!] : [schema, table];
  if (parts.length > 2 || !IDENTIFIER.test(t)) {
    throw new Error(`table must be a lower-case SQL identifier of at most 40 characters, optionally schema-qualified; was ${JSON.stringify(table)}`);
  }
  if (!IDENTIFIER.test(s)) {
    throw new Error(`schema must be a lower-case SQL identifier of at most 40 characters; was ${JSON.stringify(s)}`);
  }
  return { name: `${s}.${t}`, quoted: `"${s}"."${t}"` };
}

/**
 * High-water marks in PostgreSQL, in the same table and under the same row lock as the Java
 * `FencedJdbcWriter`, so a Java writer and a Node writer of one resource share one mark. Each
 * write is one transaction: the admission raises the key's mark (or finds it higher and refuses),
 * holding the row lock, then the work runs on the same connection and everything commits
 * together, or nothing does. It fails closed by the Java writer's rules (CONTRACT C16), with its
 * words: a table that is not the one `HighWaterSchema` creates (checked once per guard) refuses
 * every write, and a mark that is not a fence (negative, written by hand after its CHECK was
 * dropped) refuses every write of its key; both throw `MarkStoreError`, which names the table and
 * the repair (docs/high-water-table-vectors.json holds the cases both languages run).
 */
export class PostgresFenceGuard implements FenceGuard {
  readonly #pool: PgPool;
  readonly #verifier: TokenVerifier;
  readonly #table: string;
  readonly #tableCheck: HighWaterTableCheck;
  readonly #begin: string;
  readonly #admitSql: string;
  readonly #markSql: string;

  constructor(options: PostgresGuardOptions) {
    if (options.table !== undefined && typeof options.table !== 'string') throw new Error('table must be a string');
    if (options.schema !== undefined && typeof options.schema !== 'string') throw new Error('schema must be a string');
    // Every object name schema-qualified, as the Java writer's: a look-alike table earlier on the
    // search_path would otherwise take the marks, and a Java and a Node writer would keep two.
    // The built-in functions and type are named in pg_catalog too, whatever the search_path.
    if (options.schema !== undefined && options.table !== undefined && options.table.includes('.')
        && options.table.split('.')[0] !== options.schema) {
      throw new Error(`table ${JSON.stringify(options.table)} names another schema than schema ${JSON.stringify(options.schema)}: give one of them`);
    }
    const names = qualifiedTable(options.table ?? 'leasehold_high_water', options.schema ?? 'public');
    const table = names.quoted;
    const timeout = options.lockTimeoutMillis ?? 5000;
    if (!Number.isInteger(timeout) || timeout < 1 || timeout > 3_600_000) {
      throw new Error('lockTimeoutMillis must be an integer from 1 to 3600000');
    }
    this.#pool = options.pool;
    this.#verifier = options.verifier;
    this.#table = names.name;
    this.#tableCheck = new HighWaterTableCheck(names.name, names.quoted);
    // Every lock wait of the transaction ends at the timeout (CONTRACT C21), table locks too: a
    // table lock (a migration's ALTER TABLE) is taken before a statement runs, so the setting is
    // a statement of its own, sent with BEGIN in one round trip. Local to the transaction.
    this.#begin = `BEGIN; SELECT pg_catalog.set_config('lock_timeout', '${timeout}', true)`;
    // The Java writer's admission: ON CONFLICT locks the key's row whether or not the WHERE holds,
    // so the mark cannot move until this transaction ends. It raises only a mark that is a fence
    // or none (not negative): no row returned means stale, or a damaged mark (#refusal says which).
    this.#admitSql =
      `INSERT INTO ${table} AS h (account_id, session_id, fence, run_id, admitted_at) ` +
      `SELECT $1, $2, $3, $4::pg_catalog.uuid, pg_catalog.clock_timestamp() ` +
      `ON CONFLICT (account_id, session_id) DO UPDATE SET fence = EXCLUDED.fence, ` +
      `run_id = EXCLUDED.run_id, admitted_at = EXCLUDED.admitted_at WHERE h.fence OPERATOR(pg_catalog.<=) EXCLUDED.fence ` +
      `AND h.fence OPERATOR(pg_catalog.>=) 0 ` +
      `RETURNING h.fence`;
    // Operators are named in pg_catalog too: a search_path that lists a schema before an explicit
    // pg_catalog (a role's setting, a connection option) would otherwise let a look-alike `<=`
    // admit a stale fence and lower the mark, or a look-alike `=` read another key's row.
    this.#markSql =
      `SELECT fence FROM ${table} WHERE account_id OPERATOR(pg_catalog.=) $1::pg_catalog.text ` +
      `AND session_id OPERATOR(pg_catalog.=) $2::pg_catalog.text`;
  }

  /** Admits without other work: raises the mark, durably. */
  async admit(presented: string | FencingToken, scope?: Scope): Promise<Admission> {
    return (await this.write(presented, async () => undefined, scope)).admission;
  }

  /** The key's mark, read in its own statement (no lock, nothing admitted). */
  async markOf(key: LeaseKey): Promise<bigint | undefined> {
    const client = await this.#pool.connect();
    try {
      await this.#tableCheck.ensure(client);
      const mark = await client.query(this.#markSql, [key.accountId, key.sessionId]);
      return mark.rows.length === 0 ? undefined : BigInt(String(mark.rows[0]!['fence']));
    } finally {
      client.release();
    }
  }

  /**
   * Runs `work` in the admission's transaction: committed with the raised mark, or rolled back
   * with it if anything throws. A stale token throws `StaleFenceError` before `work` runs.
   */
  async write<T>(
    presented: string | FencingToken,
    work: (client: PgClient) => Promise<T>,
    scope?: Scope,
  ): Promise<{ admission: Admission; result: T }> {
    const token = verifyInScope(this.#verifier, presented, scope);
    const client = await this.#pool.connect();
    try {
      await this.#tableCheck.ensure(client);
      await client.query(this.#begin);
      try {
        const before = await client.query(this.#markSql, [token.key.accountId, token.key.sessionId]);
        const admitted = await client.query(this.#admitSql,
          [token.key.accountId, token.key.sessionId, token.fence.toString(), token.runId]);
        if (admitted.rows.length === 0) {
          const mark = await client.query(this.#markSql, [token.key.accountId, token.key.sessionId]);
          throw this.#refusal(token, BigInt(String(mark.rows[0]?.['fence'] ?? 0)));
        }
        const previous = before.rows.length === 0 ? 0n : BigInt(String(before.rows[0]!['fence']));
        const result = await work(client);
        await client.query('COMMIT');
        return { admission: { token, previousMark: previous }, result };
      } catch (e) {
        await client.query('ROLLBACK');
        throw e;
      }
    } finally {
      client.release();
    }
  }

  /** Why the admission of `token` was refused, from the key's mark read after it. */
  #refusal(token: FencingToken, mark: bigint): Error {
    if (mark < 0n) {
      return new MarkStoreError(this.#table, `the mark row of ${keyName(token.key)} in ${this.#table} ` +
        `holds ${mark}, which is not a fence: the table was edited outside Leasehold. Every admission of the key is ` +
        'refused until an operator resets its mark (resetMark on the Java FencedJdbcWriter, or ResetMarkCommand) ' +
        'to the lease table\'s current fence for the key');
    }
    return new StaleFenceError(token.key.accountId, token.key.sessionId, token.fence, mark);
  }
}
