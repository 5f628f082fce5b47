-- name: SummaryGetCurrent
SELECT session_id, user_id, version, from_count, through_count, first_event_id, first_at,
       last_event_id, last_at, covers_from, covers_to, messages_read, summary, key_topics, model,
       reason, created_at
FROM session_summaries
WHERE tenant_id = $1 AND session_id = $2 AND current;

-- name: SummaryListBySession
-- Every version of a session's summary, newest first.
SELECT session_id, user_id, version, from_count, through_count, first_event_id, first_at,
       last_event_id, last_at, covers_from, covers_to, messages_read, summary, key_topics, model,
       reason, created_at
FROM session_summaries
WHERE tenant_id = $1 AND session_id = $2
ORDER BY version DESC
LIMIT $3;

-- name: SummaryStateGet
-- What summarization has accounted for in a session.
SELECT user_id, message_count - system_count, summarized_count, summarized_at, last_message_at
FROM sessions
WHERE tenant_id = $1 AND session_id = $2;

-- name: SummaryStateLock
-- The same, locked for the transaction that writes the next version.
SELECT summarized_count
FROM sessions
WHERE tenant_id = $1 AND session_id = $2
FOR UPDATE;

-- name: SummaryMessagesUnread
-- The oldest non-system messages no summary has read, by event time, at most
-- $3: what the next version reads (on the partial index of unread messages).
SELECT event_id, session_id, user_id, site_id, agent_id, role, content,
       tool_calls, items, metadata, occurred_at, stored_at
FROM messages
WHERE tenant_id = $1 AND session_id = $2 AND NOT summarized AND role <> 'system'
ORDER BY occurred_at, event_id
LIMIT $3;

-- name: SummaryMessagesMark
-- Marks the messages a version read ($3, event ids), in its transaction;
-- only those still unread, so the count tells whether another writer (or a
-- deletion) got to them first.
UPDATE messages SET summarized = true
WHERE tenant_id = $1 AND session_id = $2 AND event_id = ANY ($3::text[]) AND NOT summarized;

-- name: SummaryRetire
UPDATE session_summaries SET current = false
WHERE tenant_id = $1 AND session_id = $2 AND current;

-- name: SummaryInsert
INSERT INTO session_summaries (tenant_id, session_id, user_id, version, from_count, through_count,
                               first_event_id, first_at, last_event_id, last_at, covers_from, covers_to,
                               messages_read, summary, key_topics, model, reason)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
ON CONFLICT DO NOTHING
RETURNING created_at;

-- name: SummaryStateAdvance
-- Moves a session's summarized range forward, from $3 to $4 (only from $3:
-- whoever moved it first wins), with the event time of the newest message
-- covered ($5; NULL keeps it).
UPDATE sessions
SET summarized_count = $4,
    summarized_at    = CASE WHEN $5::timestamptz IS NULL THEN summarized_at
                            ELSE greatest(coalesce(summarized_at, $5::timestamptz), $5::timestamptz) END
WHERE tenant_id = $1 AND session_id = $2 AND summarized_count = $3;

-- name: SummaryRequestReset
-- Forgets an outstanding threshold request whose publish failed, so the next
-- ingest batch of the session asks again.
UPDATE sessions SET summary_requested_count = summarized_count
WHERE tenant_id = $1 AND session_id = $2 AND summary_requested_count = $3;

-- name: SummaryIdleSessions
-- Sessions with messages no summary accounts for and no message since $1
-- (event time), oldest first, at most $2. Every tenant: this is the sweep,
-- which publishes per-tenant requests. One statement for the whole sweep,
-- read a page at a time (SweepIdleSessions): last_message_at is not indexed
-- (sessions), so each statement reads the table once.
SELECT tenant_id, session_id, user_id, message_count - system_count, summarized_count, last_message_at
FROM sessions
WHERE message_count - system_count > summarized_count
  AND last_message_at < $1
ORDER BY last_message_at, tenant_id, session_id
LIMIT $2;

-- name: SummaryDeleteBySession
DELETE FROM session_summaries WHERE tenant_id = $1 AND session_id = $2;

-- name: SummaryListForContext
-- The context's summaries in one statement: the current summaries of the
-- user's other sessions, latest first by the newest message they cover (at
-- most $4), then the session's own current summary, flagged by the last
-- column.
(SELECT session_id, user_id, version, from_count, through_count, first_event_id, first_at,
        last_event_id, last_at, covers_from, covers_to, messages_read, summary, key_topics, model,
        reason, created_at, false
 FROM session_summaries
 WHERE tenant_id = $1 AND user_id = $2 AND current AND session_id <> $3
 ORDER BY covers_to DESC, session_id
 LIMIT $4)
UNION ALL
(SELECT session_id, user_id, version, from_count, through_count, first_event_id, first_at,
        last_event_id, last_at, covers_from, covers_to, messages_read, summary, key_topics, model,
        reason, created_at, true
 FROM session_summaries
 WHERE tenant_id = $1 AND session_id = $3 AND current);

-- name: SummaryListForContextBefore
-- SummaryListForContext as the summaries stood before $5: of each session
-- its newest version that read only messages before then (covers_to, the
-- newest message of the version and of those it rolls forward, before
-- $5), or none when every version read a later one. A version written
-- from later messages is left out for the one before it: what a context
-- as of $5 says must not come from after it. The user's sessions that
-- began before $5 are read on their index, each one's versions newest
-- first on the version key.
(SELECT ss.session_id, ss.user_id, ss.version, ss.from_count, ss.through_count, ss.first_event_id, ss.first_at,
        ss.last_event_id, ss.last_at, ss.covers_from, ss.covers_to, ss.messages_read, ss.summary, ss.key_topics,
        ss.model, ss.reason, ss.created_at, false
 FROM sessions s
 CROSS JOIN LATERAL (
     SELECT *
     FROM session_summaries v
     WHERE v.tenant_id = $1 AND v.session_id = s.session_id AND v.covers_to < $5
     ORDER BY v.version DESC
     LIMIT 1) ss
 WHERE s.tenant_id = $1 AND s.user_id = $2 AND s.session_id <> $3 AND s.first_message_at < $5
 ORDER BY ss.covers_to DESC, ss.session_id
 LIMIT $4)
UNION ALL
(SELECT session_id, user_id, version, from_count, through_count, first_event_id, first_at,
        last_event_id, last_at, covers_from, covers_to, messages_read, summary, key_topics, model,
        reason, created_at, true
 FROM session_summaries
 WHERE tenant_id = $1 AND session_id = $3 AND covers_to < $5
 ORDER BY version DESC
 LIMIT 1);

-- name: SummaryListCurrent
-- The current summaries of the given sessions ($2), each looked up by its
-- session (at most one is current: session_summaries_current_idx). Written
-- as a lookup per session rather than session_id = ANY ($2): planned on a
-- table never analyzed (a new deployment), that form scanned every current
-- summary of the tenant with session_id as a filter, and a cached plan keeps
-- doing so until the table is analyzed; the LIMIT keeps the lookup from
-- being flattened into that scan.
SELECT s.session_id, s.user_id, s.version, s.from_count, s.through_count, s.first_event_id, s.first_at,
       s.last_event_id, s.last_at, s.covers_from, s.covers_to, s.messages_read, s.summary, s.key_topics,
       s.model, s.reason, s.created_at
FROM unnest($2::text[]) AS u(session_id),
     LATERAL (SELECT *
              FROM session_summaries
              WHERE tenant_id = $1 AND session_id = u.session_id AND current
              LIMIT 1) s;
