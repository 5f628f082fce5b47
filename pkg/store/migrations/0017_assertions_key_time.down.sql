DROP INDEX IF EXISTS attribute_assertions_key_time;
