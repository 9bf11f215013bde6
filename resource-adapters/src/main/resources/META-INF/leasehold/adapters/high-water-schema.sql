-- The database writer's high-water table, as plain SQL (same as high-water.changelog.xml).
-- One row per lease key: the highest fence admitted, and the run that presented it.
CREATE TABLE leasehold_high_water (
  account_id  text        NOT NULL,
  session_id  text        NOT NULL,
  fence       bigint      NOT NULL,
  run_id      uuid        NOT NULL,
  admitted_at timestamptz NOT NULL,
  CONSTRAINT leasehold_high_water_pkey PRIMARY KEY (account_id, session_id)
);

ALTER TABLE leasehold_high_water
  ADD CONSTRAINT leasehold_high_water_fence_check CHECK (fence > 0);

-- The audit of mark resets (CONTRACT C17), written in the same transaction as each reset.
CREATE TABLE leasehold_high_water_audit (
  id            bigserial   PRIMARY KEY,
  at            timestamptz NOT NULL,
  operator      text        NOT NULL,
  account_id    text        NOT NULL,
  session_id    text        NOT NULL,
  previous_mark bigint      NOT NULL,
  new_mark      bigint      NOT NULL,
  reason        text        NOT NULL
);
