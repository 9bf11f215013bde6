UPDATE shedlock SET lock_until = now() + interval '30 seconds', locked_at = now(), locked_by = 'h' WHERE name = 'pgb-held' AND lock_until <= now();
