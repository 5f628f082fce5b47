-- The decayer: materialized current weights of facts, and the profile
-- refreshes it owes.

-- decayed_weight is the weight the decayer computed as of decayed_at; NULL
-- while no full decay period has passed since the last mention (the weight is
-- then the base weight). Readers never need it: they compute the weight from
-- event times with the same formula, so they are exact between decayer runs.
ALTER TABLE facts
    ADD COLUMN decayed_weight double precision,
    ADD COLUMN decayed_at     timestamptz;

-- The decayer writes only columns no index covers; room left in each page
-- makes those HOT updates (no index entries, no index bloat). Pages written
-- from now on keep it.
ALTER TABLE facts SET (fillfactor = 85);

-- Base weights are 1.0 at a mention and never grow; the decay formula holds an
-- archived fact's weight at its first value below the floor, which is only
-- below the floor for base weights of at most 1.
ALTER TABLE facts ADD CONSTRAINT facts_weight_range CHECK (weight >= 0 AND weight <= 1) NOT VALID;
ALTER TABLE facts VALIDATE CONSTRAINT facts_weight_range;

-- Users whose facts the decayer changed, written in the same transaction as
-- the change and deleted once their profile-refresh task is published: a
-- failed publish is retried by the next run instead of being lost.
CREATE TABLE profile_refresh_outbox (
    tenant_id    text        NOT NULL,
    user_id      text        NOT NULL,
    requested_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
);
