BEGIN;
SET LOCAL citus.propagate_set_commands = 'local';
SET LOCAL lock_timeout = 1000;
SET LOCAL statement_timeout = 5000;
SELECT statement_timestamp(), l.run_id, l.fence, l.holder, l.acquired_at, l.expires_at, l.released_at FROM leasehold_lease AS l WHERE l.account_id = 'pgb' AND l.session_id = 'held';
COMMIT;
