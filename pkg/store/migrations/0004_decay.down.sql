DROP TABLE IF EXISTS profile_refresh_outbox;
ALTER TABLE facts RESET (fillfactor);
ALTER TABLE facts DROP CONSTRAINT IF EXISTS facts_weight_range;
ALTER TABLE facts DROP COLUMN IF EXISTS decayed_at, DROP COLUMN IF EXISTS decayed_weight;
