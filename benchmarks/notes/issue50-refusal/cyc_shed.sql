UPDATE shedlock SET lock_until = now() + interval '30 seconds', locked_at = now(), locked_by = 'h' WHERE name = 'pgb-c1' AND lock_until <= now();
UPDATE shedlock SET lock_until = now() WHERE name = 'pgb-c1';
