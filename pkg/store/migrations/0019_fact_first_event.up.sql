-- The event of a fact's first mention: the one whose mention created the row
-- (the earliest, by event time then event id, of the batch that created it).
-- The change feed's fact.new is that mention's, and a redelivered turn or
-- summary finds the facts it created by it. Rows stored before this
-- column have none, and no redelivery finds them.
ALTER TABLE facts ADD COLUMN first_event_id text NOT NULL DEFAULT '';
