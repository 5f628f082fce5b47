ALTER TABLE facts DROP COLUMN first_event_id;
