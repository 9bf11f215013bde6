-- Leasehold lease schema, as plain SQL for users who migrate with a tool other than Liquibase.
-- Same objects as db.changelog.xml with the default names (LeaseSchemaTest proves it).
-- LeaseSchema.sqlScript() renders this file for other table and sequence names.

-- CACHE 1: a per-connection cache would hand out fences out of order (CONTRACT C3).
CREATE SEQUENCE leasehold_fence_seq AS bigint START WITH 1 INCREMENT BY 1 MINVALUE 1 CACHE 1 NO CYCLE;

-- One row per lease key, kept once created: release marks the row rather than deleting it.
-- No CHECK constraints and no triggers, on purpose: each made every write measurably slower, and
-- the lease store validates what it writes (db.changelog.xml, change set 4, says how much).
-- The key columns compare byte by byte: identifiers, compared for equality only, and every
-- primary-key lookup is cheaper than under a locale's collation (db.changelog.xml, change set 6).
CREATE TABLE leasehold_lease (
  account_id  text COLLATE "C" NOT NULL,
  session_id  text COLLATE "C" NOT NULL,
  run_id      uuid        NOT NULL,
  fence       bigint      NOT NULL,
  holder      text        NOT NULL DEFAULT '',
  acquired_at timestamptz NOT NULL,
  renewed_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  released_at timestamptz,
  -- true when this run took over an expired lease (not a released or new row): live status
  -- reports those as takeovers.
  took_over   boolean     NOT NULL DEFAULT false,
  CONSTRAINT leasehold_lease_pkey PRIMARY KEY (account_id, session_id)
);

-- The sequence belongs to the table's fence column: a lease store refuses to grant from any other
-- sequence on this table (CONTRACT C3; db.changelog.xml, change set 7).
ALTER SEQUENCE leasehold_fence_seq OWNED BY leasehold_lease.fence;

-- No index on expires_at, on purpose: it would turn every acquire, renew and release (they all
-- change expires_at) into a non-HOT update. The fillfactor leaves room for HOT updates.
ALTER TABLE leasehold_lease SET (fillfactor = 70);

-- The audit of administrative operations (CONTRACT C17): force releases and sweeps, with who,
-- when and why. Written by the lease store only; operators read it with plain SQL.
CREATE TABLE leasehold_lease_audit (
  id         bigserial   PRIMARY KEY,
  at         timestamptz NOT NULL,
  operation  text        NOT NULL,
  caller     text        NOT NULL,
  account_id text,
  session_id text,
  reason     text        NOT NULL,
  detail     text        NOT NULL
);

-- The fence floor (CONTRACT C3): the highest fence the sweep has deleted, one row. A swept key's
-- next acquire draws above it, so a sequence set back cannot repeat a swept key's fence
-- (db.changelog.xml, change set 9).
CREATE TABLE leasehold_lease_fence_floor (fence bigint NOT NULL);
INSERT INTO leasehold_lease_fence_floor (fence) VALUES (0);
