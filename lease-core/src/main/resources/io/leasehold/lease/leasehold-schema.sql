-- Leasehold lease schema, as plain SQL for users who migrate with a tool other than Liquibase.
-- Same objects as db.changelog.xml with the default names (LeaseSchemaTest proves it).
-- LeaseSchema.sqlScript() renders this file for other table and sequence names.

-- CACHE 1: a per-connection cache would hand out fences out of order (CONTRACT C3).
CREATE SEQUENCE leasehold_fence_seq AS bigint START WITH 1 INCREMENT BY 1 MINVALUE 1 CACHE 1 NO CYCLE;

-- One row per lease key, kept once created: release marks the row rather than deleting it.
CREATE TABLE leasehold_lease (
  account_id  text        NOT NULL,
  session_id  text        NOT NULL,
  run_id      uuid        NOT NULL,
  fence       bigint      NOT NULL,
  holder      text        NOT NULL DEFAULT '',
  acquired_at timestamptz NOT NULL,
  renewed_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  released_at timestamptz,
  CONSTRAINT leasehold_lease_pkey PRIMARY KEY (account_id, session_id)
);

ALTER TABLE leasehold_lease
  ADD CONSTRAINT leasehold_lease_key_check
    CHECK (char_length(account_id) BETWEEN 1 AND 128 AND char_length(session_id) BETWEEN 1 AND 128),
  ADD CONSTRAINT leasehold_lease_fence_check CHECK (fence > 0),
  ADD CONSTRAINT leasehold_lease_holder_check CHECK (char_length(holder) <= 200);

-- No index on expires_at, on purpose: it would turn every acquire, renew and release (they all
-- change expires_at) into a non-HOT update. The fillfactor leaves room for HOT updates.
ALTER TABLE leasehold_lease SET (fillfactor = 70);

-- Live status (LeaseWatcher): acquires, takeovers and releases notify the channel named like the
-- table, from the same transaction. Renewals are skipped by the WHEN clause on purpose.
-- Payload: "<event> <account id, hex> <session id, hex> <fence>".
CREATE FUNCTION leasehold_lease_notify() RETURNS trigger LANGUAGE plpgsql AS $body$
      BEGIN
        -- A store built with notifyChanges(false) sets leasehold.notify to off for its statements.
        IF current_setting('leasehold.notify', true) = 'off' THEN
          RETURN NULL;
        END IF;
        PERFORM pg_notify('leasehold_lease',
          CASE
            WHEN TG_OP = 'INSERT' THEN 'acquired'
            WHEN OLD.run_id IS DISTINCT FROM NEW.run_id AND OLD.released_at IS NOT NULL THEN 'acquired'
            WHEN OLD.run_id IS DISTINCT FROM NEW.run_id THEN 'taken_over'
            ELSE 'released'
          END
          || ' ' || encode(convert_to(NEW.account_id, 'UTF8'), 'hex')
          || ' ' || encode(convert_to(NEW.session_id, 'UTF8'), 'hex')
          || ' ' || NEW.fence);
        RETURN NULL;
      END
      $body$;

CREATE TRIGGER leasehold_lease_notify_insert AFTER INSERT ON leasehold_lease
  FOR EACH ROW EXECUTE FUNCTION leasehold_lease_notify();

CREATE TRIGGER leasehold_lease_notify_change AFTER UPDATE ON leasehold_lease
  FOR EACH ROW WHEN (OLD.run_id IS DISTINCT FROM NEW.run_id OR OLD.released_at IS DISTINCT FROM NEW.released_at)
  EXECUTE FUNCTION leasehold_lease_notify();
