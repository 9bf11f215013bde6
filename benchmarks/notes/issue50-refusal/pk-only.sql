SELECT 1 FROM leasehold_lease AS l WHERE l.account_id = 'pgb' AND l.session_id = 'held';
