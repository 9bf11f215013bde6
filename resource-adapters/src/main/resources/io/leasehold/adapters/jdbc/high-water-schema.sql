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
