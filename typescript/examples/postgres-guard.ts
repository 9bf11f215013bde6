// A Node writer that shares its high-water mark with the Java FencedJdbcWriter: the table the
// Java HighWaterSchema creates, one row lock, one mark. Type-checked in the build.
import pg from 'pg';
import { PostgresFenceGuard, type Admission, type TokenVerifier } from '@leasehold/fencing';

/** Adds a note under the token's fence; throws StaleFenceError if a newer run wrote. */
export async function addNote(
  connectionString: string,
  verifier: TokenVerifier,
  tokenText: string,
  session: string,
  body: string,
): Promise<Admission> {
  // region postgres-guard
  const guard = new PostgresFenceGuard({ pool: new pg.Pool({ connectionString }), verifier });
  const { admission } = await guard.write(tokenText, (client) =>
    client.query('INSERT INTO notes (session, body) VALUES ($1, $2)', [session, body]));
  // StaleFenceError if a newer run wrote, through Java or Node: nothing was written
  // endregion
  return admission;
}
