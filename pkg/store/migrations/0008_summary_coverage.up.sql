-- Summary coverage: every message of a session is read into some summary
-- version, whatever order its messages were committed in.
--
-- A message is marked summarized in the transaction of the version that read
-- it. The summarizer reads a session's oldest unread messages (event time),
-- so a backlog is summarized in several versions, oldest first, and a message
-- that arrives late (its event time before the current summary's end, from a
-- late producer or from two ingest batches that commit out of order) is read
-- by the next version. Counts alone cannot say which messages were read, and
-- neither can the stream sequence: ingest commits batches concurrently, so a
-- lower sequence can commit after a higher one has been summarized.
--
-- Rows stored before this migration take the first default (true: accounted
-- for, as the summarizer treated them); rows stored from now on take the
-- second (false). Neither statement rewrites the table.
ALTER TABLE messages ADD COLUMN summarized boolean NOT NULL DEFAULT true;
ALTER TABLE messages ALTER COLUMN summarized SET DEFAULT false;

-- What no summary has read yet: the messages after the current summary's
-- newest (the summarizer read forward by event time until now) and every
-- message of a session without a summary.
UPDATE messages m
SET summarized = false
FROM sessions s
LEFT JOIN session_summaries ss
       ON ss.tenant_id = s.tenant_id AND ss.session_id = s.session_id AND ss.current
WHERE m.tenant_id = s.tenant_id AND m.session_id = s.session_id AND m.role <> 'system'
  AND (ss.session_id IS NULL OR (m.occurred_at, m.event_id) > (ss.last_at, ss.last_event_id));

-- A session's unread messages in event-time order: what the next version
-- reads. Read messages leave the index, so it holds only the few messages
-- awaiting a summary; a session's scan never passes over what was read.
CREATE INDEX messages_unsummarized_idx ON messages (tenant_id, session_id, occurred_at, event_id)
    WHERE NOT summarized AND role <> 'system';

-- summarized_count now counts the messages marked read. Threshold requests
-- are forgotten, so none is left outstanding above the new count: the next
-- ingest batch that finds a session due asks again (a repeat is harmless).
UPDATE sessions s
SET summarized_count = s.message_count - s.system_count
        - (SELECT count(*) FROM messages m
           WHERE m.tenant_id = s.tenant_id AND m.session_id = s.session_id
             AND NOT m.summarized AND m.role <> 'system'),
    summary_requested_count = 0;

-- The event-time range a version covers with the versions it rolls forward:
-- from the oldest message any of them read to the newest. (first_at and
-- last_at stay the range of the messages this version read.)
ALTER TABLE session_summaries
    ADD COLUMN covers_from timestamptz,
    ADD COLUMN covers_to   timestamptz;
UPDATE session_summaries ss
SET covers_from = r.covers_from, covers_to = r.covers_to
FROM (SELECT tenant_id, session_id, from_count,
             min(first_at) OVER w AS covers_from, max(last_at) OVER w AS covers_to
      FROM session_summaries
      WINDOW w AS (PARTITION BY tenant_id, session_id ORDER BY from_count)) r
WHERE ss.tenant_id = r.tenant_id AND ss.session_id = r.session_id AND ss.from_count = r.from_count;
ALTER TABLE session_summaries
    ALTER COLUMN covers_from SET NOT NULL,
    ALTER COLUMN covers_to SET NOT NULL,
    ADD CHECK (covers_from <= first_at AND covers_to >= last_at);

-- A user's latest sessions by the newest message their summaries cover, for
-- the context (a version that read only late messages ends before the
-- version it follows).
DROP INDEX session_summaries_user_idx;
CREATE INDEX session_summaries_user_idx ON session_summaries (tenant_id, user_id, covers_to DESC) WHERE current;
