SELECT statement_timestamp(), l.run_id, l.fence, l.holder, l.acquired_at, l.expires_at, l.released_at FROM leasehold_lease AS l WHERE l.account_id = 'pgb' AND l.session_id = 'held';
