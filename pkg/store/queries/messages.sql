-- name: MessageInsertBatch
-- Inserts a batch of turns, skipping event ids already stored for the tenant, and
-- folds only the newly inserted rows into their sessions' aggregates. Sessions are
-- upserted in key order so concurrent batches lock them in the same order.
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
           min(user_id) AS user_id, min(site_id) AS site_id, min(agent_id) AS agent_id,
           count(*) AS n, count(*) FILTER (WHERE role = 'system') AS sys,
           min(occurred_at) AS first_at, max(occurred_at) AS last_at
    FROM ins
    GROUP BY tenant_id, session_id
)
INSERT INTO sessions AS s (tenant_id, session_id, user_id, site_id, agent_id,
                           message_count, system_count, first_message_at, last_message_at)
SELECT tenant_id, session_id, user_id, site_id, agent_id, n, sys, first_at, last_at
FROM agg
ORDER BY tenant_id, session_id
ON CONFLICT (tenant_id, session_id) DO UPDATE
SET message_count    = s.message_count + EXCLUDED.message_count,
    system_count     = s.system_count + EXCLUDED.system_count,
    first_message_at = least(s.first_message_at, EXCLUDED.first_message_at),
    last_message_at  = greatest(s.last_message_at, EXCLUDED.last_message_at),
    updated_at       = now();

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
-- when $5.
SELECT event_id, session_id, user_id, site_id, agent_id, role, content,
       tool_calls, items, metadata, occurred_at, stored_at
FROM messages
WHERE tenant_id = $1 AND session_id = $2 AND occurred_at >= $3 AND (role <> 'system' OR $5)
ORDER BY occurred_at DESC, event_id DESC
LIMIT $4;
