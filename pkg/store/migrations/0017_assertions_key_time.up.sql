-- A user's assertions of one key by time: a context reads the newest of a
-- user's self-statements (which grow with the history) and every assertion
-- of the other keys, without reading all of the former.
CREATE INDEX attribute_assertions_key_time ON attribute_assertions (tenant_id, user_id, key, occurred_at);
