-- name: MessageInsertBatch
-- Inserts a batch of turns, skipping event ids already stored for the tenant, and
-- folds only the newly inserted rows into their sessions' aggregates. Sessions are
-- upserted in key order so concurrent batches lock them in the same order.
--
-- It also decides, in the same statement, which sessions this batch made due for
-- a summary ($14 non-system messages since the last summary, and $15
-- microseconds of event time since it; the first summary needs only the count;
-- $14 <= 0 turns the trigger off). A session is asked once per summary: the ask
-- is recorded in summary_requested_count and not repeated while it is
-- outstanding. The result is one row: the number of sessions touched and, as
-- arrays, the sessions asked for now.
--
-- A session belongs to one user: its row's user_id, which nothing changes
-- (SessionClaimBatch). This statement stores a batch whose sessions are each
-- one user's, their owner's or, for a session the batch is the first to
-- write, its own: what almost every batch is. When a session of the batch
-- has turns of two users, or of another user than its owner (a session
-- another writer made meanwhile included), the user_id written is NULL and
-- the sessions' NOT NULL constraint fails the whole statement, so that
-- nothing of the batch is stored; the caller then stores it turn by turn
-- judged (MessageInsertJudged). One probe fewer a session than judging
-- every batch.
WITH rows AS (
    SELECT *
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],
                $12::timestamptz[], $13::bigint[])
      AS r(tenant_id, event_id, session_id, user_id, site_id, agent_id,
           role, content, tool_calls, items, metadata, occurred_at, stream_seq)
), ins AS (
    INSERT INTO messages (tenant_id, event_id, session_id, user_id, site_id, agent_id,
                          role, content, tool_calls, items, metadata, occurred_at, stream_seq)
    SELECT tenant_id, event_id, session_id, user_id, site_id, agent_id,
           role, content, tool_calls::jsonb, items::jsonb, metadata::jsonb, occurred_at, stream_seq
    FROM rows
    ON CONFLICT (tenant_id, event_id) DO NOTHING
    RETURNING tenant_id, session_id, user_id, site_id, agent_id, role, occurred_at
), agg AS (
    SELECT tenant_id, session_id,
           CASE WHEN min(user_id) = max(user_id) THEN min(user_id) END AS user_id,
           min(site_id) AS site_id, min(agent_id) AS agent_id,
           count(*) AS n, count(*) FILTER (WHERE role = 'system') AS sys,
           min(occurred_at) AS first_at, max(occurred_at) AS last_at
    FROM ins
    GROUP BY tenant_id, session_id
), up AS (
    INSERT INTO sessions AS s (tenant_id, session_id, user_id, site_id, agent_id,
                               message_count, system_count, first_message_at, last_message_at,
                               summary_requested_count)
    SELECT tenant_id, session_id, user_id, site_id, agent_id, n, sys, first_at, last_at,
           CASE WHEN $14::int > 0 AND n - sys >= $14::int THEN n - sys ELSE 0 END
    FROM agg
    ORDER BY tenant_id, session_id
    ON CONFLICT (tenant_id, session_id) DO UPDATE
    SET user_id          = CASE WHEN s.user_id = EXCLUDED.user_id THEN s.user_id END,
        message_count    = s.message_count + EXCLUDED.message_count,
        system_count     = s.system_count + EXCLUDED.system_count,
        first_message_at = least(s.first_message_at, EXCLUDED.first_message_at),
        last_message_at  = greatest(s.last_message_at, EXCLUDED.last_message_at),
        summary_requested_count = CASE
            WHEN $14::int > 0
             AND s.summary_requested_count <= s.summarized_count
             AND (s.message_count + EXCLUDED.message_count) - (s.system_count + EXCLUDED.system_count)
                 - s.summarized_count >= $14::int
             AND (s.summarized_at IS NULL
                  OR greatest(s.last_message_at, EXCLUDED.last_message_at)
                     >= s.summarized_at + $15::bigint * interval '1 microsecond')
            THEN (s.message_count + EXCLUDED.message_count) - (s.system_count + EXCLUDED.system_count)
            ELSE s.summary_requested_count END,
        updated_at       = now()
    RETURNING tenant_id, session_id, user_id, message_count - system_count AS counted,
              summarized_count, summary_requested_count, last_message_at
), due AS (
    SELECT * FROM up
    WHERE summary_requested_count = counted AND summary_requested_count > summarized_count
)
SELECT (SELECT count(*) FROM up),
       coalesce(array_agg(tenant_id), '{}'), coalesce(array_agg(session_id), '{}'),
       coalesce(array_agg(user_id), '{}'), coalesce(array_agg(summarized_count), '{}'),
       coalesce(array_agg(counted), '{}'), coalesce(array_agg(last_message_at), '{}')
FROM due;

-- name: MessageInsertJudged
-- MessageInsertBatch for a batch it refused: each turn judged by its session's
-- owner.
--
-- It also decides, in the same statement, which sessions this batch made due for
-- a summary ($14 non-system messages since the last summary, and $15
-- microseconds of event time since it; the first summary needs only the count;
-- $14 <= 0 turns the trigger off). A session is asked once per summary: the ask
-- is recorded in summary_requested_count and not repeated while it is
-- outstanding.
--
-- A session belongs to one user: its row's user_id, which nothing changes,
-- made by the first turn any front door or worker accepted for it
-- (SessionClaimBatch), or here. A turn whose session is another user's is
-- left out and reported; a session the batch is the first to write belongs
-- to the user of its earliest turn in the batch (stream sequence, then the
-- order given), and the turns of others for it are left out. Should another
-- writer make one of those sessions for another user while this statement
-- runs, the user_id written is NULL (as in MessageInsertBatch) and the
-- statement fails whole: the caller tries again, when the session's row
-- decides.
--
-- The result is one row: the number of sessions touched, the places (1-based,
-- in the arrays given) and owners of the turns left out, and, as arrays, the
-- sessions asked for now.
WITH input AS (
    SELECT *
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],
                $12::timestamptz[], $13::bigint[]) WITH ORDINALITY
      AS r(tenant_id, event_id, session_id, user_id, site_id, agent_id,
           role, content, tool_calls, items, metadata, occurred_at, stream_seq, ord)
), firsts AS (
    SELECT DISTINCT ON (tenant_id, session_id) tenant_id, session_id, user_id
    FROM input
    ORDER BY tenant_id, session_id, stream_seq, ord
), owners AS (
    -- One probe of the session key per session of the batch.
    SELECT f.tenant_id, f.session_id, coalesce(s.user_id, f.user_id) AS owner
    FROM firsts f
    LEFT JOIN sessions s ON s.tenant_id = f.tenant_id AND s.session_id = f.session_id
), rows AS (
    SELECT r.*, r.user_id = o.owner AS own, o.owner
    FROM input r
    JOIN owners o ON o.tenant_id = r.tenant_id AND o.session_id = r.session_id
), ins AS (
    INSERT INTO messages (tenant_id, event_id, session_id, user_id, site_id, agent_id,
                          role, content, tool_calls, items, metadata, occurred_at, stream_seq)
    SELECT tenant_id, event_id, session_id, user_id, site_id, agent_id,
           role, content, tool_calls::jsonb, items::jsonb, metadata::jsonb, occurred_at, stream_seq
    FROM rows
    WHERE own
    ON CONFLICT (tenant_id, event_id) DO NOTHING
    RETURNING tenant_id, session_id, user_id, site_id, agent_id, role, occurred_at
), agg AS (
    SELECT tenant_id, session_id,
           min(user_id) AS user_id, min(site_id) AS site_id, min(agent_id) AS agent_id,
           count(*) AS n, count(*) FILTER (WHERE role = 'system') AS sys,
           min(occurred_at) AS first_at, max(occurred_at) AS last_at
    FROM ins
    GROUP BY tenant_id, session_id
), up AS (
    INSERT INTO sessions AS s (tenant_id, session_id, user_id, site_id, agent_id,
                               message_count, system_count, first_message_at, last_message_at,
                               summary_requested_count)
    SELECT tenant_id, session_id, user_id, site_id, agent_id, n, sys, first_at, last_at,
           CASE WHEN $14::int > 0 AND n - sys >= $14::int THEN n - sys ELSE 0 END
    FROM agg
    ORDER BY tenant_id, session_id
    ON CONFLICT (tenant_id, session_id) DO UPDATE
    SET user_id          = CASE WHEN s.user_id = EXCLUDED.user_id THEN s.user_id END,
        message_count    = s.message_count + EXCLUDED.message_count,
        system_count     = s.system_count + EXCLUDED.system_count,
        first_message_at = least(s.first_message_at, EXCLUDED.first_message_at),
        last_message_at  = greatest(s.last_message_at, EXCLUDED.last_message_at),
        summary_requested_count = CASE
            WHEN $14::int > 0
             AND s.summary_requested_count <= s.summarized_count
             AND (s.message_count + EXCLUDED.message_count) - (s.system_count + EXCLUDED.system_count)
                 - s.summarized_count >= $14::int
             AND (s.summarized_at IS NULL
                  OR greatest(s.last_message_at, EXCLUDED.last_message_at)
                     >= s.summarized_at + $15::bigint * interval '1 microsecond')
            THEN (s.message_count + EXCLUDED.message_count) - (s.system_count + EXCLUDED.system_count)
            ELSE s.summary_requested_count END,
        updated_at       = now()
    RETURNING tenant_id, session_id, user_id, message_count - system_count AS counted,
              summarized_count, summary_requested_count, last_message_at
), due AS (
    SELECT * FROM up
    WHERE summary_requested_count = counted AND summary_requested_count > summarized_count
)
SELECT (SELECT count(*) FROM up),
       (SELECT coalesce(array_agg(ord ORDER BY ord), '{}') FROM rows WHERE NOT own),
       (SELECT coalesce(array_agg(owner ORDER BY ord), '{}') FROM rows WHERE NOT own),
       coalesce(array_agg(tenant_id), '{}'), coalesce(array_agg(session_id), '{}'),
       coalesce(array_agg(user_id), '{}'), coalesce(array_agg(summarized_count), '{}'),
       coalesce(array_agg(counted), '{}'), coalesce(array_agg(last_message_at), '{}')
FROM due;

-- name: MessageListAfter
-- A page of a session's messages in event-time order, after the cursor ($3, $4).
SELECT event_id, session_id, user_id, site_id, agent_id, role, content,
       tool_calls, items, metadata, occurred_at, stored_at
FROM messages
WHERE tenant_id = $1 AND session_id = $2 AND (occurred_at, event_id) > ($3, $4)
ORDER BY occurred_at, event_id
LIMIT $5;

-- name: MessageDeleteBySession
DELETE FROM messages WHERE tenant_id = $1 AND session_id = $2;

-- name: MessageListRecent
-- The newest messages of a session at or after $3, newest first; system turns only
-- when $5. Only its owner's: a session belongs to one user, and a turn another
-- user stored in it before that rule (session_guests) is never shown as its own
-- (the same holds for every window and list statement below).
SELECT event_id, session_id, user_id, site_id, agent_id, role, content,
       tool_calls, items, metadata, occurred_at, stored_at
FROM messages
WHERE tenant_id = $1 AND session_id = $2 AND occurred_at >= $3 AND (role <> 'system' OR $5)
  AND user_id = (SELECT s.user_id FROM sessions s WHERE s.tenant_id = $1 AND s.session_id = $2)
ORDER BY occurred_at DESC, event_id DESC
LIMIT $4;

-- name: MessageCurrentList
-- A session's current list: the items of its newest turn (event time, then
-- event id) that presented one; one probe of the partial list index.
SELECT event_id, occurred_at, items
FROM messages
WHERE tenant_id = $1 AND session_id = $2 AND items IS NOT NULL
  AND user_id = (SELECT s.user_id FROM sessions s WHERE s.tenant_id = $1 AND s.session_id = $2)
ORDER BY occurred_at DESC, event_id DESC
LIMIT 1;

-- name: MessageListRecentBefore
-- MessageListRecent as the session stood before $3 (a context asked as of
-- then): its newest messages before $3, newest first; system turns only
-- when $5. The same index range, bounded above instead of below.
SELECT event_id, session_id, user_id, site_id, agent_id, role, content,
       tool_calls, items, metadata, occurred_at, stored_at
FROM messages
WHERE tenant_id = $1 AND session_id = $2 AND occurred_at < $3 AND (role <> 'system' OR $5)
  AND user_id = (SELECT s.user_id FROM sessions s WHERE s.tenant_id = $1 AND s.session_id = $2)
ORDER BY occurred_at DESC, event_id DESC
LIMIT $4;

-- name: MessageCountBefore
-- A session's messages and, of them, system turns before $3: its counts as
-- they stood then (the session row holds today's).
SELECT count(*), count(*) FILTER (WHERE role = 'system')
FROM messages
WHERE tenant_id = $1 AND session_id = $2 AND occurred_at < $3;

-- name: MessageCurrentListBefore
-- MessageCurrentList as the session stood before $3: the items of its
-- newest turn before then that presented one.
SELECT event_id, occurred_at, items
FROM messages
WHERE tenant_id = $1 AND session_id = $2 AND items IS NOT NULL AND occurred_at < $3
  AND user_id = (SELECT s.user_id FROM sessions s WHERE s.tenant_id = $1 AND s.session_id = $2)
ORDER BY occurred_at DESC, event_id DESC
LIMIT 1;

-- name: MessageStoredIDs
-- Which of the given event ids the tenant has stored as messages.
SELECT event_id FROM messages WHERE tenant_id = $1 AND event_id = ANY($2::text[]);

-- name: MessageStatusGet
-- Where one stored turn stands: its session, role, the turn stream's sequence
-- it was stored from, and whether a summary version has read it.
SELECT session_id, user_id, role, stream_seq, summarized
FROM messages
WHERE tenant_id = $1 AND event_id = $2;
