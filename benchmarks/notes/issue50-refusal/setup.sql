-- The held row the .sql files refuse on (psql -f setup.sql); delete both rows afterwards.
INSERT INTO leasehold_lease (account_id, session_id, run_id, fence, holder, acquired_at, renewed_at, expires_at, released_at, took_over)
VALUES ('pgb', 'held', gen_random_uuid(), 1, 'x', now(), now(), now() + interval '1 day', NULL, false)
ON CONFLICT (account_id, session_id) DO UPDATE SET expires_at = now() + interval '1 day', released_at = NULL;
INSERT INTO shedlock VALUES ('pgb-held', now() + interval '1 day', now(), 'x')
ON CONFLICT (name) DO UPDATE SET lock_until = now() + interval '1 day';
