BEGIN;
SET LOCAL citus.propagate_set_commands = 'local';
SET LOCAL lock_timeout = 1000;
SET LOCAL statement_timeout = 5000;
WITH upd AS (WITH f AS (SELECT nextval('leasehold_fence_seq') AS v)
  UPDATE leasehold_lease AS l SET run_id = '5f0d5b8e-8e3a-4a52-9c2e-3b5a0b7f0c11'::uuid, fence = GREATEST((SELECT v FROM f), l.fence + 1), holder = 'h',
    acquired_at = GREATEST(statement_timestamp(), l.released_at), renewed_at = GREATEST(statement_timestamp(), l.released_at),
    expires_at = (((GREATEST(statement_timestamp(), l.released_at)) AT TIME ZONE 'UTC') + (30000000) * interval '1 microsecond') AT TIME ZONE 'UTC',
    released_at = NULL, took_over = l.released_at IS NULL
  WHERE l.account_id = 'pgb' AND l.session_id = 'held'
    AND ((l.released_at IS NOT NULL AND (l.expires_at <= l.released_at OR l.expires_at <= statement_timestamp()))
         OR l.expires_at <= statement_timestamp() - 0 * interval '1 microsecond')
  RETURNING l.fence, l.acquired_at)
SELECT true, fence, acquired_at, NULL::uuid, NULL::text, NULL::timestamptz, NULL::timestamptz, statement_timestamp() FROM upd
UNION ALL
SELECT false, l.fence, l.acquired_at, l.run_id, l.holder, l.expires_at, l.released_at, statement_timestamp()
  FROM leasehold_lease AS l WHERE l.account_id = 'pgb' AND l.session_id = 'held' AND NOT EXISTS (SELECT 1 FROM upd);
COMMIT;
