SELECT false, l.fence, l.acquired_at, l.run_id, l.holder, l.expires_at, l.released_at, statement_timestamp()
  FROM leasehold_lease AS l WHERE l.account_id = 'pgb' AND l.session_id = 'held';
